/**
 * The real databases the control-plane tests run against, opened (and migrated) the way the
 * server opens them (node/db): a SQLite file in a temp dir, and the PostgreSQL server at
 * DATABASE_URL, each test file in a schema of its own that is dropped afterwards. With
 * DATABASE_URL set, an unreachable server fails the test (never a skip).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import pg from 'pg';
import type { Database } from '../../src/control/db/database.js';
import { openDatabase } from '../../node/db/open-database.js';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  /** `--db` value for the CLI: the same database. */
  target: string;
  close(): Promise<void>;
}

/** Which databases this run tests: a SQLite file always, PostgreSQL when DATABASE_URL is set. */
export function testDatabaseKinds(): Array<'sqlite' | 'postgres'> {
  return process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

/** A fresh, migrated database of `kind`; `label` names its temp dir or schema. */
export async function openTestDatabase(kind: 'sqlite' | 'postgres', label: string): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `mg-${label}-`));
    const file = join(dir, 'control.db');
    const opened = await openDatabase({ kind: 'sqlite', file });
    return {
      name: 'sqlite',
      db: opened.db,
      dialect: 'sqlite',
      target: file,
      close: async () => {
        await opened.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.DATABASE_URL as string;
  const schema = `t_${label}_${process.pid}_${Date.now().toString(36)}`.toLowerCase().replace(/[^a-z0-9_]/g, '_');
  const opened = await openDatabase({ kind: 'postgres', url, schema });
  const target = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
  return {
    name: 'postgres',
    db: opened.db,
    dialect: 'postgres',
    target,
    close: async () => {
      await opened.close();
      await dropSchema(url, schema);
    },
  };
}

/** Drops a test's PostgreSQL schema (and everything in it). */
export async function dropSchema(url: string, schema: string): Promise<void> {
  const c = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await c.connect();
  try {
    await c.query(`drop schema if exists "${schema}" cascade`);
  } finally {
    await c.end();
  }
}
