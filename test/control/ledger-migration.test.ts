/**
 * Store version 5 keys the ledger's rows by (time, trace_id) (random trace ids as the key made
 * every insert land at a random place of a growing B-tree). A store written at version 4 is
 * migrated with every row kept, on a real SQLite file and on the PostgreSQL at DATABASE_URL; the
 * new key still refuses a row stored twice, and the migration goes down and up again.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator, sql, type Kysely } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import type { Database } from '../../src/control/db/database.js';
import { migrationProvider } from '../../src/control/db/migrations/index.js';
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
  return { opened, migrator: new Migrator({ db: opened.db, provider: migrationProvider, migrationTableSchema: schema }), cleanup: () => dropSchema(url, schema) };
}

async function traceKeyed(db: Kysely<Database>): Promise<LedgerRow[]> {
  return (await new SqlLedgerStore(db).rows({}, { limit: 1000 })).rows;
}

describe.each(testDatabaseKinds())('ledger rows keyed by (time, trace_id) on %s', (kind) => {
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
    for (let i = 0; i < old.length; i += 50) await db.insertInto('ledger_rows').values(old.slice(i, i + 50) as never).execute();
    const before = await traceKeyed(db);
    expect(before).toHaveLength(300);

    const up = await t.migrator.migrateToLatest();
    expect(up.error).toBeUndefined();
    expect(up.results?.map((r) => [r.migrationName, r.status])).toEqual([['0005_ledger_time_key', 'Success']]);
    const after = await traceKeyed(db);
    expect(after).toEqual(before);

    // The key is (time, trace_id): the same pair is refused, the same trace id at another time is another row.
    await expect(db.insertInto('ledger_rows').values(v4Row(7) as never).execute()).rejects.toThrow(/unique|duplicate/i);
    await db.insertInto('ledger_rows').values({ ...v4Row(7), time: T0 + 999_999 } as never).execute();
    const store = new SqlLedgerStore(db);
    expect((await store.rows({ keyId: 'key_b' }, { limit: 1000 })).rows).toHaveLength(100);
    // Retention deletes by the key.
    expect(await store.deleteRows([{ time: T0 + 70, traceId: 'trace-7' }, { time: T0 + 80, traceId: 'trace-8' }])).toBe(2);
    expect((await traceKeyed(db)).map((r) => [r.traceId, r.time]).filter(([id]) => id === 'trace-7')).toEqual([['trace-7', T0 + 999_999]]);

    const down = await t.migrator.migrateDown();
    expect(down.error).toBeUndefined();
    const indexCount = kind === 'sqlite'
      ? await sql<{ n: number }>`select count(*) as n from sqlite_master where type = 'index' and tbl_name = 'ledger_rows' and name = 'ledger_rows_time_trace'`.execute(db)
      : await sql<{ n: number }>`select count(*)::int as n from pg_indexes where tablename = 'ledger_rows' and indexname = 'ledger_rows_time_trace' and schemaname = current_schema()`.execute(db);
    expect(Number(indexCount.rows[0]?.n)).toBe(1);
    expect(await traceKeyed(db)).toHaveLength(299);
    expect((await t.migrator.migrateToLatest()).error).toBeUndefined();
    expect(await traceKeyed(db)).toHaveLength(299);
  });
});
