/**
 * A budget outlives a restart and a change of its period. The shipped server on a SQLite file with
 * its in-process limit store (the embedded default): a key created through the admin API with a
 * budget per day is spent until 429; the server stops (SIGTERM, every ledger row written) and
 * starts again on the same file. Before, the new process started the period's total at zero, and
 * the key could spend its whole budget again after every deploy. Then the period changes to a
 * month: the month's total starts from what the ledger holds, not from zero.
 * The store's rule (a seed only where no total exists) is checked on memory and, when REDIS_URL is
 * set, on Redis.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix } from '../helpers/redis.js';
import { MemoryRateLimiter, type LimitCheck, type RateLimiter } from '../../src/limits/rate-limiter.js';
import { RedisRateLimiter } from '../../src/limits/redis-rate-limiter.js';
import { BudgetSeeds } from '../../src/limits/budget-seeds.js';

const ADMIN = 'mg-admin-budget-restart-001';
const BUDGET_USD = 0.1;

describe('a key budget after a restart and a period change (shipped server, SQLite, in-process limits)', () => {
  let mock: MockOpenAI;
  let dir: string;
  let configFile: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    mock = await startMockOpenAI();
    dir = mkdtempSync(join(tmpdir(), 'mg-budget-restart-'));
    configFile = join(dir, 'config.json');
    // $1000 per million tokens: a request of ~20 tokens costs about two cents.
    writeFileSync(configFile, JSON.stringify({ providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }], models: [{ id: 'gpt-4o-mini', provider: 'openai', pricing: { inputPerMTok: 1000, outputPerMTok: 1000 } }] }));
  }, 360_000);
  afterAll(async () => {
    await mock?.close();
  });

  const start = () => spawnCli(['--config', configFile, '--db', join(dir, 'mg.db'), '--quiet'], { MODELGATE_ADMIN_KEY: ADMIN, MODELGATE_LEDGER_FLUSH_MS: '50' });
  const chat = (base: string, secret: string) =>
    fetch(`${base}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'spend a little of the budget please' }] }),
    });
  const spend = async (base: string, secret: string) => ((await (await fetch(`${base}/v1/key`, { headers: { authorization: `Bearer ${secret}` } })).json()) as { usage: { spendUsd: number; budgetRemainingUsd: number } }).usage;

  it('a spent budget stays spent across a restart, and a new period starts from the ledger', async () => {
    let server = await start();
    let secret = '';
    let keyId = '';
    try {
      const created = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'capped', limits: { budget: { usd: BUDGET_USD, period: 'day' } } } });
      expect(created.status).toBe(201);
      secret = created.json.key;
      keyId = created.json.id;
      let ok = 0;
      for (let i = 0; i < 50; i++) {
        const r = await chat(server.url, secret);
        await r.text();
        if (r.status !== 200) {
          expect(r.status).toBe(429);
          break;
        }
        ok++;
      }
      expect(ok).toBeGreaterThan(1);
      expect(ok).toBeLessThan(50);
      expect((await spend(server.url, secret)).budgetRemainingUsd).toBe(0);
    } finally {
      await stopChild(server.child);
    }

    server = await start();
    try {
      // The same file, a new process: the day's total starts from the ledger's rows.
      const usage = await spend(server.url, secret);
      expect(usage.spendUsd).toBeGreaterThanOrEqual(BUDGET_USD);
      expect(usage.budgetRemainingUsd).toBe(0);
      const r = await chat(server.url, secret);
      expect(r.status).toBe(429);
      expect(((await r.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');

      // The period becomes a month with room: its total starts from the month's spend so far.
      const updated = await adminCall(server.url, `/keys/${keyId}`, { method: 'PATCH', key: ADMIN, body: { limits: { budget: { usd: BUDGET_USD * 2, period: 'month' } } } });
      expect(updated.status).toBe(200);
      let month = { spendUsd: 0, budgetRemainingUsd: 0 };
      for (let i = 0; i < 40; i++) {
        month = await spend(server.url, secret);
        if (month.budgetRemainingUsd < BUDGET_USD * 2) break; // the new limits reached this instance
        await new Promise((res) => setTimeout(res, 50));
      }
      expect(month.spendUsd).toBeGreaterThanOrEqual(BUDGET_USD);
      expect(month.budgetRemainingUsd).toBeLessThanOrEqual(BUDGET_USD);
    } finally {
      await stopChild(server.child);
    }
  }, 120_000);
});

const budget = (name: string, seed?: number): Extract<LimitCheck, { kind: 'budget' }> => ({ kind: 'budget', name, limit: 100, resetAt: 2_000_000, ...(seed === undefined ? {} : { seed }) });

async function seedRule(store: RateLimiter, name: string): Promise<void> {
  // No total yet: the seed is the total, and counts against the limit.
  expect((await store.acquire([budget(name, 100)], 1000)).allowed).toBe(false);
  expect((await store.acquire([budget(name, 40)], 1000)).states[0]?.used).toBe(100);
  // A total exists: seeds are ignored, spends add to it.
  await store.spend(`${name}-b`, 7, 2_000_000, 1000);
  expect((await store.acquire([budget(`${name}-b`, 90)], 1000)).states[0]).toEqual({ used: 7, resetAt: 2_000_000 });
  await store.spend(name, 5, 2_000_000, 1000);
  expect((await store.acquire([budget(name)], 1000)).states[0]?.used).toBe(105);
  // Another period of the same name starts from its own seed.
  expect((await store.acquire([{ ...budget(name, 3), resetAt: 3_000_000 }], 1000)).states[0]?.used).toBe(3);
}

describe('a budget seed is taken only where the store has no total', () => {
  it('in memory', async () => {
    await seedRule(new MemoryRateLimiter(), 'key:k:budget-day');
  });

  it.skipIf(!REDIS_URL)('in Redis', async () => {
    const [redis] = await connectRedis(1);
    const prefix = uniquePrefix('seed');
    try {
      await seedRule(new RedisRateLimiter(redis as NonNullable<typeof redis>, prefix), 'key:k:budget-day');
    } finally {
      await deletePrefix(redis, prefix);
      redis?.disconnect();
    }
  });

  it('the ledger is read once per key and period; a failed read is retried later and warns', async () => {
    let reads = 0;
    let fail = true;
    const warnings: string[] = [];
    let now = 0;
    const seeds = new BudgetSeeds(async () => {
      reads++;
      if (fail) throw new Error('database away');
      return 42;
    }, () => now, { retryMs: 1000, warn: (m) => warnings.push(m) });
    expect(await seeds.spent('k', 0)).toBeUndefined();
    expect(warnings[0]).toContain("key 'k'");
    expect(seeds.spent('k', 0)).toBeUndefined(); // within the retry time: no new read
    fail = false;
    now = 1001;
    const first = seeds.spent('k', 0);
    expect(first).toBeInstanceOf(Promise);
    expect(seeds.spent('k', 0)).toBe(first); // one read in flight for both callers
    expect(await first).toBe(42);
    expect(seeds.spent('k', 0)).toBe(42);
    expect(reads).toBe(2);
  });
});
