/**
 * The operator's side of one gateway, built once and handed to createGateway through
 * `options.control`: the store (SQLite or PostgreSQL through Kysely) and the services on it. The
 * node/ side opens the database (node/db) and builds it; an embedding host can do the same with
 * its own Kysely instance.
 */
import type { Kysely } from 'kysely';
import type { Database, DatabaseDialect } from './db/database.js';

export interface ControlPlaneOptions {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /** Milliseconds since the epoch (default Date.now). */
  now?: () => number;
  /** Where background failures are reported (default console). */
  logger?: { warn(message: string): void };
}

export interface ControlPlane {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  now: () => number;
  logger: { warn(message: string): void };
  /** Stops background work and writes what is queued; does not close the database (its opener does). */
  close(): Promise<void>;
}

export async function createControlPlane(options: ControlPlaneOptions): Promise<ControlPlane> {
  const now = options.now ?? Date.now;
  const logger = options.logger ?? console;
  const closers: Array<() => Promise<void>> = [];
  let closed = false;
  return {
    db: options.db,
    dialect: options.dialect,
    now,
    logger,
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled(closers.map((c) => c()));
    },
  };
}
