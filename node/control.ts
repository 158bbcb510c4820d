/** Node-only: the standalone server's control plane: the database from --db / MODELGATE_DB / DATABASE_URL, migrated, and the services on it. */
import type { ChangeNotifier } from '../src/control/change-notifier.js';
import { createControlPlane, type ControlPlane, type ControlPlaneOptions } from '../src/control/control-plane.js';
import { hostname } from 'node:os';
import { ledgerSettings } from './ledger-settings.js';
import { resolveDatabaseTarget } from './db/database-target.js';
import { openDatabase, type OpenedDatabase } from './db/open-database.js';

export interface NodeControlPlane {
  control: ControlPlane;
  database: OpenedDatabase;
  /** Stops the control plane's background work, then closes the database. */
  close(): Promise<void>;
}

export async function openControlPlane(
  dbFlag: string | undefined,
  env: Record<string, string | undefined>,
  options: { notifier?: ChangeNotifier } & Pick<ControlPlaneOptions, 'background' | 'meterProvider'> = {},
): Promise<NodeControlPlane> {
  const ledger = ledgerSettings(env).queue;
  const database = await openDatabase(resolveDatabaseTarget(dbFlag, env));
  let control: ControlPlane;
  try {
    control = await createControlPlane({ db: database.db, dialect: database.dialect, ledger, instanceName: `${hostname()}:${process.pid}`, ...options });
  } catch (err) {
    await database.close().catch(() => undefined);
    throw err;
  }
  return {
    control,
    database,
    async close() {
      await control.close();
      await database.close();
    },
  };
}
