/**
 * The real databases the control-plane tests run against: a SQLite file in a temp dir, and the
 * PostgreSQL server at DATABASE_URL (each test file in a schema of its own, dropped afterwards).
 * With DATABASE_URL set, an unreachable server fails the test (never a skip).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, Migrator, PostgresDialect, SqliteDialect } from 'kysely';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import type { Database } from '../../src/control/db/database.js';
import * as m0002 from '../../src/control/db/migrations/0002_ledger_and_tasks.js';

export interface TestDatabase {
  name: 'sqlite' | 'postgres';
  db: Kysely<Database>;
  /** `--db` value for the CLI: the same database. */
  target: string;
  close(): Promise<void>;
}

/** Which databases this run tests: SQLite always, PostgreSQL when DATABASE_URL is set. */
export function testDatabaseKinds(): Array<'sqlite' | 'postgres'> {
  return process.env.DATABASE_URL ? ['sqlite', 'postgres'] : ['sqlite'];
}

export async function openTestDatabase(kind: 'sqlite' | 'postgres', label: string): Promise<TestDatabase> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), `mg-${label}-`));
    const file = join(dir, 'control.db');
    const sqlite = new BetterSqlite3(file);
    sqlite.pragma('journal_mode = WAL');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    await migrate(db);
    return { name: 'sqlite', db, target: file, close: async () => { await db.destroy(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const url = process.env.DATABASE_URL as string;
  const schema = `t_${label.replace(/[^a-z0-9_]/gi, '_')}_${process.pid}_${Date.now().toString(36)}`.toLowerCase();
  const admin = new pg.Client({ connectionString: url, connectionTimeoutMillis: 5000 });
  await admin.connect();
  await admin.query(`create schema "${schema}"`);
  await admin.end();
  const pool = new pg.Pool({
    connectionString: url,
    options: `-c search_path=${schema}`,
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format))) as typeof pg.types.getTypeParser },
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  await migrate(db, schema);
  const target = `${url}${url.includes('?') ? '&' : '?'}schema=${schema}`;
  return {
    name: 'postgres',
    db,
    target,
    close: async () => {
      await db.destroy();
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      await c.query(`drop schema "${schema}" cascade`);
      await c.end();
    },
  };
}

async function migrate(db: Kysely<Database>, schema?: string): Promise<void> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => ({ '0002_ledger_and_tasks': m0002 }) }, ...(schema ? { migrationTableSchema: schema } : {}) });
  const { error } = await migrator.migrateToLatest();
  if (error) throw error;
}
