/**
 * Store version 5 keys the ledger's rows by (time, trace_id) (random trace ids as the key made
 * every insert land at a random place of a growing B-tree); version 6 stores the rows' repeated
 * strings once each in ledger_names. A store written at version 4 is migrated with every row
 * kept, on a real SQLite file and on the PostgreSQL at DATABASE_URL; the key still refuses a row
 * stored twice, filters by name still find their rows, and the migrations go down and up again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/control/db/database.js';
import { migrationProvider } from '../../src/control/db/migrations/index.js';
import { migrateToLatest } from '../../src/control/db/migrate.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { openDatabase, type OpenedDatabase } from '../../node/db/open-database.js';
import { dropSchema, testDatabaseKinds } from '../helpers/control-db.js';

const T0 = Date.UTC(2026, 10, 1, 8, 0, 0);

function v4Row(i: number): Record<string, unknown> {
  return {
    trace_id: `trace-${i}`, request_id: i % 2 ? `req-${i}` : null, time: T0 + i * 10, key_id: i % 3 ? 'key_a' : 'key_b', method: 'POST', route: '/v1/chat/completions',
    protocol: 'openai-chat', model: 'gpt-4o', requested_model: 'gpt-4o', resolved_model: 'gpt-4o-2024-08-06', provider: 'openai', deployment: 'gpt-4o',
    status: i % 5 ? 200 : 429, error_code: i % 5 ? null : 'rate_limited', attempts: 1, fallbacks: 0, input_tokens: i, output_tokens: 2 * i, cached_tokens: null,
    reasoning_tokens: null, images: null, video_seconds: null, cost_usd: i / 1000, price: '{"inputPerMTok":2.5,"outputPerMTok":10}', latency_ms: 40 + i, ttft_ms: null,
    stream: i % 2, byok: 0, cache_hit: 0,
  };
}

interface Opened {
  opened: OpenedDatabase;
  /** The PostgreSQL schema the store is in. */
  schema?: string;
  migrator: Migrator;
  cleanup: () => Promise<void>;
}

async function openUnmigrated(kind: 'sqlite' | 'postgres'): Promise<Opened> {
  if (kind === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'mg-ledger-v5-'));
    const opened = await openDatabase({ kind: 'sqlite', file: join(dir, 'store.db') }, { migrate: false });
    return { opened, migrator: new Migrator({ db: opened.db, provider: migrationProvider }), cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const url = process.env.DATABASE_URL as string;
  const schema = `t_ledger_v5_${process.pid}_${Date.now().toString(36)}`;
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  await c.query(`create schema "${schema}"`);
  await c.end();
  const opened = await openDatabase({ kind: 'postgres', url, schema }, { migrate: false });
  return { opened, schema, migrator: new Migrator({ db: opened.db, provider: migrationProvider, migrationTableSchema: schema }), cleanup: () => dropSchema(url, schema) };
}

async function traceKeyed(db: Kysely<Database>): Promise<LedgerRow[]> {
  return (await new SqlLedgerStore(db).rows({}, { limit: 1000 })).rows;
}

/** Rows as version 4 and 5 hold them (text columns), newest first: `ledger_rows` there, the `ledger_requests` view from version 6. */
async function textRows(db: Kysely<Database>, table: 'ledger_rows' | 'ledger_requests'): Promise<unknown[]> {
  const found = await sql<Record<string, unknown>>`select * from ${sql.table(table)} order by time desc, trace_id desc`.execute(db);
  return found.rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, typeof v === 'string' && /^\d+$/.test(v) && k !== 'trace_id' ? Number(v) : v])));
}

async function indexExists(db: Kysely<Database>, kind: 'sqlite' | 'postgres', name: string): Promise<boolean> {
  const r = kind === 'sqlite'
    ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'index' and tbl_name = 'ledger_rows' and name = ${name}`.execute(db)
    : await sql<{ n: number }>`select count(*)::int as n from pg_indexes where tablename = 'ledger_rows' and indexname = ${name} and schemaname = current_schema()`.execute(db);
  return Number(r.rows[0]?.n) === 1;
}

describe.each(testDatabaseKinds())('ledger rows keyed by (time, trace_id), their strings named once, on %s', (kind) => {
  let t: Opened | undefined;
  afterEach(async () => {
    await t?.opened.close();
    await t?.cleanup();
    t = undefined;
  });

  it('migrates a version-4 store with every row kept; a row stored twice is still refused; down and up again', async () => {
    t = await openUnmigrated(kind);
    const db = t.opened.db;
    expect((await t.migrator.migrateTo('0004_ordered_indexes')).error).toBeUndefined();
    const old = Array.from({ length: 300 }, (_, i) => v4Row(i));
    for (let i = 0; i < old.length; i += 50) await db.insertInto('ledger_rows' as never).values(old.slice(i, i + 50) as never).execute();
    const before = await textRows(db, 'ledger_rows');
    expect(before).toHaveLength(300);

    // Up to the ledger's last migration (later ones are about other tables).
    const up = await t.migrator.migrateTo('0006_ledger_names');
    expect(up.error).toBeUndefined();
    expect(up.results?.map((r) => [r.migrationName, r.status])).toEqual([['0005_ledger_time_key', 'Success'], ['0006_ledger_names', 'Success']]);
    expect(await textRows(db, 'ledger_requests')).toEqual(before);
    const after = await traceKeyed(db);
    expect(after).toHaveLength(300);
    const r7 = after.find((r) => r.traceId === 'trace-7');
    expect(r7).toMatchObject({ keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat', model: 'gpt-4o', resolvedModel: 'gpt-4o-2024-08-06', provider: 'openai', status: 200, errorCode: null, price: { inputPerMTok: 2.5, outputPerMTok: 10 }, stream: true });
    // Each string once: 2 keys, method, route, protocol, 2 models, provider, error code, price.
    expect(Number((await db.selectFrom('ledger_names').select((eb) => eb.fn.countAll().as('n')).executeTakeFirst())?.n)).toBe(10);

    // The key is (time, trace_id): the same pair is not stored twice, the same trace id at another time is another row.
    const store = new SqlLedgerStore(db);
    await store.write([r7 as LedgerRow]);
    expect(await traceKeyed(db)).toHaveLength(300);
    await store.write([{ ...(r7 as LedgerRow), time: T0 + 999_999, model: 'gpt-4o-mini' }]);
    expect((await store.rows({ keyId: 'key_a' }, { limit: 1000 })).rows).toHaveLength(201);
    expect((await store.rows({ model: 'gpt-4o-mini' }, { limit: 1000 })).rows.map((r) => [r.traceId, r.time])).toEqual([['trace-7', T0 + 999_999]]);
    expect((await store.rows({ model: 'no-such-model' }, { limit: 1000 })).rows).toEqual([]);
    expect((await store.rows({ provider: 'openai', status: 429 }, { limit: 1000 })).rows).toHaveLength(60);
    // Retention deletes by the key.
    expect(await store.deleteRows([{ time: T0 + 70, traceId: 'trace-7' }, { time: T0 + 80, traceId: 'trace-8' }])).toBe(2);
    expect((await traceKeyed(db)).map((r) => [r.traceId, r.time]).filter(([id]) => id === 'trace-7')).toEqual([['trace-7', T0 + 999_999]]);

    // Down to version 5 (text columns again, every row), then 4, and up again.
    expect((await t.migrator.migrateDown()).error).toBeUndefined();
    const v5 = await textRows(db, 'ledger_rows');
    expect(v5).toHaveLength(299);
    expect(v5[0]).toMatchObject({ trace_id: 'trace-7', key_id: 'key_a', model: 'gpt-4o-mini', price: '{"inputPerMTok":2.5,"outputPerMTok":10}' });
    expect((await t.migrator.migrateDown()).error).toBeUndefined();
    expect(await indexExists(db, kind, 'ledger_rows_time_trace')).toBe(true);
    expect((await t.migrator.migrateToLatest()).error).toBeUndefined();
    expect(await indexExists(db, kind, 'ledger_rows_model_time')).toBe(true);
    const again = await new SqlLedgerStore(db).rows({}, { limit: 1000 });
    expect(again.rows).toHaveLength(299);
    expect(again.rows[0]).toMatchObject({ traceId: 'trace-7', keyId: 'key_a', model: 'gpt-4o-mini' });
  });

  it('a store migrated by a newer release: starting says so, naming the unknown migration', async () => {
    t = await openUnmigrated(kind);
    const db = t.opened.db;
    expect((await t.migrator.migrateToLatest()).error).toBeUndefined();
    await sql`insert into ${sql.table('kysely_migration')} (name, timestamp) values ('9999_from_the_future', '2030-01-01T00:00:00.000Z')`.execute(db);
    await expect(migrateToLatest(db, t.schema !== undefined ? { schema: t.schema } : {})).rejects.toThrow(
      /migrated by a newer modelgate release \(it has migration "9999_from_the_future"/,
    );
  });
});
