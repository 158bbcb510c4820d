/** Node-only: the standalone server's control plane: the database from --db / MODELGATE_DB / DATABASE_URL, migrated, and the services on it. */
import type { ChangeNotifier } from '../src/control/change-notifier.js';
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from '../src/control/control-plane.js';
import { hostname } from 'node:os';
import { ledgerSettings } from './ledger-settings.js';
import { resolveControlSecret } from './control-secret.js';
import { resolveDatabaseTarget } from './db/database-target.js';
import { openDatabase, type OpenedDatabase } from './db/open-database.js';
import { WorkerLedgerSink } from './db/worker-ledger-sink.js';

export interface NodeControlPlane {
  control: ControlPlane;
  database: OpenedDatabase;
  /** Where the secret that encrypts providerKeys came from (never its value); see control-secret.ts. */
  secretSource: string;
  /** Stops the control plane's background work, then closes the database. */
  close(): Promise<void>;
}

export async function openControlPlane(
  dbFlag: string | undefined,
  env: Record<string, string | undefined>,
  options: { notifier?: ChangeNotifier; configSecret?: string } & Pick<ControlPlaneOptions, 'background' | 'meterProvider'> = {},
): Promise<NodeControlPlane> {
  const settings = ledgerSettings(env);
  const target = resolveDatabaseTarget(dbFlag, env);
  const { configSecret, ...rest } = options;
  const database = await openDatabase(target);
  // A SQLite file's ledger batches are written by a worker thread (worker-ledger-sink.ts), off the event loop.
  const sink = target.kind === 'sqlite' && settings.writer === 'thread' ? new WorkerLedgerSink(target.file) : undefined;
  const ledger = sink ? { ...settings.queue, sink } : settings.queue;
  let control: ControlPlane;
  let secretSource: string;
  try {
    // After the database opened: a SQLite file exists, and its generated secret goes beside it.
    const { secret, source } = resolveControlSecret(target, env, configSecret);
    secretSource = source;
    control = await createControlPlane({ db: database.db, dialect: database.dialect, ledger, instanceName: `${hostname()}:${process.pid}`, ...rest, ...(secret !== undefined ? { secret } : {}) });
  } catch (err) {
    await sink?.close().catch(() => undefined);
    await database.close().catch(() => undefined);
    throw err;
  }
  return {
    control,
    database,
    secretSource,
    async close() {
      // The queue writes its last rows (through the writer thread), then the thread and the database close.
      await control.close();
      await sink?.close();
      await database.close();
    },
  };
}
