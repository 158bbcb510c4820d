/**
 * A budget held across instances: two shipped servers on one database and one Redis, a key created
 * through the admin API with a budget of $1 per day, and concurrent load spread over both. The
 * budget is spent once, not once per instance: the cost the ledger recorded reaches the budget and
 * passes it by no more than the requests that were in flight when it ran out, far below twice it;
 * then both instances refuse the key with 429 insufficient_quota. Runs when REDIS_URL is set (and
 * then fails if Redis cannot be reached); the database is PostgreSQL when DATABASE_URL is set, else
 * one SQLite file both servers open.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { openTestDatabase, type TestDatabase } from '../helpers/control-db.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';

const REDIS_URL = process.env.REDIS_URL;
const ADMIN = 'mg-admin-budget-test-00001';
const BUDGET = 1;
const CONCURRENCY = 12;
if (!REDIS_URL) console.warn('[cli-budget-shared.test] REDIS_URL is not set: skipping the two-instance budget test (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

describe.skipIf(!REDIS_URL)('a budget shared by two instances (one Redis)', () => {
  let mock: MockOpenAI;
  let t: TestDatabase;
  let configFile: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    mock = await startMockOpenAI();
    t = await openTestDatabase(process.env.DATABASE_URL ? 'postgres' : 'sqlite', 'budget_shared');
    const dir = mkdtempSync(join(tmpdir(), 'mg-budget-'));
    configFile = join(dir, 'config.json');
    // $1000 per million tokens: a request of ~20 tokens costs about two cents.
    writeFileSync(configFile, JSON.stringify({ providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }], models: [{ id: 'gpt-4o-mini', provider: 'openai', pricing: { inputPerMTok: 1000, outputPerMTok: 1000 } }] }));
  }, 360_000);
  afterAll(async () => {
    await t?.close();
    await mock?.close();
  });

  it('$1 is spent once across both instances under concurrent load', async () => {
    const env = { MODELGATE_ADMIN_KEY: ADMIN, REDIS_URL: REDIS_URL as string, MODELGATE_REDIS_PREFIX: `mgbudget:${process.pid}:${Date.now()}:`, MODELGATE_LEDGER_FLUSH_MS: '50' };
    const [a, b] = await Promise.all([spawnCli(['--config', configFile, '--db', t.target, '--quiet'], env), spawnCli(['--config', configFile, '--db', t.target, '--quiet'], env)]);
    try {
      const created = await adminCall(a.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'capped', limits: { budget: { usd: BUDGET, period: 'day' } } } });
      expect(created.status).toBe(201);
      const secret: string = created.json.key;
      const keyId: string = created.json.id;
      // The key reaches the second instance (pub/sub) before the load starts.
      for (let i = 0; i < 100; i++) {
        const r = await fetch(`${b.url}/v1/key`, { headers: { authorization: `Bearer ${secret}` } });
        if (r.status === 200) break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const statuses: number[] = [];
      const codes: string[] = [];
      let next = 0;
      const TOTAL = 400;
      const worker = async (w: number) => {
        while (next < TOTAL) {
          const n = next++;
          const base = (n + w) % 2 ? a.url : b.url;
          const r = await fetch(`${base}/v1/chat/completions`, {
            method: 'POST',
            headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'spend a little of the budget please' }] }),
          });
          statuses.push(r.status);
          if (r.status !== 200) codes.push(((await r.json()) as { error: { code: string } }).error.code);
          else await r.text();
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, (_, w) => worker(w)));
      const ok = statuses.filter((s) => s === 200).length;
      expect(ok).toBeGreaterThan(0);
      expect(statuses.filter((s) => s === 429).length).toBe(TOTAL - ok);
      expect(new Set(codes)).toEqual(new Set(['insufficient_quota']));

      // What the ledger recorded as spent by the key, on both instances together.
      const store = new SqlLedgerStore(t.db);
      let spent = 0;
      let rows = 0;
      for (let i = 0; i < 100; i++) {
        const chat = (await store.usage({ groupBy: 'model', keyId })).find((b) => b.bucket === 'gpt-4o-mini');
        spent = chat?.costUsd ?? 0;
        rows = chat?.requests ?? 0;
        if (rows === TOTAL) break;
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(rows).toBe(TOTAL);
      // The refusals are recorded as what their callers got: a spent budget, not a rate limit.
      const refused = await store.rows({ keyId, status: 429 }, { limit: 5 });
      expect(refused.rows.map((r) => r.errorCode)).toEqual(Array(Math.min(5, TOTAL - ok)).fill('insufficient_quota'));
      const perRequest = spent / ok;
      // Reached, and passed by at most what was in flight when it ran out; never once per instance.
      expect(spent).toBeGreaterThanOrEqual(BUDGET);
      expect(spent).toBeLessThanOrEqual(BUDGET + CONCURRENCY * perRequest + 1e-9);
      expect(spent).toBeLessThan(2 * BUDGET);
      // Both instances refuse the key now.
      for (const base of [a.url, b.url]) {
        const r = await fetch(`${base}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] }) });
        expect(r.status).toBe(429);
        expect(((await r.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
      }
    } finally {
      await Promise.all([stopChild(a.child), stopChild(b.child)]);
    }
  }, 180_000);
});
