/**
 * Node-only: the usage ledger written to a SQLite file from a worker thread.
 *
 * SQLite's drivers run every statement synchronously on the calling thread. Written on the main
 * thread, a ledger batch held the event loop for its INSERTs and its commit (and, every thousand
 * WAL pages, a checkpoint with an fsync): requests waited meanwhile, and a slow disk slowed every
 * request. Measured with the bench (control-openai-sync at one connection, 2026-11-28): p99 added
 * over the floor 1.5-1.8 ms with the control plane on against 0.75-0.9 ms without. Here a worker
 * thread holds its own connection to the same file (WAL: readers and the main connection's writes
 * go on; a write waits for the other's commit via busy_timeout) and the main thread only posts
 * each batch, packed (ledger-transfer.ts: one typed array moved to the thread, not a structured
 * clone of every row object). The queue's contract holds: a batch resolves once committed,
 * rejects with the database's error, and a worker that died is started again for the next batch.
 */
import { Worker } from 'node:worker_threads';
import type { LedgerSink } from '../../src/control/ledger/ledger-queue.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import type { LedgerWorkerAnswer, LedgerWorkerRequest } from './ledger-worker.js';
import { packRows } from './ledger-transfer.js';

interface Pending {
  /** The thread the write was posted to. */
  worker: Worker;
  resolve: () => void;
  reject: (err: Error) => void;
}

/** Rows per message to the thread. */
const POST_ROWS = 200;

/** How long close() waits for the worker to close its connection before it is stopped. */
const CLOSE_WAIT_MS = 5000;

/** The worker thread: the compiled file next to this one, or (running from the TypeScript sources, as the tests do) the .ts file through tsx. */
function startWorker(file: string): Worker {
  const here = import.meta.url;
  if (!here.endsWith('.ts')) return new Worker(new URL('./ledger-worker.js', here), { workerData: { file } });
  const target = new URL('./ledger-worker.ts', here).href;
  // tsx (a dev dependency) resolved from the working directory, the repository's, as its CLI is.
  const code = `import('tsx/esm/api').then((m) => { m.register(); return import(${JSON.stringify(target)}); })`;
  return new Worker(code, { eval: true, workerData: { file } });
}

export class WorkerLedgerSink implements LedgerSink {
  private worker: Worker | undefined;
  private readonly pending = new Map<number, Pending>();
  private nextId = 1;

  constructor(private readonly file: string) {}

  /**
   * Posts the batch in parts of POST_ROWS rows with a turn of the event loop between them (copying
   * a whole 2000-row batch for the thread held the loop for milliseconds, the p99 of a request that
   * waited); the thread writes the batch once its last part is there.
   */
  async write(rows: readonly LedgerRow[]): Promise<void> {
    const id = this.nextId++;
    // Every part to one thread: one that stopped meanwhile lost the parts before (the batch fails, and is retried whole).
    const w = (this.worker ??= this.start());
    for (let i = 0; ; i += POST_ROWS) {
      const part = packRows(rows.slice(i, i + POST_ROWS));
      if (i + POST_ROWS >= rows.length) return this.postTo(w, { id, rows: part });
      w.postMessage({ id, rows: part, more: true } satisfies LedgerWorkerRequest, [part.numbers.buffer]);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }

  /** Closes the worker's connection and stops the thread (after the queue wrote its last rows). */
  async close(): Promise<void> {
    const w = this.worker;
    if (!w) return;
    const closed = this.post({ id: this.nextId++, close: true }).catch(() => undefined);
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([closed, new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS)))]);
    clearTimeout(timer);
    this.worker = undefined;
    await w.terminate();
  }

  private post(message: LedgerWorkerRequest): Promise<void> {
    return this.postTo((this.worker ??= this.start()), message);
  }

  private postTo(w: Worker, message: LedgerWorkerRequest): Promise<void> {
    if (this.worker !== w) return Promise.reject(new Error('the ledger writer thread stopped while a batch was being handed to it'));
    return new Promise<void>((resolve, reject) => {
      this.pending.set(message.id, { worker: w, resolve, reject });
      w.postMessage(message, 'rows' in message ? [message.rows.numbers.buffer] : []);
    });
  }

  private start(): Worker {
    const w = startWorker(this.file);
    // Writes in flight keep the queue waiting, not the process alive (the server is; a CLI run that ends is not held).
    w.unref();
    w.on('message', (m: LedgerWorkerAnswer) => {
      if (m.id === 0) return this.failAll(w, new Error(m.ok ? 'ledger writer: unexpected answer' : m.error));
      const p = this.pending.get(m.id);
      if (!p) return;
      this.pending.delete(m.id);
      if (m.ok) p.resolve();
      else p.reject(new Error(m.error));
    });
    w.on('error', (err) => this.failAll(w, err));
    w.on('exit', (code) => this.failAll(w, new Error(`the ledger writer thread stopped (exit code ${code})`)));
    return w;
  }

  /** Every write in flight on `w` fails (the queue keeps and retries its rows); the next write starts a new thread. */
  private failAll(w: Worker, err: Error): void {
    if (this.worker === w) {
      this.worker = undefined;
      void w.terminate();
    }
    for (const [id, p] of this.pending) {
      if (p.worker !== w) continue;
      this.pending.delete(id);
      p.reject(err);
    }
  }
}
