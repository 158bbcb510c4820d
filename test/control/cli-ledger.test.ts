/**
 * The usage ledger end to end through the shipped server (`node dist/node/cli.js --db ...`), on a
 * real SQLite file and on the real PostgreSQL at DATABASE_URL: calls made with the official
 * `openai` SDK (sync, stream, a refused model) appear in GET /admin/v1/requests with what they
 * used and cost, GET /admin/v1/usage sums them from the rollups, GET /admin/v1/usage/export writes
 * them as CSV, and SIGTERM writes every queued row before the process exits.
 */
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';

const ADMIN = 'mg-admin-ledger-test-0001';
const KEY_A = 'mg-ledger-key-a-0000001';
const KEY_B = 'mg-ledger-key-b-0000002';
const PRICING = { inputPerMTok: 3, outputPerMTok: 15 };

let mock: MockOpenAI;
let configFile: string;

beforeAll(async () => {
  await ensureCliBuilt();
  mock = await startMockOpenAI();
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-ledger-'));
  configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
      models: [
        { id: 'gpt-4o', provider: 'openai', pricing: PRICING },
        { id: 'gpt-4o-mini', provider: 'openai' },
      ],
      keys: [
        { id: 'team-a', key: KEY_A, models: ['*'] },
        { id: 'team-b', key: KEY_B, models: ['gpt-4o-mini'] },
      ],
      retry: { attempts: 1 },
    }),
  );
}, 360_000);
afterAll(async () => {
  await mock?.close();
});

const until = async <T>(fn: () => Promise<T | undefined>, ms = 10_000): Promise<T> => {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
};

describe.each(testDatabaseKinds())('ledger through the shipped server on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'cli_ledger');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('SDK calls appear in /admin/v1/requests and /usage; the CSV export has them', async () => {
    const server = await spawnCli(['--config', configFile, '--db', t.target, '--quiet'], { MODELGATE_ADMIN_KEY: ADMIN, MODELGATE_LEDGER_FLUSH_MS: '50' });
    try {
      const a = new OpenAI({ apiKey: KEY_A, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const b = new OpenAI({ apiKey: KEY_B, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const sync = await a.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'private words one two' }] }).withResponse();
      const stream = await a.chat.completions.create({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'three four' }] }).withResponse();
      let streamedUsage: OpenAI.CompletionUsage | undefined;
      for await (const chunk of stream.data) if (chunk.usage) streamedUsage = chunk.usage;
      const refused = await b.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(OpenAI.PermissionDeniedError);
      const traceSync = sync.response.headers.get('x-trace-id') as string;
      const traceStream = stream.response.headers.get('x-trace-id') as string;
      const admin = { authorization: `Bearer ${ADMIN}` };

      const list = await until(async () => {
        const res = await fetch(`${server.url}/admin/v1/requests?limit=10`, { headers: admin });
        const body = (await res.json()) as { data: Array<Record<string, unknown>> };
        return body.data.length >= 3 ? body : undefined;
      });
      expect(list).toMatchObject({ object: 'list', hasMore: false, nextCursor: null });
      const byTrace = new Map(list.data.map((r) => [r.traceId, r]));
      const s = byTrace.get(traceSync) as Record<string, unknown>;
      expect(s).toMatchObject({
        keyId: 'team-a', route: '/v1/chat/completions', protocol: 'openai-chat', model: 'gpt-4o', resolvedModel: sync.data.model, provider: 'openai',
        status: 200, errorCode: null, attempts: 1, inputTokens: sync.data.usage?.prompt_tokens, outputTokens: sync.data.usage?.completion_tokens,
        cachedTokens: 0, reasoningTokens: 0, stream: false, byok: false, cacheHit: false, price: PRICING,
      });
      expect(sync.data.model).toBe('gpt-4o-2024-08-06');
      expect(s.costUsd).toBeCloseTo(((sync.data.usage?.prompt_tokens ?? 0) * 3 + (sync.data.usage?.completion_tokens ?? 0) * 15) / 1e6, 12);
      expect(typeof s.time).toBe('string');
      expect(Date.parse(s.time as string)).toBeGreaterThan(Date.now() - 60_000);
      const st = byTrace.get(traceStream) as Record<string, unknown>;
      expect(st).toMatchObject({ stream: true, status: 200, outputTokens: streamedUsage?.completion_tokens });
      expect(st.ttftMs).toEqual(expect.any(Number));
      const denied = list.data.find((r) => r.keyId === 'team-b');
      expect(denied).toMatchObject({ status: 403, errorCode: 'permission_denied', model: 'gpt-4o' });
      expect(JSON.stringify(list)).not.toContain('private words');

      // Filters and paging.
      const errors = (await (await fetch(`${server.url}/admin/v1/requests?status=error`, { headers: admin })).json()) as { data: unknown[] };
      expect(errors.data).toHaveLength(1);
      const page1 = (await (await fetch(`${server.url}/admin/v1/requests?keyId=team-a&limit=1`, { headers: admin })).json()) as { data: Array<{ traceId: string }>; hasMore: boolean; nextCursor: string };
      expect(page1).toMatchObject({ hasMore: true });
      expect(page1.data[0]?.traceId).toBe(traceStream);
      const page2 = (await (await fetch(`${server.url}/admin/v1/requests?keyId=team-a&limit=1&after=${encodeURIComponent(page1.nextCursor)}`, { headers: admin })).json()) as { data: Array<{ traceId: string }>; hasMore: boolean };
      expect(page2).toMatchObject({ hasMore: false });
      expect(page2.data[0]?.traceId).toBe(traceSync);
      const unknown = await fetch(`${server.url}/admin/v1/requests?color=red`, { headers: admin });
      expect(unknown.status).toBe(400);
      expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('color');
      const badStatus = await fetch(`${server.url}/admin/v1/requests?status=teapot`, { headers: admin });
      expect(badStatus.status).toBe(400);
      // A platform key cannot read the ledger.
      expect((await fetch(`${server.url}/admin/v1/requests`, { headers: { authorization: `Bearer ${KEY_A}` } })).status).toBe(403);

      // Summaries from the rollups.
      const usage = (await (await fetch(`${server.url}/admin/v1/usage?groupBy=key`, { headers: admin })).json()) as { object: string; data: Array<Record<string, number | string>> };
      expect(usage.object).toBe('list');
      const teamA = usage.data.find((u) => u.bucket === 'team-a') as Record<string, number>;
      expect(teamA).toMatchObject({ requests: 2, errors: 0, inputTokens: (s.inputTokens as number) + (st.inputTokens as number), outputTokens: (s.outputTokens as number) + (st.outputTokens as number) });
      expect(teamA.costUsd).toBeCloseTo((s.costUsd as number) + (st.costUsd as number), 12);
      expect(usage.data.find((u) => u.bucket === 'team-b')).toMatchObject({ requests: 1, errors: 1, costUsd: 0 });
      const today = new Date().toISOString().slice(0, 10);
      const byDay = (await (await fetch(`${server.url}/admin/v1/usage?groupBy=day&from=${today}&to=${today}`, { headers: admin })).json()) as { data: Array<Record<string, unknown>> };
      expect(byDay.data).toEqual([expect.objectContaining({ bucket: today, requests: 3, errors: 1 })]);
      const badGroup = await fetch(`${server.url}/admin/v1/usage?groupBy=color`, { headers: admin });
      expect(badGroup.status).toBe(400);
      expect(((await badGroup.json()) as { error: { param: string } }).error.param).toBe('groupBy');

      // The CSV export.
      const csv = await fetch(`${server.url}/admin/v1/usage/export?keyId=team-a`, { headers: admin });
      expect(csv.status).toBe(200);
      expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(csv.headers.get('content-disposition')).toMatch(/^attachment; filename="modelgate-usage.*\.csv"$/);
      const lines = (await csv.text()).trimEnd().split('\r\n');
      expect(lines[0]?.split(',').slice(0, 4)).toEqual(['traceId', 'requestId', 'time', 'keyId']);
      expect(lines.slice(1).map((l) => l.split(',')[0])).toEqual([traceSync, traceStream]);
    } finally {
      await stopChild(server.child);
    }
  }, 60_000);

  it('SIGTERM writes every queued row before the process exits', async () => {
    // A flush interval far beyond the test: only the shutdown writes the rows.
    const server = await spawnCli(['--config', configFile, '--db', t.target, '--quiet'], { MODELGATE_LEDGER_FLUSH_MS: '600000' });
    const client = new OpenAI({ apiKey: KEY_A, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const traces: string[] = [];
    await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: `n${i}` }] }).withResponse();
        traces.push(r.response.headers.get('x-trace-id') as string);
      }),
    );
    const store = new SqlLedgerStore(t.db);
    const beforeStop = (await store.rows({ model: 'gpt-4o-mini' }, { limit: 100 })).rows.filter((r) => traces.includes(r.traceId));
    expect(beforeStop).toHaveLength(0);
    const exited = once(server.child, 'exit');
    server.child.kill('SIGTERM');
    const [code] = await exited;
    expect(code).toBe(0);
    const written = (await store.rows({ model: 'gpt-4o-mini' }, { limit: 100 })).rows.filter((r) => traces.includes(r.traceId));
    expect(written).toHaveLength(40);
    expect(new Set(written.map((r) => r.traceId)).size).toBe(40);
  }, 60_000);
});
