import { Migrator, type Kysely } from 'kysely';
import type { Database } from './database.js';
import { migrationProvider } from './migrations/index.js';

export interface MigrateOptions {
  /** PostgreSQL schema of Kysely's own bookkeeping tables (the one the store's tables are in). */
  schema?: string;
}

/**
 * Brings the store to the latest version (Kysely's Migrator: each migration once, in order, its
 * bookkeeping in `kysely_migration`). Throws naming the migration that failed. On PostgreSQL the
 * caller holds an advisory lock around it (node/db), so instances starting at once take turns.
 */
export async function migrateToLatest(db: Kysely<Database>, options: MigrateOptions = {}): Promise<string[]> {
  const migrator = new Migrator({ db, provider: migrationProvider, ...(options.schema ? { migrationTableSchema: options.schema } : {}) });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const newer = /previously executed migration (\S+) is missing/.exec(reason)?.[1];
    if (newer !== undefined) {
      throw new Error(
        `the store was migrated by a newer modelgate release (it has migration "${newer}", which this release does not know): run that release or a later one, or restore a backup taken before the upgrade`,
      );
    }
    throw new Error(`database migration ${failed ? `"${failed.migrationName}" ` : ''}failed: ${reason}`);
  }
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
