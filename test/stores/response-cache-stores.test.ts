/**
 * The response cache's stores and accounting: the in-memory LRU bounded in bytes with expiry, the
 * strict config, the limits of a hit (the request counts, its tokens do not), and the Redis cache
 * shared by two gateway instances (runs when REDIS_URL is set, and then fails if Redis cannot be
 * reached; skipped with a notice otherwise).
 */
import type { Redis } from 'ioredis';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix, warnWithoutRedis } from '../helpers/redis.js';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { ConfigError, createGateway, MemoryResponseCache, RedisResponseCache, type Gateway, type GatewayConfigInput, type GatewayOptions } from '../../src/index.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-cache-stores-key-01';

describe('MemoryResponseCache', () => {
  it('evicts the least recently used entries beyond its size in bytes, and expires entries', async () => {
    let now = 1000;
    const cache = new MemoryResponseCache(() => now, 200);
    await cache.set('a', 'x'.repeat(30), 10_000); // (1 + 30) * 2 = 62 bytes
    await cache.set('b', 'y'.repeat(30), 10_000);
    await cache.set('c', 'z'.repeat(30), 10_000);
    expect(await cache.get('a')).toBe('x'.repeat(30)); // a is now the most recently used
    await cache.set('d', 'w'.repeat(30), 10_000); // 248 bytes > 200: b (least recently used) goes
    expect(await cache.get('b')).toBeUndefined();
    expect(await cache.get('a')).toBeDefined();
    expect(cache.size).toBeLessThanOrEqual(200);
    await cache.set('big', 'q'.repeat(500), 10_000); // larger than the whole cache: not kept
    expect(await cache.get('big')).toBeUndefined();
    now += 10_001;
    expect(await cache.get('a')).toBeUndefined();
  });
});

function config(mock: MockOpenAI, extra: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
  return {
    providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
    models: [{ id: 'gpt-4o', provider: 'openai', cache: { ttlSeconds: 60 } }],
    keys: [{ id: 'k', key: KEY, limits: { requestsPerMinute: 10, tokensPerMinute: 10_000 } }],
    retry: { attempts: 1 },
    ...extra,
  };
}

describe('config and limits', () => {
  let mock: MockOpenAI;
  beforeAll(async () => {
    mock = await startMockOpenAI();
  });
  afterAll(async () => {
    await mock?.close();
  });

  it('the cache settings are strict: a misspelt field or a bad value names its path', () => {
    const bad = config(mock, { models: [{ id: 'gpt-4o', provider: 'openai', cache: { ttlSeconds: 60, scop: 'global' } as never }], keys: [{ id: 'k', key: KEY, cache: { ttlSeconds: 0 } }] });
    expect(() => createGateway(bad)).toThrow(ConfigError);
    try {
      createGateway(bad);
    } catch (err) {
      expect(String((err as Error).message)).toMatch(/models\.0\.cache/);
      expect(String((err as Error).message)).toMatch(/keys\.0\.cache\.ttlSeconds/);
    }
  });

  it('a hit counts against the requests per minute but takes no tokens', async () => {
    const gateway = createShippedGateway(config(mock));
    const server = await serve(gateway, { port: 0 });
    try {
      const send = () => fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'count me' }] }) });
      const miss = await send();
      expect(miss.headers.get('x-modelgate-cache')).toBe('miss');
      await miss.text();
      const hit = await send();
      expect(hit.headers.get('x-modelgate-cache')).toBe('hit');
      await hit.text();
      expect(Number(hit.headers.get('x-ratelimit-remaining-requests'))).toBe(Number(miss.headers.get('x-ratelimit-remaining-requests')) - 1);
      // The miss used 15 tokens (settled after its answer); the hit reserved and used none.
      const third = await send();
      await third.text();
      expect(Number(third.headers.get('x-ratelimit-remaining-tokens'))).toBe(10_000 - 15);
    } finally {
      await server.close();
      await gateway.close();
    }
  });
});

warnWithoutRedis('response-cache-stores.test', 'the Redis response cache tests');

describe.skipIf(!REDIS_URL)('Redis response cache shared by two instances', () => {
  const prefix = uniquePrefix('', 'cache:');
  let redisA: Redis;
  let redisB: Redis;
  let mock: MockOpenAI;
  const instances: Array<{ gateway: Gateway; server: RunningServer }> = [];

  beforeAll(async () => {
    [redisA, redisB] = (await connectRedis(2)) as [Redis, Redis];
    mock = await startMockOpenAI();
    for (const redis of [redisA, redisB]) {
      const options: GatewayOptions = { responseCache: new RedisResponseCache(redis, prefix) };
      const gateway = createShippedGateway(config(mock, { keys: [{ id: 'k', key: KEY }, { id: 'other', key: `${KEY}-other` }] }), options);
      instances.push({ gateway, server: await serve(gateway, { port: 0 }) });
    }
  });
  afterAll(async () => {
    for (const i of instances) {
      await i.server.close();
      await i.gateway.close();
    }
    await mock?.close();
    await deletePrefix(redisA, prefix);
    redisA?.disconnect();
    redisB?.disconnect();
  });

  it('an answer made on one instance is a hit on the other (sync and streamed), for the same key only', async () => {
    const [a, b] = instances as [(typeof instances)[number], (typeof instances)[number]];
    const q = `shared ${Math.random()}`;
    const client = (url: string, key = KEY) => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });
    const before = mock.requests.length;
    const one = await client(a.server.url).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }).withResponse();
    expect(one.response.headers.get('x-modelgate-cache')).toBe('miss');
    expect(await redisA.keys(`${prefix}*`)).toHaveLength(1);
    const two = await client(b.server.url).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }).withResponse();
    expect(two.response.headers.get('x-modelgate-cache')).toBe('hit');
    expect(two.data.choices[0]?.message.content).toBe(one.data.choices[0]?.message.content);
    let streamed = '';
    for await (const c of await client(b.server.url).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }], stream: true })) streamed += c.choices[0]?.delta.content ?? '';
    expect(streamed).toBe(one.data.choices[0]?.message.content);
    expect(mock.requests.length).toBe(before + 1);
    const other = await client(b.server.url, `${KEY}-other`).chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: q }] }).withResponse();
    expect(other.response.headers.get('x-modelgate-cache')).toBe('miss');
  });
});
