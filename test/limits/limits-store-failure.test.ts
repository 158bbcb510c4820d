/**
 * A rate-limit store that is down or silent never holds a request: a Redis client pointed at a
 * port where nothing listens, and one connected to a server that accepts and never answers.
 * `rateLimitStore.onError: "open"` serves (one warning per minute), `"closed"` answers 503 in the
 * caller's protocol shape. Needs no real Redis.
 */
import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, RedisRateLimiter, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-store-failure-key-01';

let silent: Server;
const silentSockets = new Set<Socket>();
let deadPort: number;
const clients: Redis[] = [];
const gateways: Gateway[] = [];

beforeAll(async () => {
  // Accepts connections, reads what the client sends, never answers (a paused Redis).
  silent = createServer((s) => {
    silentSockets.add(s);
    s.on('data', () => undefined);
    s.once('close', () => silentSockets.delete(s));
  });
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', () => r()));
  // A port that was free a moment ago: connections are refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
  deadPort = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  for (const c of clients) c.disconnect();
  for (const s of silentSockets) s.destroy();
  await new Promise<void>((r) => silent.close(() => r()));
});

function redisAt(port: number): Redis {
  const redis = new Redis({ host: '127.0.0.1', port, lazyConnect: true, enableOfflineQueue: true, maxRetriesPerRequest: 20, retryStrategy: () => 50 });
  redis.on('error', () => undefined);
  clients.push(redis);
  return redis;
}

function config(onError: 'open' | 'closed'): GatewayConfigInput {
  return {
    providers: [{ id: 'mock', type: 'mock' }],
    models: [{ id: 'mock-chat', provider: 'mock', limits: { requestsPerMinute: 1000 } }],
    keys: [{ id: 'k', key: KEY, limits: { requestsPerMinute: 1, concurrentRequests: 1 } }],
    rateLimitStore: { onError, timeoutMs: 100 },
  };
}

const chat = (): Request => jsonRequest('/v1/chat/completions', chatBody('mock-chat'), { key: KEY });

function messages(): Request {
  return new Request('http://gw/v1/messages', {
    method: 'POST',
    headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-chat', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }),
  });
}

describe.each([
  ['nothing listens on the port', () => redisAt(deadPort)],
  ['the server never answers', () => redisAt((silent.address() as AddressInfo).port)],
])('Redis down (%s)', (_name, client) => {
  it('"open" serves every request without limits and warns at most once a minute', async () => {
    let now = 1_000_000;
    const warnings: string[] = [];
    const gw = createGateway(config('open'), { now: () => now, rateLimiter: new RedisRateLimiter(client()), logger: { warn: (m) => warnings.push(m) } });
    gateways.push(gw);
    // The key allows 1 request per minute, but the store cannot count: all are served.
    const statuses = await Promise.all([gw.handle(chat()), gw.handle(chat()), gw.handle(messages())].map((p) => p.then((r) => r.status)));
    expect(statuses).toEqual([200, 200, 200]);
    const res = await gw.handle(chat());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit-requests')).toBeNull();
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('rate-limit store failed');
    expect(warnings[0]).toContain('serving requests without request and token limits, refusing those with a budget with 503');
    now += 60_000;
    expect((await gw.handle(chat())).status).toBe(200);
    expect(warnings).toHaveLength(2);
  });

  it('"closed" answers 503 in the caller\'s protocol shape', async () => {
    const gw = createGateway(config('closed'), { rateLimiter: new RedisRateLimiter(client()), logger: { warn: () => undefined } });
    gateways.push(gw);
    const openai = await gw.handle(chat());
    expect(openai.status).toBe(503);
    expect(openai.headers.get('retry-after')).toBe('1');
    expect(((await openai.json()) as { error: { type: string; code: string } }).error).toMatchObject({ type: 'server_error', code: 'rate_limit_store_unavailable' });
    const anthropic = await gw.handle(messages());
    expect(anthropic.status).toBe(503);
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('overloaded_error');
  });
});
