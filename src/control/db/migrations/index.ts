/**
 * Every migration of the control plane's store, in order. A released migration is never edited;
 * a change is a new file with the next number, added here (one line each).
 */
import type { Migration, MigrationProvider } from 'kysely';
import * as m0001 from './0001_keys_and_audit.js';
import * as m0002 from './0002_ledger_and_tasks.js';
import * as m0003 from './0003_console.js';
import * as m0004 from './0004_ordered_indexes.js';
import * as m0005 from './0005_ledger_time_key.js';
import * as m0006 from './0006_ledger_names.js';
import * as m0007 from './0007_key_search.js';

export const MIGRATIONS: Readonly<Record<string, Migration>> = {
  '0001_keys_and_audit': m0001,
  '0002_ledger_and_tasks': m0002,
  '0003_console': m0003,
  '0004_ordered_indexes': m0004,
  '0005_ledger_time_key': m0005,
  '0006_ledger_names': m0006,
  '0007_key_search': m0007,
};

/** A static provider for Kysely's Migrator (no file system: the same list on every runtime). */
export const migrationProvider: MigrationProvider = {
  getMigrations: async () => ({ ...MIGRATIONS }),
};
