/**
 * The ledger's writer thread (node/db/worker-ledger-sink.ts) on a real SQLite file: batches posted
 * from the main thread are committed by the worker's own connection and read back through the main
 * one; a thread that dies fails only the writes in flight on it (the queue keeps those rows) and the
 * next batch starts a new one; a file that cannot be opened rejects each write naming it; close()
 * stops the thread. The shipped server uses it by default (MODELGATE_LEDGER_WRITER=inline: not).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenedDatabase } from '../../node/db/open-database.js';
import { WorkerLedgerSink } from '../../node/db/worker-ledger-sink.js';
import { ledgerSettings } from '../../node/ledger-settings.js';
import { LedgerQueue } from '../../src/control/ledger/ledger-queue.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';

const T0 = Date.UTC(2026, 10, 28, 9, 0, 0);

function row(i: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    traceId: `wtrace-${String(i).padStart(6, '0')}`, requestId: null, time: T0 + i, keyId: 'key_w', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
    model: 'gpt-4o', requestedModel: 'gpt-4o', resolvedModel: 'gpt-4o-2024-08-06', provider: 'openai', deployment: 'gpt-4o', status: 200, errorCode: null, attempts: 1, fallbacks: 0,
    inputTokens: 10, outputTokens: 5, cachedTokens: null, reasoningTokens: null, images: null, videoSeconds: null, costUsd: 0.0001, price: { inputPerMTok: 2.5, outputPerMTok: 10 },
    latencyMs: 40, ttftMs: null, stream: false, byok: false, cacheHit: false, ...over,
  };
}

let dir: string;
let file: string;
let main: OpenedDatabase;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mg-ledger-thread-'));
  file = join(dir, 'store.db');
  main = await openDatabase({ kind: 'sqlite', file });
});
afterAll(async () => {
  await main?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the ledger writer thread', () => {
  it('commits batches on its own connection; the main connection reads them, names and rollups included', async () => {
    const sink = new WorkerLedgerSink(file);
    try {
      const rows = Array.from({ length: 2500 }, (_, i) => row(i, i % 10 === 0 ? { status: 429, errorCode: 'rate_limited', model: 'gpt-4o-mini' } : {}));
      await sink.write(rows.slice(0, 2000));
      await sink.write(rows.slice(2000));
      const store = new SqlLedgerStore(main.db);
      const back = (await store.rows({ keyId: 'key_w' }, { limit: 3000 })).rows;
      expect(back).toHaveLength(2500);
      expect(back[0]).toEqual(rows[2499]);
      expect((await store.rows({ model: 'gpt-4o-mini' }, { limit: 3000 })).rows).toHaveLength(250);
      expect(await store.spendSince('key_w', T0)).toEqual({ costUsd: expect.closeTo(0.25, 9), requests: 2500 });
      // A batch written again (its commit not heard) is not stored or counted twice.
      await sink.write(rows.slice(0, 10));
      expect((await store.spendSince('key_w', T0)).requests).toBe(2500);
    } finally {
      await sink.close();
    }
  });

  it('a thread that dies fails the writes in flight; the queue keeps their rows and the next write starts a new thread', async () => {
    const sink = new WorkerLedgerSink(file);
    const queue = new LedgerQueue(sink, { batchSize: 50, flushIntervalMs: 60_000, retryMaxMs: 20 });
    try {
      for (let i = 0; i < 50; i++) queue.enqueue(row(10_000 + i, { keyId: 'key_crash' }));
      await queue.flush();
      // Kill the thread under the sink while a batch is in flight, as a crash would.
      const worker = (sink as unknown as { worker?: { terminate(): Promise<number> } }).worker;
      expect(worker).toBeDefined();
      for (let i = 50; i < 120; i++) queue.enqueue(row(10_000 + i, { keyId: 'key_crash' }));
      const inFlight = queue.flush();
      await worker?.terminate();
      await inFlight;
      expect(queue.stats().failures).toBeGreaterThanOrEqual(1);
      await queue.close(10_000);
      expect(queue.stats()).toMatchObject({ queued: 0, dropped: 0, written: 120 });
      expect((await new SqlLedgerStore(main.db).rows({ keyId: 'key_crash' }, { limit: 500 })).rows).toHaveLength(120);
    } finally {
      await sink.close();
    }
  });

  it('a file that cannot be opened: each write rejects naming it', async () => {
    const missing = join(dir, 'no', 'such', 'dir', 'store.db');
    const sink = new WorkerLedgerSink(missing);
    try {
      await expect(sink.write([row(1)])).rejects.toThrow(missing);
      await expect(sink.write([row(2)])).rejects.toThrow(missing);
    } finally {
      await sink.close();
    }
  });

  it('MODELGATE_LEDGER_WRITER: thread by default, inline on request, anything else refused naming it', () => {
    expect(ledgerSettings({}).writer).toBe('thread');
    expect(ledgerSettings({ MODELGATE_LEDGER_WRITER: 'inline' }).writer).toBe('inline');
    expect(() => ledgerSettings({ MODELGATE_LEDGER_WRITER: 'threads' })).toThrow(/MODELGATE_LEDGER_WRITER/);
  });
});
