/**
 * Limits shared through Redis by two gateway instances, each wired as the standalone server wires
 * itself (`redisSharedState` from modelgate/node, its own ioredis client): parallel
 * requests split across both let exactly M through, concurrency slots and token reservations are
 * seen by the other instance, and a budget spent on one is spent on both until the period ends.
 * Runs when REDIS_URL is set — and then fails if Redis cannot be reached; skipped with a notice otherwise.
 */
import type { Redis } from 'ioredis';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix, warnWithoutRedis } from '../helpers/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, GatewayConfigInput } from '../../src/index.js';
import { redisSharedState, type SharedState } from '../../node/redis.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-redis-limits-key-01';
const UPSTREAM_KEY = 'upstream-redis-limits-0123456789';

warnWithoutRedis('limits-redis.test', 'the shared-limits tests');

describe.skipIf(!REDIS_URL)('limits shared by two instances through Redis', () => {
  const prefix = uniquePrefix();
  let redisA: Redis;
  let sharedA: SharedState;
  let sharedB: SharedState;
  let upstream: MockGatedOpenAI;
  const gateways: Gateway[] = [];

  beforeAll(async () => {
    [redisA] = (await connectRedis(1)) as [Redis];
    // The instances: the shipped Redis wiring, one client each (the raw client above checks and cleans up).
    [sharedA, sharedB] = await Promise.all([redisSharedState(REDIS_URL as string, prefix), redisSharedState(REDIS_URL as string, prefix)]);
    await Promise.all([sharedA.ready(), sharedB.ready()]);
    upstream = await startMockGatedOpenAI({ apiKeys: [UPSTREAM_KEY], usage: { prompt_tokens: 10, completion_tokens: 4 } });
  });

  afterAll(async () => {
    upstream?.open();
    await Promise.all(gateways.map((g) => g.close()));
    await deletePrefix(redisA, prefix);
    await Promise.all([sharedA?.close(), sharedB?.close()]);
    redisA?.disconnect();
    await upstream?.close();
  });

  /** Two instances on one Redis, sharing a clock; each test gets its own key id (fresh counters). */
  function pair(keyId: string, limits: NonNullable<NonNullable<GatewayConfigInput['keys']>[number]['limits']>, now: () => number): [Gateway, Gateway] {
    const config: GatewayConfigInput = {
      providers: [{ id: 'up', type: 'openai', baseURL: upstream.baseURL, apiKey: UPSTREAM_KEY }],
      models: [{ id: 'gpt', provider: 'up', upstreamModel: 'gpt-4o-mini', pricing: { inputPerMTok: 100_000, outputPerMTok: 100_000 } }],
      keys: [{ id: keyId, key: KEY, limits }],
    };
    const a = createShippedGateway(config, { now, rateLimiter: sharedA.options.rateLimiter });
    const b = createShippedGateway(config, { now, rateLimiter: sharedB.options.rateLimiter });
    gateways.push(a, b);
    return [a, b];
  }

  const chat = (body: Record<string, unknown> = {}): Request => jsonRequest('/v1/chat/completions', chatBody('gpt', body), { key: KEY });

  it('lets exactly M of N parallel requests through, split across both instances', async () => {
    const [a, b] = pair('rpm', { requestsPerMinute: 7 }, () => 50_000_000);
    const statuses = await Promise.all(Array.from({ length: 30 }, (_, i) => (i % 2 ? a : b).handle(chat()).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(23);
    const refused = await a.handle(chat());
    expect(refused.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(refused.headers.get('retry-after')).toBe('60');
  });

  it('shares concurrency slots: M in flight across both, freed for both when they end', async () => {
    const [a, b] = pair('conc', { concurrentRequests: 3 }, Date.now);
    upstream.closeGate();
    const pending = Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).handle(chat()));
    const answered: number[] = [];
    for (const p of pending) void p.then((r) => answered.push(r.status));
    await expect.poll(() => answered.length).toBe(7);
    expect(answered.every((s) => s === 429)).toBe(true);
    await expect.poll(() => upstream.inFlight).toBe(3);
    upstream.open();
    expect((await Promise.all(pending)).filter((r) => r.status === 200)).toHaveLength(3);
    const again = await Promise.all([a.handle(chat()), b.handle(chat()), a.handle(chat())]);
    expect(again.map((r) => r.status)).toEqual([200, 200, 200]);
  });

  it('reserves tokens on one instance and settles them where the other sees it', async () => {
    const [a, b] = pair('tpm', { tokensPerMinute: 1000 }, () => 60_000_000);
    const first = await a.handle(chat({ max_tokens: 300 }));
    expect(first.headers.get('x-ratelimit-remaining-tokens')).toBe('699');
    const second = await b.handle(chat({ max_tokens: 300 }));
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe('685');
    upstream.closeGate();
    const burst = await Promise.all(Array.from({ length: 4 }, (_, i) => (i % 2 ? a : b).handle(chat({ max_tokens: 300, stream: true }))));
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    upstream.open();
    for (const r of burst) if (r.status === 200) await r.text();
    const after = await a.handle(chat({ max_tokens: 10 }));
    expect(after.headers.get('x-ratelimit-remaining-tokens')).toBe(String(1000 - 5 * 14 - 11));
  });

  it('a budget spent on one instance is spent on both until the next UTC week', async () => {
    // Sunday evening; the ISO week ends at Monday 00:00 UTC.
    let now = Date.UTC(2025, 5, 15, 22, 0, 0);
    const [a, b] = pair('budget', { budget: { usd: 2, period: 'week' } }, () => now);
    expect((await a.handle(chat())).status).toBe(200);
    expect((await b.handle(chat())).status).toBe(200);
    const spent = await a.handle(chat());
    expect(spent.status).toBe(429);
    expect(spent.headers.get('retry-after')).toBe('7200');
    expect(((await spent.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    expect((await b.handle(chat())).status).toBe(429);
    now = Date.UTC(2025, 5, 16, 0, 0, 0);
    expect((await b.handle(chat())).status).toBe(200);
  });
});
