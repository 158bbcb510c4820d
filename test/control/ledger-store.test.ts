/**
 * The ledger in a real SQLite file and in the real PostgreSQL at DATABASE_URL: batches with their
 * daily rollups in one transaction (a retried batch is not counted twice), rows newest first with
 * a cursor and filters, summaries per day/key/model/provider from the rollups, and the retention
 * purge (CSV export first, batched deletes, rollups kept longer).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import { purgeLedger } from '../../src/control/ledger/ledger-retention.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const DAY = 86_400_000;
const T0 = Date.UTC(2025, 5, 10, 12, 0, 0);

function row(i: number, over: Partial<LedgerRow> = {}): LedgerRow {
  return {
    traceId: `trace-${String(i).padStart(4, '0')}`, requestId: null, time: T0 + i * 1000, keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
    model: 'gpt-4o', requestedModel: 'gpt-4o', resolvedModel: 'gpt-4o-2024-08-06', provider: 'openai', deployment: 'gpt-4o', status: 200, errorCode: null, attempts: 1, fallbacks: 0,
    inputTokens: 10, outputTokens: 5, cachedTokens: 2, reasoningTokens: 1, images: null, videoSeconds: null, costUsd: 0.000125, price: { inputPerMTok: 2.5, outputPerMTok: 10 },
    latencyMs: 40, ttftMs: 12, stream: true, byok: false, cacheHit: true, ...over,
  };
}

describe.each(testDatabaseKinds())('ledger store on %s', (kind) => {
  let t: TestDatabase;
  let store: SqlLedgerStore;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'ledger_store');
    store = new SqlLedgerStore(t.db);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('writes rows and rollups; a retried batch is not counted twice; rows read back exactly', async () => {
    const batch = [
      row(1),
      row(2, { keyId: 'key_b', model: 'fast', provider: 'local', costUsd: 0.5, inputTokens: 100, outputTokens: 50, cachedTokens: 0, cacheHit: false }),
      row(3, { status: 429, errorCode: 'rate_limited', inputTokens: null, outputTokens: null, cachedTokens: null, reasoningTokens: null, costUsd: null, price: null, ttftMs: null, stream: false, cacheHit: false }),
      row(4, { time: T0 + DAY, costUsd: 0.25 }),
    ];
    await store.write(batch);
    await store.write(batch.slice(0, 2)); // a retry after a commit that was not heard
    const page = await store.rows({}, { limit: 10 });
    expect(page.hasMore).toBe(false);
    expect(page.rows.map((r) => r.traceId)).toEqual(['trace-0004', 'trace-0003', 'trace-0002', 'trace-0001']);
    expect(page.rows[3]).toEqual(batch[0]);
    expect(page.rows[1]).toEqual(batch[2]);
    const byDay = await store.usage({ groupBy: 'day' });
    expect(byDay).toEqual([
      { bucket: '2025-06-10', requests: 3, errors: 1, inputTokens: 110, outputTokens: 55, cachedTokens: 2, reasoningTokens: 2, images: 0, videoSeconds: 0, costUsd: 0.500125 },
      { bucket: '2025-06-11', requests: 1, errors: 0, inputTokens: 10, outputTokens: 5, cachedTokens: 2, reasoningTokens: 1, images: 0, videoSeconds: 0, costUsd: 0.25 },
    ]);
    const byKey = await store.usage({ groupBy: 'key' });
    expect(byKey.map((b) => [b.bucket, b.requests, b.costUsd])).toEqual([
      ['key_a', 3, 0.250125],
      ['key_b', 1, 0.5],
    ]);
    expect((await store.usage({ groupBy: 'provider' })).map((b) => b.bucket)).toEqual(['local', 'openai']);
    expect((await store.usage({ groupBy: 'model', keyId: 'key_a', from: T0 + DAY })).map((b) => [b.bucket, b.requests])).toEqual([['gpt-4o', 1]]);
    expect((await store.usage({ groupBy: 'key', status: 'error' })).map((b) => [b.bucket, b.requests, b.errors])).toEqual([['key_a', 1, 1]]);
    expect(await store.spendSince('key_a', T0)).toEqual({ costUsd: 0.250125, requests: 3 });
    // What a budget starts a period from: the key's rows since then that the gateway paid (nano-USD).
    expect([await store.budgetSpendNano('key_a', T0), await store.budgetSpendNano('key_a', T0 + DAY), await store.budgetSpendNano('nobody', T0)]).toEqual([250_125_000, 250_000_000, 0]);
    await store.write([row(50, { keyId: 'key_c', costUsd: 0.5, byok: true }), row(51, { keyId: 'key_c', costUsd: 0.125 })]);
    expect(await store.budgetSpendNano('key_c', T0)).toBe(125_000_000);
  });

  it('pages newest first with a cursor; filters by key, model, provider, status, from/to', async () => {
    const many = Array.from({ length: 25 }, (_, i) => row(100 + i, { keyId: i % 2 ? 'key_odd' : 'key_even', status: i % 5 === 0 ? 500 : 200 }));
    await store.write(many);
    const seen: string[] = [];
    let after: { time: number; traceId: string } | undefined;
    for (;;) {
      const page = await store.rows({ keyId: 'key_even' }, { limit: 4, ...(after ? { after } : {}) });
      seen.push(...page.rows.map((r) => r.traceId));
      const last = page.rows.at(-1);
      if (!page.hasMore || !last) break;
      after = { time: last.time, traceId: last.traceId };
    }
    expect(seen).toEqual(many.filter((r) => r.keyId === 'key_even').map((r) => r.traceId).reverse());
    expect((await store.rows({ status: 500 }, { limit: 100 })).rows).toHaveLength(5);
    expect((await store.rows({ status: 'error', keyId: 'key_odd' }, { limit: 100 })).rows.map((r) => r.traceId)).toEqual(['trace-0115', 'trace-0105']);
    expect((await store.rows({ model: 'fast' }, { limit: 100 })).rows.map((r) => r.traceId)).toEqual(['trace-0002']);
    expect((await store.rows({ provider: 'local' }, { limit: 100 })).rows.map((r) => r.traceId)).toEqual(['trace-0002']);
    const window = await store.rows({ from: T0 + 110_000, to: T0 + 113_000 }, { limit: 100 });
    expect(window.rows.map((r) => r.traceId)).toEqual(['trace-0112', 'trace-0111', 'trace-0110']);
  });

  it('retention: rows past 90 days exported to CSV then deleted in batches; rollups kept longer', async () => {
    const now = T0 + 200 * DAY;
    const old = Array.from({ length: 7 }, (_, i) => row(900 + i, { time: now - 100 * DAY + i, keyId: 'key_old', model: 'has,comma "q"' }));
    const ancient = [row(990, { time: now - 800 * DAY, keyId: 'key_ancient' })];
    await store.write([...old, ...ancient]);
    const before = (await store.rows({}, { limit: 1000 })).rows.length;
    const exported: string[] = [];
    const result = await purgeLedger(store, { now, batchSize: 3, exportCsv: async (csv) => void exported.push(csv) });
    // Everything before now - 90 days: the 7 old rows, the ancient one, and the earlier tests' rows (June 2025).
    const remaining = (await store.rows({}, { limit: 1000 })).rows;
    expect(remaining).toHaveLength(0);
    expect(result.rowsDeleted).toBe(before);
    const csv = exported.join('');
    const lines = csv.trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^traceId,requestId,time,keyId,/);
    expect(lines).toHaveLength(before + 1);
    expect(exported.length).toBe(Math.ceil(before / 3));
    expect(csv).toContain('"has,comma ""q"""');
    expect(csv).toContain(`trace-0990,,${new Date(now - 800 * DAY).toISOString()},key_ancient,`);
    // Rollups: the 800-day-old day is gone (past 730 days), the 100-day-old one stays for summaries.
    const byKey = (await store.usage({ groupBy: 'key' })).map((b) => b.bucket);
    expect(byKey).toContain('key_old');
    expect(byKey).not.toContain('key_ancient');
    expect(result.rollupsDeleted).toBe(1);
  });

  it('a failing export deletes nothing', async () => {
    const now = T0 + 400 * DAY;
    await store.write([row(2000, { time: now - 95 * DAY })]);
    await expect(purgeLedger(store, { now, exportCsv: async () => Promise.reject(new Error('disk full')) })).rejects.toThrow('disk full');
    expect((await store.rows({}, { limit: 10 })).rows.map((r) => r.traceId)).toEqual(['trace-2000']);
  });

  it('a retried batch that also holds new rows: only the new ones are stored and counted', async () => {
    const first = [row(3000, { keyId: 'key_retry', costUsd: 1 }), row(3001, { keyId: 'key_retry', costUsd: 2 })];
    await store.write(first);
    await store.write([...first, row(3002, { keyId: 'key_retry', costUsd: 4 })]);
    expect((await store.rows({ keyId: 'key_retry' }, { limit: 10 })).rows.map((r) => r.traceId)).toEqual(['trace-3002', 'trace-3001', 'trace-3000']);
    expect(await store.spendSince('key_retry', T0)).toEqual({ costUsd: 7, requests: 3 });
  });

  it('names: instances storing new strings at once agree on their ids; a small name cache starts over without losing any', async () => {
    // Four stores on one database (four instances): each writes rows naming the same new keys and models, at once.
    const stores = Array.from({ length: 4 }, () => new SqlLedgerStore(t.db));
    const batchOf = (s: number): LedgerRow[] =>
      Array.from({ length: 37 }, (_, i) => row(5000 + s * 100 + i, { keyId: `key_n${i % 9}`, model: `model-n${i % 5}`, requestedModel: `alias-${s}`, errorCode: i % 4 ? null : `code_${i % 3}` }));
    await Promise.all(stores.map((st, s) => st.write(batchOf(s))));
    const fresh = new SqlLedgerStore(t.db);
    for (let k = 0; k < 9; k++) {
      const found = (await fresh.rows({ keyId: `key_n${k}` }, { limit: 1000 })).rows;
      expect(found.length).toBe(4 * batchOf(0).filter((r) => r.keyId === `key_n${k}`).length);
      expect(new Set(found.map((r) => r.keyId))).toEqual(new Set([`key_n${k}`]));
    }
    const byModel = (await fresh.rows({ model: 'model-n3' }, { limit: 1000 })).rows;
    expect(byModel.map((r) => r.model).every((m) => m === 'model-n3')).toBe(true);
    expect(byModel.length).toBe(4 * batchOf(0).filter((r) => r.model === 'model-n3').length);
    expect(new Set(byModel.map((r) => r.requestedModel))).toEqual(new Set(['alias-0', 'alias-1', 'alias-2', 'alias-3']));
    // Each string stored once.
    const names = await t.db.selectFrom('ledger_names').select('name').execute();
    expect(names.length).toBe(new Set(names.map((n) => n.name)).size);

    // A cache of 3 names: a batch of 150 rows (chunks of 100, 32, 16, 2) with 40 distinct keys reads back exactly.
    const small = new SqlLedgerStore(t.db, { maxCachedNames: 3 });
    const many = Array.from({ length: 150 }, (_, i) => row(7000 + i, { keyId: `key_m${i % 40}`, deployment: `dep-${i % 7}` }));
    await small.write(many);
    const back = (await small.rows({ from: many[0]?.time, to: (many[149]?.time as number) + 1 }, { limit: 1000 })).rows;
    expect(back).toEqual([...many].reverse());
  });
});
