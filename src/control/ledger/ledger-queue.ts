/**
 * The ledger's bounded queue: requests only enqueue a row (no I/O, no await); rows are written in
 * batches off the request path. A slow or unreachable database never slows or fails a request:
 * rows wait in the queue (retried with backoff) and are written once the sink answers again. A
 * write that hangs (a database that stopped answering, a connection silently dead after a
 * failover) is given up after `writeTimeoutMs` and retried like a failed one, so the queue never
 * waits on it for ever; its rows stay queued until a write of them succeeds (the sink must take a
 * batch twice without counting it twice: the SQL store skips rows it already has). Only when the
 * queue is full are new rows dropped; each one is counted exactly, reported to the `onDrop` metric
 * and, at most once a minute, in a warning. `close()` writes every queued row.
 */
import type { LedgerRow } from './ledger-row.js';

/** Where batches of rows go (the database in the server; anything in a host or a test). */
export interface LedgerSink {
  /** Writes all of `rows` or throws (then the same rows are offered again later). */
  write(rows: readonly LedgerRow[]): Promise<void>;
}

export interface LedgerQueueOptions {
  /** Rows held at most while the sink is slow or away; beyond it new rows are dropped and counted (default 50 000). */
  maxRows?: number;
  /**
   * Rows per write, at most (default 2000); a write starts once this many are queued or the
   * flush interval has passed. Each write is one transaction, and a commit costs the database a
   * fixed amount besides its rows (the pages it touched written to the WAL, the rollups'
   * upserts): SqlLedgerStore on a SQLite file, CPU per row at 100 / 500 / 2000 rows per write
   * 7.7-8.8 / 6.5-8.1 / 5.6 us (2026-11-28). Rows wait at most the flush interval either way.
   */
  batchSize?: number;
  /** A row waits at most this long before its batch is written (default 1000 ms). */
  flushIntervalMs?: number;
  /** Longest wait between retries of a failing sink (default 30 000 ms; the first retry comes after 250 ms). */
  retryMaxMs?: number;
  /**
   * A write that has not finished after this long is given up and retried (default 15 000 ms;
   * 0: wait for ever). At most MAX_ABANDONED_WRITES given-up writes are left pending at once;
   * beyond that the queue waits for one of them to settle before it tries again.
   */
  writeTimeoutMs?: number;
  /** At most one warning per kind (rows dropped, sink failing) this often (default 60 000 ms). */
  warnEveryMs?: number;
  now?: () => number;
  warn?: (message: string) => void;
  /** Told of every dropped row (the `modelgate.ledger.dropped_rows` metric). */
  onDrop?: (count: number) => void;
}

export interface LedgerQueueStats {
  /** Rows waiting to be written. */
  queued: number;
  /** Rows the sink took. */
  written: number;
  /** Rows dropped because the queue was full (or still queued when close() gave up). */
  dropped: number;
  /** Writes that failed or timed out (each retried). */
  failures: number;
  /** Of the failures, writes given up after writeTimeoutMs. */
  timeouts: number;
}

type Timer = ReturnType<typeof setTimeout>;

/** Node keeps a process alive for a pending timer; a queue waiting to flush must not. */
function unref(t: Timer): Timer {
  (t as { unref?: () => void }).unref?.();
  return t;
}

const FIRST_RETRY_MS = 250;

/**
 * Given-up writes still pending at most (each may hold a database connection; a database pool's
 * size, 10 for the server's PostgreSQL, fits under it, so retries still get a fresh connection).
 */
export const MAX_ABANDONED_WRITES = 16;

class WriteTimeout extends Error {
  constructor(ms: number) {
    super(`the database did not answer within ${ms} ms`);
  }
}

export class LedgerQueue {
  private rows: LedgerRow[] = [];
  private written = 0;
  private dropped = 0;
  private failures = 0;
  private timeouts = 0;
  private consecutiveFailures = 0;
  /** Given-up writes that have not settled yet. */
  private abandoned = 0;
  private timer: Timer | undefined;
  private running: Promise<void> | undefined;
  private retryAt = 0;
  private closed = false;
  /** Wall-clock end of close()'s deadline (writes during close are given up by then). */
  private closeAt = Infinity;
  private readonly lastWarn = { drop: -Infinity, fail: -Infinity };
  private droppedSinceWarn = 0;
  private readonly maxRows: number;
  private readonly batchSize: number;
  private readonly flushIntervalMs: number;
  private readonly retryMaxMs: number;
  private readonly writeTimeoutMs: number;
  private readonly warnEveryMs: number;
  private readonly now: () => number;

  constructor(private readonly sink: LedgerSink, private readonly options: LedgerQueueOptions = {}) {
    this.maxRows = options.maxRows ?? 50_000;
    this.batchSize = options.batchSize ?? 2000;
    this.flushIntervalMs = options.flushIntervalMs ?? 1000;
    this.retryMaxMs = options.retryMaxMs ?? 30_000;
    this.writeTimeoutMs = options.writeTimeoutMs ?? 15_000;
    this.warnEveryMs = options.warnEveryMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** Queues a row (never blocks, never throws); false when it was dropped because the queue is full. */
  enqueue(row: LedgerRow): boolean {
    if (this.rows.length >= this.maxRows || this.closed) {
      this.drop(1);
      return false;
    }
    this.rows.push(row);
    this.schedule(this.rows.length >= this.batchSize ? 0 : this.flushIntervalMs);
    return true;
  }

  stats(): LedgerQueueStats {
    return { queued: this.rows.length, written: this.written, dropped: this.dropped, failures: this.failures, timeouts: this.timeouts };
  }

  /** Writes what is queued now; resolves when the queue is empty or a write failed (the rows stay queued). */
  flush(): Promise<void> {
    this.clearTimer();
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
      if (this.rows.length && !this.closed) this.schedule(this.backoffMs());
    });
    return this.running;
  }

  /**
   * Stops taking rows and writes every queued one, retrying a failing sink until `deadlineMs`
   * (default 10 000 ms) has passed (a hanging write is given up at the deadline too); rows still
   * queued then are counted as dropped.
   */
  async close(deadlineMs = 10_000): Promise<void> {
    const end = this.now() + deadlineMs;
    this.closeAt = Date.now() + deadlineMs;
    this.closed = true;
    this.clearTimer();
    while (this.rows.length || this.running) {
      await this.flush();
      if (!this.rows.length) break;
      const left = end - this.now();
      if (left <= 0) break;
      await new Promise<void>((resolve) => setTimeout(resolve, Math.min(left, this.backoffMs())));
    }
    if (this.rows.length) {
      const lost = this.rows.length;
      this.rows = [];
      this.drop(lost, 'shutdown');
      this.options.warn?.(`modelgate: ledger: ${lost} rows could not be written before shutdown (the database did not answer); ${this.dropped} rows dropped in all.`);
    }
  }

  private async drain(): Promise<void> {
    while (this.rows.length) {
      const batch = this.rows.slice(0, this.batchSize);
      try {
        if (this.abandoned >= MAX_ABANDONED_WRITES) throw new Error(`${this.abandoned} earlier writes have not answered yet`);
        await this.writeWithin(batch);
      } catch (err) {
        this.failures++;
        if (err instanceof WriteTimeout) this.timeouts++;
        this.consecutiveFailures++;
        this.retryAt = this.now() + this.backoffMs();
        this.warnOnce('fail', `modelgate: ledger: writing usage rows failed (${(err as Error)?.message ?? String(err)}); ${this.rows.length} rows queued, retrying.`);
        return;
      }
      this.consecutiveFailures = 0;
      this.written += batch.length;
      // Rows queued meanwhile were pushed after the batch: it is still at the front.
      this.rows.splice(0, batch.length);
    }
  }

  /** One write, given up (rejecting with WriteTimeout) when it takes longer than writeTimeoutMs or runs past close()'s deadline. */
  private writeWithin(batch: readonly LedgerRow[]): Promise<void> {
    const write = Promise.resolve().then(() => this.sink.write(batch));
    const limit = Math.min(this.writeTimeoutMs > 0 ? this.writeTimeoutMs : Infinity, Math.max(0, this.closeAt - Date.now()));
    if (!Number.isFinite(limit)) return write;
    let timer: Timer | undefined;
    let settled = false;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        if (settled) return;
        // Given up: it may still finish (then its rows are already stored; the retry skips them).
        this.abandoned++;
        write.then(
          () => this.abandoned--,
          () => this.abandoned--,
        );
        reject(new WriteTimeout(Math.round(limit)));
      }, limit);
      // While running normally a pending write does not keep a process alive; during close() it does.
      if (!this.closed) unref(timer);
    });
    return Promise.race([write, timeout]).finally(() => {
      settled = true;
      clearTimeout(timer);
    });
  }

  private backoffMs(): number {
    if (!this.consecutiveFailures) return this.flushIntervalMs;
    return Math.min(this.retryMaxMs, FIRST_RETRY_MS * 2 ** (this.consecutiveFailures - 1));
  }

  private schedule(delayMs: number): void {
    if (this.closed || this.running) return;
    // While the sink is failing, a full batch waits for the retry time too.
    const wait = this.consecutiveFailures ? Math.max(0, this.retryAt - this.now()) : delayMs;
    if (this.timer !== undefined) {
      if (wait > 0) return;
      this.clearTimer();
    }
    this.timer = unref(setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, wait));
  }

  private clearTimer(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
  }

  /** Counts dropped rows; `shutdown`: the rows close() could not write (their own warning says so, not "queue full"). */
  private drop(count: number, why: 'full' | 'shutdown' = 'full'): void {
    this.dropped += count;
    try {
      this.options.onDrop?.(count);
    } catch {
      // a metric must not break the request
    }
    if (why === 'shutdown') return;
    this.droppedSinceWarn += count;
    if (this.warnOnce('drop', `modelgate: ledger: queue full (${this.maxRows} rows; the database is slow or away); ${this.droppedSinceWarn} usage rows dropped since the last warning, ${this.dropped} in all.`)) {
      this.droppedSinceWarn = 0;
    }
  }

  private warnOnce(kind: 'drop' | 'fail', message: string): boolean {
    const now = this.now();
    if (now - this.lastWarn[kind] < this.warnEveryMs) return false;
    this.lastWarn[kind] = now;
    this.options.warn?.(message);
    return true;
  }
}
