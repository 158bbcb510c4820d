/**
 * The console's pages at scale: 100,000 keys, 1,000,000 usage-ledger rows (with their daily and
 * hourly rollups), 20,000 video tasks and 100,000 audit entries bulk-inserted (one transaction) into
 * a real SQLite file migrated like the server's. Every admin API call a page makes answers within
 * its pagination (page sizes, cursors that continue without overlap), and every statement it runs is
 * planned on an index: SQLite's EXPLAIN QUERY PLAN shows no full scan of a table and no sort of a
 * whole table for a paged list. No timed assertion: the query plans are what keeps pages fast.
 */
import { keySearchText } from '../../src/control/keys/key-search.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import type { Database } from '../../src/control/db/database.js';
import { timeOrderedId } from '../../src/control/ids.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { openDatabase } from '../../node/db/open-database.js';
import { openSqliteFile, type SqliteHandle } from '../../node/db/sqlite-engine.js';

const KEYS = 100_000;
const ROWS = 1_000_000;
const TASKS = 20_000;
const AUDIT = 100_000;
const ACTIVE_KEYS = 2_000;
const READER = 'mg-console-scale-reader-00001';
const DAY = 86_400_000;
const NOW = Date.now();
const MODELS = [['gpt-4o', 'openai'], ['claude-sonnet', 'anthropic'], ['gemini-flash', 'gemini']] as const;
const BIG_TABLES = ['api_keys', 'ledger_rows', 'usage_daily', 'usage_hourly', 'tasks', 'audit_log', 'api_key_secrets'];

let dir: string;
let file: string;
// The runtime's SQLite engine (node/db/sqlite-engine.ts: better-sqlite3 before Node 24, node:sqlite after).
let raw: SqliteHandle;
let db: Kysely<Database>;
let control: ControlPlane;
let gateway: Gateway;
const keyIds: string[] = [];
let statements: Array<{ sql: string; parameters: readonly unknown[] }> = [];

async function seed(): Promise<void> {
  const h = await openSqliteFile(file);
  const s = h.database;
  h.exec('PRAGMA journal_mode = WAL');
  h.exec('PRAGMA synchronous = OFF');
  const insertKey = s.prepare(`insert into api_keys (id, name, owner, models, limits, metadata, provider_keys, expires_at, status, prefix, last4, created_at, updated_at, revoked_at, last_used_at, revision, search_text)
    values (?, ?, ?, '["*"]', null, ?, null, null, ?, 'mg-Ab3d', ?, ?, ?, null, null, ?, ?)`);
  // Store version 6: a row's repeated strings are ids of ledger_names lines.
  const insertName = s.prepare('insert into ledger_names (id, name) values (?, ?)');
  const nameIds = new Map<string, number>();
  const nameId = (name: string | null): number | null => {
    if (name === null) return null;
    let id = nameIds.get(name);
    if (id === undefined) {
      id = nameIds.size + 1;
      nameIds.set(name, id);
      insertName.run([id, name]);
    }
    return id;
  };
  const insertRow = s.prepare(`insert into ledger_rows (trace_id, request_id, time, key_ref, method_ref, route_ref, protocol_ref, model_ref, requested_model_ref, resolved_model_ref, provider_ref, deployment_ref, status, error_code_ref, attempts, fallbacks,
    input_tokens, output_tokens, cached_tokens, reasoning_tokens, images, video_seconds, cost_usd, price_ref, latency_ms, ttft_ms, stream, byok, cache_hit)
    values (?, null, ?, ?, ?, ?, ?, ?, ?, null, ?, ?, ?, ?, 1, 0, ?, ?, null, null, null, null, ?, null, ?, null, 0, 0, 0)`);
  const insertTask = s.prepare(`insert into tasks (id, kind, owner_id, version, due_at, lease_until, expires_at, status, progress, model, provider, prompt_summary, created_at, updated_at, completed_at, cost_usd, idempotency_key, data)
    values (?, 'video', ?, 1, null, null, ?, ?, ?, 'sora-2', 'media', ?, ?, ?, ?, 0.4, null, '{}')`);
  const insertAudit = s.prepare(`insert into audit_log (id, time, actor, action, target_type, target_id, before, after) values (?, ?, ?, ?, 'key', ?, null, '{"name":"x"}')`);
  h.exec('BEGIN');
  {
    for (let i = 0; i < KEYS; i++) {
      const created = NOW - 400 * DAY + i * 60_000;
      const id = timeOrderedId('key_', created);
      keyIds.push(id);
      const metadata = { plan: i % 7 === 0 ? 'pro' : 'free' };
      insertKey.run([id, `team-${i}`, `owner-${i % 500}`, JSON.stringify(metadata), i % 50 === 0 ? 'disabled' : 'active', String(i).padStart(4, '0').slice(-4), created, created, i + 1, keySearchText(`team-${i}`, `owner-${i % 500}`, metadata)]);
    }
    for (let i = 0; i < ROWS; i++) {
      const [model, provider] = MODELS[i % 3] as (typeof MODELS)[number];
      const status = i % 100 === 7 ? 429 : i % 200 === 3 ? 500 : 200;
      const error = status === 200 ? null : status === 429 ? 'rate_limited' : 'bad_gateway';
      insertRow.run([`t${i.toString(16).padStart(8, '0')}`, NOW - Math.floor((i / ROWS) * 29 * DAY), nameId(keyIds[i % ACTIVE_KEYS] as string), nameId('POST'), nameId('/v1/chat/completions'), nameId('openai-chat'), nameId(model), nameId(model), nameId(provider), nameId(model), status, nameId(error), 100 + (i % 50), 20 + (i % 30), 0.0001 * (1 + (i % 5)), 50 + (i % 400)]);
    }
    for (let i = 0; i < TASKS; i++) {
      const created = NOW - i * 60_000;
      const status = ['succeeded', 'failed', 'cancelled', 'in_progress'][i % 4] as string;
      insertTask.run([timeOrderedId('vtask_', created), keyIds[i % ACTIVE_KEYS], NOW + DAY, status, status === 'in_progress' ? 40 : 100, `prompt ${i}`, created, created, status === 'in_progress' ? null : created + 1000]);
    }
    for (let i = 0; i < AUDIT; i++) {
      const t = NOW - 400 * DAY + i * 60_000;
      insertAudit.run([timeOrderedId('aud_', t), t, i % 3 ? 'ops' : 'cli:alice', i % 4 ? 'key.update' : 'key.create', keyIds[i % KEYS]]);
    }
    // The rollups the ledger's writer keeps beside the rows.
    h.exec(`insert into usage_daily (day, key_id, model, provider, status, requests, errors, input_tokens, output_tokens, cached_tokens, reasoning_tokens, images, video_seconds, cost_nano, latency_ms_sum)
      select date(time / 1000, 'unixepoch'), key_id, model, provider, status, count(*), sum(status >= 400), sum(input_tokens), sum(output_tokens), 0, 0, 0, 0, sum(round(cost_usd * 1000000000)), sum(latency_ms)
      from ledger_requests group by 1, 2, 3, 4, 5`);
    h.exec(`insert into usage_hourly (hour, key_id, model, provider, status, requests, errors, input_tokens, output_tokens, cost_nano, latency_ms_sum)
      select time - time % 3600000, key_id, model, provider, status, count(*), sum(status >= 400), sum(input_tokens), sum(output_tokens), sum(round(cost_usd * 1000000000)), sum(latency_ms)
      from ledger_requests where time >= ${NOW - 8 * DAY} group by 1, 2, 3, 4, 5`);
  }
  h.exec('COMMIT');
  h.exec('analyze');
  s.close();
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mg-console-scale-'));
  file = join(dir, 'store.db');
  await (await openDatabase({ kind: 'sqlite', file })).close();
  await seed();
  raw = await openSqliteFile(file);
  db = new Kysely<Database>({
    dialect: new SqliteDialect({ database: (await openSqliteFile(file)).database }),
    log: (e) => {
      if (e.level === 'query') statements.push({ sql: e.query.sql, parameters: e.query.parameters });
    },
  });
  control = await createControlPlane({ db, dialect: 'sqlite', background: false });
  gateway = createGateway(
    { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], admin: { keys: [{ id: 'reader', key: READER, access: 'read' }] } },
    { control },
  );
}, 600_000);

afterAll(async () => {
  await gateway?.close();
  await control?.close();
  await db?.destroy();
  raw?.database.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function plan(sql: string, parameters: readonly unknown[]): string[] {
  return (raw.database.prepare(`explain query plan ${sql}`).all(parameters) as Array<{ detail: string }>).map((p) => p.detail);
}

/**
 * A rollup summary whose date range covers the whole table is best read by a scan, and SQLite's
 * planner (with ANALYZE statistics) does that; the same statement over a range that holds nothing
 * must then be planned on the index, which shows one serves its shape once the table holds more.
 */
function rollupScanWithIndex(sql: string, parameters: readonly unknown[]): boolean {
  if (!/from "usage_(daily|hourly)" where "(day|hour)" >= \?/.test(sql)) return false;
  const narrow = parameters.map((p, i) => (i === 0 ? (typeof p === 'number' ? Number.MAX_SAFE_INTEGER : '9999-12-31') : p));
  return plan(sql, narrow).some((d) => /^SEARCH usage_(daily|hourly) USING/.test(d));
}

/** Plan lines that read a whole big table, or sort a whole one for a paged list. */
function badPlans(): string[] {
  const bad: string[] = [];
  for (const st of statements) {
    if (!/^\s*select/i.test(st.sql)) continue;
    for (const detail of plan(st.sql, st.parameters)) {
      const table = /^SCAN (\w+)$/.exec(detail)?.[1];
      if (table && BIG_TABLES.includes(table) && !rollupScanWithIndex(st.sql, st.parameters)) bad.push(`${detail} <- ${st.sql}`);
      if (/^USE TEMP B-TREE FOR ORDER BY$/.test(detail) && !/group by/i.test(st.sql)) bad.push(`${detail} <- ${st.sql}`);
    }
  }
  return bad;
}

interface Page {
  object?: string;
  data: Array<Record<string, unknown>>;
  hasMore: boolean;
  nextCursor: string | null;
}

async function get<T = Page>(path: string): Promise<T> {
  statements = [];
  const res = await gateway.handle(new Request(`http://localhost/admin/v1${path}`, { headers: { authorization: `Bearer ${READER}` } }));
  const body = (await res.json()) as T;
  expect({ path, status: res.status }).toEqual({ path, status: 200 });
  expect({ path, plans: badPlans() }).toEqual({ path, plans: [] });
  return body;
}

/** A full first page, and a second that continues after it without overlap. */
async function twoPages(path: string, limit: number, order: (row: Record<string, unknown>) => string | number): Promise<Page> {
  const join = path.includes('?') ? '&' : '?';
  const first = await get(`${path}${join}limit=${limit}`);
  expect({ path, size: first.data.length, hasMore: first.hasMore }).toEqual({ path, size: limit, hasMore: true });
  expect(first.nextCursor).toEqual(expect.any(String));
  const second = await get(`${path}${join}limit=${limit}&after=${encodeURIComponent(first.nextCursor as string)}`);
  expect(second.data.length).toBeGreaterThan(0);
  const seen = new Set(first.data.map((r) => JSON.stringify(r)));
  expect(second.data.some((r) => seen.has(JSON.stringify(r)))).toBe(false);
  const last = order(first.data.at(-1) as Record<string, unknown>);
  const next = order(second.data[0] as Record<string, unknown>);
  expect(next <= last || typeof next === 'string').toBe(true);
  return first;
}

describe(`console pages over ${KEYS} keys and ${ROWS} ledger rows (SQLite file)`, () => {
  it('overview: charts for 24 h / 7 d / 30 d, top models and keys, instances', async () => {
    for (const [window, points] of [['24h', 24], ['7d', 168], ['30d', 30]] as const) {
      const s = await get<{ points: Array<{ requests: number }> }>(`/overview/series?window=${window}`);
      expect(s.points).toHaveLength(points);
      expect(s.points.reduce((a, p) => a + p.requests, 0)).toBeGreaterThan(0);
    }
    const month = await get<{ points: Array<{ requests: number }> }>('/overview/series?window=30d');
    expect(month.points.reduce((a, p) => a + p.requests, 0)).toBe(ROWS);
    const models = await get<{ data: Array<{ id: string; requests: number }> }>('/overview/top?by=model&window=30d');
    expect(models.data.map((m) => m.id).sort()).toEqual(['claude-sonnet', 'gemini-flash', 'gpt-4o']);
    const keys = await get<{ data: Array<{ id: string; requests: number }> }>('/overview/top?by=key&window=7d&limit=10');
    expect(keys.data).toHaveLength(10);
    await get('/instances');
  });

  it('keys: pages, status, owner and search filters over 100k keys; one key and its usage', async () => {
    const first = await twoPages('/keys', 25, (k) => k.id as string);
    expect(first.data[0]?.id).toBe(keyIds.at(-1));
    const disabled = await twoPages('/keys?status=disabled', 25, (k) => k.id as string);
    expect(disabled.data.every((k) => k.status === 'disabled')).toBe(true);
    const owned = await twoPages('/keys?owner=owner-7', 25, (k) => k.id as string);
    expect(owned.data.every((k) => k.owner === 'owner-7')).toBe(true);
    const found = await get('/keys?search=team-99999&limit=25');
    expect(found.data.map((k) => k.name)).toEqual(['team-99999']);
    const key = keyIds[42] as string;
    await get(`/keys/${key}`);
    const series = await get<{ points: Array<{ requests: number }> }>(`/overview/series?window=30d&keyId=${key}`);
    expect(series.points.reduce((a, p) => a + p.requests, 0)).toBe(ROWS / ACTIVE_KEYS);
    const perModel = await get(`/usage?keyId=${key}&groupBy=model&limit=50`);
    expect(perModel.data.reduce((a, b) => a + (b.requests as number), 0)).toBe(ROWS / ACTIVE_KEYS);
  });

  it('usage: grouped by day, key, model and provider, filtered, paged', async () => {
    const days = await get('/usage?groupBy=day&limit=100');
    expect(days.data.length).toBeGreaterThanOrEqual(30);
    expect(days.data.reduce((a, b) => a + (b.requests as number), 0)).toBe(ROWS);
    await twoPages('/usage?groupBy=key', 100, (b) => b.bucket as string);
    const byModel = await get(`/usage?groupBy=provider&from=${new Date(NOW - 7 * DAY).toISOString().slice(0, 10)}&limit=100`);
    expect(byModel.data.map((b) => b.bucket).sort()).toEqual(['anthropic', 'gemini', 'openai']);
    const oneModel = await get('/usage?groupBy=day&model=gpt-4o&status=error&limit=100');
    expect(oneModel.data.every((b) => (b.errors as number) === (b.requests as number))).toBe(true);
  });

  it('requests: the ledger newest first, filtered by key, model, provider, status and dates, paged', async () => {
    const time = (r: Record<string, unknown>) => Date.parse(r.time as string);
    const first = await twoPages('/requests', 50, time);
    expect(first.data[0]?.traceId).toBe('t00000000');
    for (const q of [`keyId=${keyIds[5]}`, 'model=claude-sonnet', 'provider=gemini', 'status=error', 'status=429', 'status=success', 'status=200', `from=${new Date(NOW - 3 * DAY).toISOString()}&to=${new Date(NOW - 2 * DAY).toISOString()}`]) {
      await twoPages(`/requests?${q}`, 50, time);
    }
  });

  it('task center and audit: filtered pages', async () => {
    const created = (t: Record<string, unknown>) => Date.parse(t.createdAt as string);
    await twoPages('/tasks', 20, created);
    const done = await twoPages('/tasks?status=succeeded', 20, created);
    expect(done.data.every((t) => t.status === 'succeeded')).toBe(true);
    await twoPages(`/tasks?keyId=${keyIds[3]}`, 5, created);
    const at = (e: Record<string, unknown>) => Date.parse(e.time as string);
    await twoPages('/audit', 50, at);
    const updates = await twoPages('/audit?action=key.update', 50, at);
    expect(updates.data.every((e) => e.action === 'key.update')).toBe(true);
    await twoPages('/audit?actor=cli:alice', 50, at);
    const one = await get(`/audit?targetId=${keyIds[7]}`);
    expect(one.data.map((e) => e.targetId)).toEqual([keyIds[7]]);
    await get('/providers');
    await get('/models');
  });
});
