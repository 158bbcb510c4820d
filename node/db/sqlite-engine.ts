/**
 * Node-only: the SQLite engine under Kysely's SqliteDialect.
 *
 * better-sqlite3 12 on Node 20 and 22. On Node 24 and later the built-in `node:sqlite`: Node
 * 24.19 changed `node::ObjectWrap` so that an addon built against its headers aborts the process
 * (`Assertion failed: (env) != nullptr` in RemoveEnvironmentCleanupHook) whenever the garbage
 * collector finalizes one of better-sqlite3 12's statements outside a JavaScript context
 * (nodejs/node#65446, WiseLibs/better-sqlite3#1515; the shipped server died at start in CI).
 * Kysely prepares a statement per query, so that happens within seconds. better-sqlite3 13 (a
 * Node-API build without the problem) needs Node 22, and `node:sqlite` is part of Node 24 without
 * a flag or warning; it has the same synchronous shape. `MODELGATE_SQLITE_ENGINE=better-sqlite3`
 * or `=node` picks one explicitly (node:sqlite needs Node 22.16 or later).
 */
import type { SqliteDatabase, SqliteStatement } from 'kysely';

export type SqliteEngineName = 'better-sqlite3' | 'node:sqlite';

/** What the store needs of an open SQLite file beyond Kysely's interface. */
export interface SqliteHandle {
  engine: SqliteEngineName;
  /** For Kysely's SqliteDialect. */
  database: SqliteDatabase;
  /** Runs SQL without results (pragmas, BEGIN/COMMIT). */
  exec(sql: string): void;
  inTransaction(): boolean;
}

/** The engine for this runtime, or the one `MODELGATE_SQLITE_ENGINE` names. */
export function sqliteEngineFor(env: NodeJS.ProcessEnv = process.env, nodeVersion = process.versions.node): SqliteEngineName {
  const chosen = env.MODELGATE_SQLITE_ENGINE;
  if (chosen === 'better-sqlite3') return 'better-sqlite3';
  if (chosen === 'node' || chosen === 'node:sqlite') return 'node:sqlite';
  if (chosen !== undefined && chosen !== '') {
    throw new Error(`MODELGATE_SQLITE_ENGINE must be "better-sqlite3" or "node", not ${JSON.stringify(chosen)}`);
  }
  const major = Number(nodeVersion.split('.')[0]);
  return major >= 24 ? 'node:sqlite' : 'better-sqlite3';
}

export async function openSqliteFile(file: string, engine: SqliteEngineName = sqliteEngineFor()): Promise<SqliteHandle> {
  const handle = engine === 'node:sqlite' ? await openNodeSqlite(file) : await openBetterSqlite3(file);
  return { ...handle, database: withStatementCache(handle.database) };
}

/** Prepared statements kept per SQL text (the ledger's INSERTs, the key cache's reads, ...). */
export const STATEMENT_CACHE_SIZE = 64;

/**
 * Kysely's SQLite driver prepares every query again. SQLite parses and plans the text each time:
 * for the ledger's multi-row INSERT (200 rows, 5,800 parameters) that was 13% of writing a batch
 * (2.4 us per row of 18, measured with a V8 profile of the SqlLedgerStore writing 100,000 rows,
 * 2026-11-27). The same statement is reused instead: Kysely runs one query at a time on a SQLite
 * connection (its single-connection provider holds a mutex until a query, streamed ones included,
 * has finished), so a cached statement is never in use twice. Least recently used ones go first.
 */
export function withStatementCache(database: SqliteDatabase, size = STATEMENT_CACHE_SIZE): SqliteDatabase {
  const statements = new Map<string, SqliteStatement>();
  return {
    close: () => {
      statements.clear();
      return database.close();
    },
    prepare: (sql: string): SqliteStatement => {
      let stmt = statements.get(sql);
      if (stmt !== undefined) {
        // Most recently used last (a Map iterates in insertion order).
        statements.delete(sql);
      } else {
        stmt = database.prepare(sql);
        if (statements.size >= size) statements.delete(statements.keys().next().value as string);
      }
      statements.set(sql, stmt);
      return stmt;
    },
  };
}

async function openBetterSqlite3(file: string): Promise<SqliteHandle> {
  let BetterSqlite3: typeof import('better-sqlite3');
  try {
    ({ default: BetterSqlite3 } = await import('better-sqlite3'));
  } catch (err) {
    // An optional dependency: its native build can fail (no compiler, no prebuilt binary) without failing the install.
    throw new Error(`better-sqlite3 could not be loaded (${(err as Error).message}); reinstall it (npm rebuild better-sqlite3) or use PostgreSQL (--db postgres://...)`);
  }
  const sqlite = new BetterSqlite3(file);
  return {
    engine: 'better-sqlite3',
    database: sqlite,
    exec: (sql) => void sqlite.exec(sql),
    inTransaction: () => sqlite.inTransaction,
  };
}

/** The part of node:sqlite used here (its types are not in @types/node 20). */
interface NodeStatementSync {
  all(...parameters: unknown[]): Record<string, unknown>[];
  run(...parameters: unknown[]): { changes: number | bigint; lastInsertRowid: number | bigint };
  iterate(...parameters: unknown[]): IterableIterator<Record<string, unknown>>;
  columns(): unknown[];
}
interface NodeDatabaseSync {
  prepare(sql: string): NodeStatementSync;
  exec(sql: string): void;
  close(): void;
  readonly isTransaction?: boolean;
}
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeDatabaseSync;
}

async function openNodeSqlite(file: string): Promise<SqliteHandle> {
  const specifier = 'node:sqlite';
  let mod: NodeSqliteModule;
  try {
    mod = (await import(specifier)) as NodeSqliteModule;
  } catch (err) {
    throw new Error(`node:sqlite is not available on Node ${process.versions.node} (${(err as Error).message}); set MODELGATE_SQLITE_ENGINE=better-sqlite3`);
  }
  const sqlite = new mod.DatabaseSync(file);
  if (typeof sqlite.prepare('select 1').columns !== 'function') {
    sqlite.close();
    throw new Error(`node:sqlite on Node ${process.versions.node} lacks StatementSync.columns() (Node 22.16 or later has it); set MODELGATE_SQLITE_ENGINE=better-sqlite3`);
  }
  let depth = 0;
  const database: SqliteDatabase = {
    close: () => sqlite.close(),
    prepare: (sql: string): SqliteStatement => {
      const stmt = sqlite.prepare(sql);
      return {
        // A statement that yields columns (SELECT, or a write with RETURNING) is a reader, as in better-sqlite3.
        reader: stmt.columns().length > 0,
        // Rows come with a null prototype; plain objects, as better-sqlite3 gives, for callers that spread or compare them.
        all: (parameters) => stmt.all(...parameters).map((row) => ({ ...row })),
        run: (parameters) => stmt.run(...parameters),
        iterate: (parameters) => plainRows(stmt.iterate(...parameters)),
      };
    },
  };
  return {
    engine: 'node:sqlite',
    database,
    exec: (sql) => {
      sqlite.exec(sql);
      const verb = sql.trim().split(/\s+/)[0]?.toUpperCase();
      if (verb === 'BEGIN') depth = 1;
      else if (verb === 'COMMIT' || verb === 'ROLLBACK' || verb === 'END') depth = 0;
    },
    inTransaction: () => sqlite.isTransaction ?? depth > 0,
  };
}

function* plainRows(rows: IterableIterator<Record<string, unknown>>): IterableIterator<unknown> {
  for (const row of rows) yield { ...row };
}
