/**
 * Node-only: the ledger's writer thread (see worker-ledger-sink.ts). It opens the same SQLite file
 * on a connection of its own and writes the batches the main thread posts, answering each once it
 * is committed (or with the error's message).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { openDatabase } from './open-database.js';
import { unpackRows, type PackedRows } from './ledger-transfer.js';

/** What the main thread posts. */
export type LedgerWorkerRequest = { id: number; rows: PackedRows; more?: true } | { id: number; close: true };
/** What this thread answers: one per request, by its id (id 0: the database could not be opened). */
export type LedgerWorkerAnswer = { id: number; ok: true } | { id: number; ok: false; error: string };

const port = parentPort;
if (!port) throw new Error('ledger-worker.ts runs as a worker thread');
const { file } = workerData as { file: string };

const opening = openDatabase({ kind: 'sqlite', file }, { migrate: false });
opening.catch((err: unknown) => port.postMessage({ id: 0, ok: false, error: `cannot open ${file}: ${(err as Error)?.message ?? String(err)}` } satisfies LedgerWorkerAnswer));
const store = opening.then((opened) => ({ opened, store: new SqlLedgerStore(opened.db) }));

/** Parts of batches whose last part has not come yet, by batch id. */
const parts = new Map<number, LedgerRow[]>();

port.on('message', (m: LedgerWorkerRequest) => {
  if ('rows' in m && m.more) {
    const held = parts.get(m.id);
    if (held) unpackRows(m.rows, held);
    else parts.set(m.id, unpackRows(m.rows));
    return;
  }
  void (async () => {
    try {
      const { opened, store: ledger } = await store;
      if ('close' in m) {
        await opened.close();
      } else {
        const held = parts.get(m.id);
        parts.delete(m.id);
        await ledger.write(unpackRows(m.rows, held));
      }
      port.postMessage({ id: m.id, ok: true } satisfies LedgerWorkerAnswer);
    } catch (err) {
      port.postMessage({ id: m.id, ok: false, error: (err as Error)?.message ?? String(err) } satisfies LedgerWorkerAnswer);
    }
  })();
});
