/**
 * The ledger's bounded queue against a sink that fails and recovers: nothing is written on the
 * request path, rows queued while the sink is away are written after, rows past the bound are
 * dropped and counted exactly (metric and a rate-limited warning), close() writes every queued row.
 * A sink that hangs (a write that never settles) is given up after the write timeout and retried,
 * so the queue never waits for ever, and close() keeps its deadline with it.
 */
import { describe, expect, it } from 'vitest';
import { LedgerQueue, MAX_ABANDONED_WRITES, type LedgerSink } from '../../src/control/ledger/ledger-queue.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';

function row(i: number): LedgerRow {
  return {
    traceId: `t${i}`, requestId: null, time: 1_700_000_000_000 + i, keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
    model: 'm', requestedModel: 'm', resolvedModel: 'm-1', provider: 'p', deployment: 'm', status: 200, errorCode: null, attempts: 1, fallbacks: 0,
    inputTokens: 1, outputTokens: 2, cachedTokens: 0, reasoningTokens: 0, images: null, videoSeconds: null, costUsd: 0.001, price: null,
    latencyMs: 5, ttftMs: null, stream: false, byok: false, cacheHit: false,
  };
}

/** A sink that is down while `down` is true; records what it took. */
class FlakySink implements LedgerSink {
  down = false;
  calls = 0;
  readonly written: LedgerRow[] = [];
  async write(rows: readonly LedgerRow[]): Promise<void> {
    this.calls++;
    await new Promise((r) => setTimeout(r, 1));
    if (this.down) throw new Error('connection refused');
    this.written.push(...rows);
  }
}

/** A sink whose writes never settle while `hung` is true (a database that stopped answering). */
class HangingSink implements LedgerSink {
  hung = true;
  calls = 0;
  pending = 0;
  readonly written: LedgerRow[] = [];
  write(rows: readonly LedgerRow[]): Promise<void> {
    this.calls++;
    if (this.hung) {
      this.pending++;
      return new Promise<void>(() => undefined);
    }
    this.written.push(...rows);
    return Promise.resolve();
  }
}

const until = async (cond: () => boolean, ms = 5000): Promise<void> => {
  const end = Date.now() + ms;
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
};

describe('ledger queue', () => {
  it('enqueue does no I/O; rows are written in batches of batchSize after the flush interval', async () => {
    const sink = new FlakySink();
    const q = new LedgerQueue(sink, { batchSize: 4, flushIntervalMs: 20 });
    for (let i = 0; i < 10; i++) expect(q.enqueue(row(i))).toBe(true);
    expect(sink.calls).toBe(0);
    await until(() => sink.written.length === 10);
    expect(sink.written.map((r) => r.traceId)).toEqual(Array.from({ length: 10 }, (_, i) => `t${i}`));
    expect(sink.calls).toBe(3);
    expect(q.stats()).toEqual({ queued: 0, written: 10, dropped: 0, failures: 0, timeouts: 0 });
  });

  it('a sink that is down and comes back: queued rows are written after, past the bound they are dropped and counted exactly', async () => {
    const sink = new FlakySink();
    const warnings: string[] = [];
    let metric = 0;
    const q = new LedgerQueue(sink, { maxRows: 100, batchSize: 30, flushIntervalMs: 5, retryMaxMs: 20, warn: (m) => warnings.push(m), onDrop: (n) => (metric += n) });
    sink.down = true;
    let accepted = 0;
    for (let i = 0; i < 137; i++) if (q.enqueue(row(i))) accepted++;
    expect(accepted).toBe(100);
    await until(() => q.stats().failures >= 3);
    // Still down: more rows keep being dropped, each counted.
    for (let i = 137; i < 150; i++) q.enqueue(row(i));
    expect(q.stats()).toMatchObject({ queued: 100, written: 0, dropped: 50 });
    expect(metric).toBe(50);
    // One warning per kind within the minute, however many rows and failures.
    expect(warnings.filter((w) => w.includes('queue full'))).toHaveLength(1);
    expect(warnings.filter((w) => w.includes('writing usage rows failed'))).toHaveLength(1);
    expect(warnings.join('\n')).toContain('1 usage rows dropped since the last warning, 1 in all');
    sink.down = false;
    await until(() => q.stats().written === 100);
    expect(sink.written.map((r) => r.traceId)).toEqual(Array.from({ length: 100 }, (_, i) => `t${i}`));
    expect(q.stats()).toMatchObject({ queued: 0, written: 100, dropped: 50 });
    // Back to normal: new rows go through.
    q.enqueue(row(999));
    await until(() => q.stats().written === 101);
  });

  it('close() writes every queued row at once (no waiting for the interval)', async () => {
    const sink = new FlakySink();
    const q = new LedgerQueue(sink, { batchSize: 7, flushIntervalMs: 60_000 });
    for (let i = 0; i < 50; i++) q.enqueue(row(i));
    await q.close();
    expect(sink.written).toHaveLength(50);
    expect(q.stats()).toMatchObject({ queued: 0, written: 50, dropped: 0 });
    // A row after close is not silently lost: it is counted as dropped.
    expect(q.enqueue(row(51))).toBe(false);
    expect(q.stats().dropped).toBe(1);
  });

  it('close() retries a sink that is down until it answers, within the deadline', async () => {
    const sink = new FlakySink();
    const q = new LedgerQueue(sink, { batchSize: 10, flushIntervalMs: 60_000, retryMaxMs: 20 });
    sink.down = true;
    for (let i = 0; i < 25; i++) q.enqueue(row(i));
    setTimeout(() => (sink.down = false), 100);
    await q.close(5000);
    expect(sink.written).toHaveLength(25);
    expect(q.stats().dropped).toBe(0);
  });

  it('close() gives up at its deadline and counts what was left as dropped', async () => {
    const sink = new FlakySink();
    const warnings: string[] = [];
    const q = new LedgerQueue(sink, { flushIntervalMs: 60_000, retryMaxMs: 10, warn: (m) => warnings.push(m) });
    sink.down = true;
    for (let i = 0; i < 12; i++) q.enqueue(row(i));
    await q.close(80);
    expect(q.stats()).toMatchObject({ queued: 0, written: 0, dropped: 12 });
    expect(warnings.join('\n')).toContain('12 rows could not be written before shutdown');
    // Not "queue full": the queue held 12 rows of its bound.
    expect(warnings.join('\n')).not.toContain('queue full');
  });

  it('a write that hangs is given up after writeTimeoutMs and retried with backoff; the rows are written once the sink answers', async () => {
    const sink = new HangingSink();
    const warnings: string[] = [];
    const q = new LedgerQueue(sink, { batchSize: 10, flushIntervalMs: 5, retryMaxMs: 20, writeTimeoutMs: 30, warn: (m) => warnings.push(m) });
    for (let i = 0; i < 25; i++) q.enqueue(row(i));
    await until(() => q.stats().timeouts >= 3);
    // Each hung attempt was given up, not waited on: the queue kept trying (and kept every row).
    expect(sink.calls).toBeGreaterThanOrEqual(3);
    expect(q.stats()).toMatchObject({ queued: 25, written: 0, dropped: 0 });
    expect(warnings.join('\n')).toContain('the database did not answer within 30 ms');
    sink.hung = false;
    await until(() => q.stats().written === 25);
    expect(sink.written.map((r) => r.traceId)).toEqual(Array.from({ length: 25 }, (_, i) => `t${i}`));
    expect(q.stats()).toMatchObject({ queued: 0, dropped: 0 });
  });

  it('without a write timeout a hanging write holds the queue (the default is a bounded one)', async () => {
    const sink = new HangingSink();
    const q = new LedgerQueue(sink, { batchSize: 10, flushIntervalMs: 5, retryMaxMs: 20, writeTimeoutMs: 0 });
    for (let i = 0; i < 5; i++) q.enqueue(row(i));
    await until(() => sink.calls === 1);
    await new Promise((r) => setTimeout(r, 150));
    sink.hung = false;
    await new Promise((r) => setTimeout(r, 150));
    expect(sink.calls).toBe(1);
    expect(q.stats()).toMatchObject({ queued: 5, written: 0, timeouts: 0 });
  });

  it('given-up writes still pending are capped: beyond MAX_ABANDONED_WRITES the queue waits instead of piling up writes', async () => {
    const sink = new HangingSink();
    const q = new LedgerQueue(sink, { batchSize: 10, flushIntervalMs: 1, retryMaxMs: 2, writeTimeoutMs: 2 });
    for (let i = 0; i < 5; i++) q.enqueue(row(i));
    await until(() => q.stats().failures >= MAX_ABANDONED_WRITES + 5);
    expect(sink.pending).toBe(MAX_ABANDONED_WRITES);
    expect(q.stats().timeouts).toBe(MAX_ABANDONED_WRITES);
  });

  it('close() with a hanging sink returns by its deadline and counts the rows as dropped', async () => {
    const sink = new HangingSink();
    const warnings: string[] = [];
    const q = new LedgerQueue(sink, { flushIntervalMs: 60_000, writeTimeoutMs: 60_000, warn: (m) => warnings.push(m) });
    for (let i = 0; i < 7; i++) q.enqueue(row(i));
    await q.close(100);
    expect(q.stats()).toMatchObject({ queued: 0, written: 0, dropped: 7 });
    expect(q.stats().timeouts).toBeGreaterThanOrEqual(1);
    expect(warnings.join('\n')).toContain('7 rows could not be written before shutdown');
  });
});
