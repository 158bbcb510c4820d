/** Node-only: opens the control plane's store (SQLite, see sqlite-engine.ts, or pg) and brings it to the latest version. */
import { Kysely, SqliteDialect, type PostgresPool, type PostgresPoolClient } from 'kysely';
import type { Database, DatabaseDialect } from '../../src/control/db/database.js';
import { migrateToLatest } from '../../src/control/db/migrate.js';
import { describeTarget, type DatabaseTarget } from './database-target.js';
import { openSqliteFile, type SqliteHandle } from './sqlite-engine.js';
import { StorePostgresDialect } from './store-introspector.js';

export interface OpenedDatabase {
  db: Kysely<Database>;
  dialect: DatabaseDialect;
  /** Where it is, for messages (never a password). */
  description: string;
  close(): Promise<void>;
}

/** Any 64-bit integer key for pg_advisory_lock, the same on every instance ("modelgate" in ASCII, truncated). */
const MIGRATION_LOCK_ID = 0x6d6f64656c67;

const INT8_OID = 20;

export async function openDatabase(target: DatabaseTarget, options: { migrate?: boolean } = {}): Promise<OpenedDatabase> {
  const opened = target.kind === 'postgres' ? await openPostgres(target) : await openSqlite(target);
  if (options.migrate !== false) {
    try {
      await opened.migrate();
    } catch (err) {
      await opened.close().catch(() => undefined);
      throw err;
    }
  }
  return { db: opened.db, dialect: opened.dialect, description: opened.description, close: opened.close };
}

interface Opening extends OpenedDatabase {
  migrate(): Promise<void>;
}

async function openSqlite(target: Extract<DatabaseTarget, { kind: 'sqlite' | 'memory' }>): Promise<Opening> {
  const file = target.kind === 'memory' ? ':memory:' : target.file;
  let sqlite: SqliteHandle;
  try {
    sqlite = await openSqliteFile(file);
  } catch (err) {
    throw new Error(`cannot open the SQLite database ${file}: ${(err as Error).message}`);
  }
  // WAL: the server and the CLI (or a backup) read and write the same file at once; a writer waits for another instead of failing.
  sqlite.exec('PRAGMA journal_mode = WAL');
  sqlite.exec('PRAGMA busy_timeout = 5000');
  // WAL with synchronous=NORMAL: a commit no longer waits for an fsync (the WAL is synced at checkpoints);
  // safe against corruption, and only a power loss can take the last commits back (SQLite's advice for WAL).
  sqlite.exec('PRAGMA synchronous = NORMAL');
  sqlite.exec('PRAGMA foreign_keys = ON');
  const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite.database }) });
  return {
    db,
    dialect: 'sqlite',
    description: describeTarget(target),
    migrate: async () => {
      // Kysely takes no lock on SQLite: an immediate transaction (the file's write lock) keeps a
      // second process that starts at the same moment waiting (busy_timeout) until this one is done.
      sqlite.exec('BEGIN IMMEDIATE');
      try {
        await migrateToLatest(db);
        sqlite.exec('COMMIT');
      } catch (err) {
        if (sqlite.inTransaction()) sqlite.exec('ROLLBACK');
        throw err;
      }
    },
    close: () => db.destroy(),
  };
}

/**
 * A query on PostgreSQL without an answer for this long is taken for a connection that went silent
 * (a failover or a network path that drops everything without closing it): its connection is
 * destroyed, the query fails, and the pool opens a new one. Without it such a connection holds its
 * query, and whatever waits on it (the key cache's reloads, the ledger's writes), for good.
 */
const QUERY_STALL_MS = 30_000;

type PgPool = InstanceType<typeof import('pg').default.Pool>;
type PgPoolClient = import('pg').PoolClient;

/** `pool` for Kysely, every query bounded by `stallMs()` (0: none): see QUERY_STALL_MS. */
function stallGuarded(pool: PgPool, stallMs: () => number): PostgresPool {
  const destroy = (client: PgPoolClient) => (client as unknown as { connection?: { stream?: { destroy(): void } } }).connection?.stream?.destroy();
  return {
    async connect(): Promise<PostgresPoolClient> {
      const client = await pool.connect();
      const query = ((sqlOrCursor: unknown, parameters?: ReadonlyArray<unknown>) => {
        if (typeof sqlOrCursor !== 'string') return client.query(sqlOrCursor as never);
        const ran = client.query(sqlOrCursor, parameters as unknown[]);
        const ms = stallMs();
        if (!ms) return ran;
        let timer: ReturnType<typeof setTimeout> | undefined;
        const stalled = new Promise<never>((_resolve, reject) => {
          timer = setTimeout(() => {
            destroy(client);
            reject(new Error(`the database did not answer within ${ms} ms`));
          }, ms);
        });
        return Promise.race([ran, stalled]).finally(() => clearTimeout(timer));
      }) as unknown as PostgresPoolClient['query'];
      return { query, release: (gone?: boolean) => client.release(gone) };
    },
    end: () => pool.end(),
  };
}

async function openPostgres(target: Extract<DatabaseTarget, { kind: 'postgres' }>): Promise<Opening> {
  const pg = await import('pg');
  const Pool = pg.default.Pool;
  const baseTypes = pg.default.types;
  const schema = target.schema;
  const pool = new Pool({
    connectionString: target.url,
    max: 10,
    connectionTimeoutMillis: 5000,
    // A server or path that went away without a word (failover, NAT) is found by TCP keep-alive.
    keepAlive: true,
    keepAliveInitialDelayMillis: 10_000,
    // bigint columns (times in ms, counters) as numbers, like SQLite's integers: all stay below 2^53.
    types: { getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === INT8_OID ? (v: string) => Number(v) : baseTypes.getTypeParser(oid, format))) as typeof baseTypes.getTypeParser },
    ...(schema ? { options: `-c search_path=${schema}` } : {}),
  });
  // An idle client that loses its server emits 'error'; the next query reconnects.
  pool.on('error', () => undefined);
  // So does a client in use, or one whose query was given up (a ledger write past its timeout):
  // without a listener that 'error' would end the process. The query in flight (if any) fails on
  // its own; the pool drops the client when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => undefined);
  });
  const description = describeTarget(target);
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new Error(`cannot reach ${description}: ${(err as Error).message}`);
  }
  let migrating = false;
  const db = new Kysely<Database>({ dialect: new StorePostgresDialect({ pool: stallGuarded(pool, () => (migrating ? 0 : QUERY_STALL_MS)) }) });
  return {
    db,
    dialect: 'postgres',
    description,
    migrate: async () => {
      // One instance migrates at a time: the others wait here, then find nothing left to do.
      const client = await pool.connect();
      try {
        await client.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_ID]);
        try {
          if (schema) await client.query(`create schema if not exists "${schema}"`);
          // Kysely looks for its bookkeeping tables in every schema unless told which one: with
          // another schema holding them (a second store in the same database), it would skip
          // creating them here and fail. Always name the schema the store's tables go to.
          const current = schema ?? ((await client.query<{ s: string }>('select current_schema() as s')).rows[0]?.s || 'public');
          // A migration may copy a large table: no stall bound while it runs.
          migrating = true;
          try {
            await migrateToLatest(db, { schema: current });
          } finally {
            migrating = false;
          }
        } finally {
          await client.query('select pg_advisory_unlock($1)', [MIGRATION_LOCK_ID]);
        }
      } finally {
        client.release();
      }
    },
    close: () => db.destroy(),
  };
}
