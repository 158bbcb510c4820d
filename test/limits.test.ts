import { describe, expect, it, afterAll } from 'vitest';
import { Redis } from 'ioredis';
import { createGateway, MemoryRateLimiter, RedisRateLimiter } from '../src/index.js';

const REDIS_URL = process.env.REDIS_URL;

function config() {
  return {
    providers: [{ id: 'mock', type: 'mock' as const }],
    models: [{ id: 'mock-chat', provider: 'mock' }],
    keys: [
      { id: 'limited', key: 'sk-limited-0001', models: ['*'], limits: { requestsPerMinute: 2 } },
      { id: 'free', key: 'sk-free-000001', models: ['*'] },
    ],
  };
}

function chat(key: string): Request {
  return new Request('http://gw/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe('per-key request limits', () => {
  it('answers 429 with Retry-After once a key passes its requests per minute, other keys unaffected', async () => {
    let now = 1_000_000;
    const gw = createGateway(config(), { now: () => now });
    expect((await gw.handle(chat('sk-limited-0001'))).status).toBe(200);
    expect((await gw.handle(chat('sk-limited-0001'))).status).toBe(200);
    const limited = await gw.handle(chat('sk-limited-0001'));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('60');
    const body = (await limited.json()) as { error: { type: string; code: string } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect((await gw.handle(chat('sk-free-000001'))).status).toBe(200);
    now += 60_001; // next window
    expect((await gw.handle(chat('sk-limited-0001'))).status).toBe(200);
  });

  it('memory limiter forgets ended windows', async () => {
    let now = 0;
    const rl = new MemoryRateLimiter(() => now);
    for (let i = 0; i < 100; i++) await rl.hit(`k${i}`, 1, 1000);
    now = 5000;
    const r = await rl.hit('k0', 1, 1000);
    expect(r).toEqual({ allowed: true, remaining: 0, resetMs: 1000 });
    expect((rl as unknown as { windows: Map<string, unknown> }).windows.size).toBe(1);
  });
});

if (!REDIS_URL) console.warn('[limits.test] REDIS_URL is not set: skipping the Redis-backed limiter test (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

describe.skipIf(!REDIS_URL)('Redis rate limiter shared by two gateway instances', () => {
  const redis = new Redis(REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 2000 });
  const prefix = `modelgate:test:${process.pid}:${Date.now()}:`;
  afterAll(async () => {
    const keys = await redis.keys(`${prefix}*`);
    if (keys.length) await redis.del(...keys);
    redis.disconnect();
  });

  it('counts requests from both instances against one limit', async () => {
    await redis.connect();
    const a = createGateway(config(), { rateLimiter: new RedisRateLimiter(redis, prefix) });
    const b = createGateway(config(), { rateLimiter: new RedisRateLimiter(redis, prefix) });
    expect((await a.handle(chat('sk-limited-0001'))).status).toBe(200);
    expect((await b.handle(chat('sk-limited-0001'))).status).toBe(200);
    const third = await a.handle(chat('sk-limited-0001'));
    expect(third.status).toBe(429);
    const retry = Number(third.headers.get('retry-after'));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });
});
