/**
 * A response cache store that stops answering costs one request its deadline, not every cacheable
 * request its read and its write deadline: after a late or failed call the cache is skipped (a
 * miss, nothing kept) for 5 s, then tried again. Counted by the store's calls, on the gateway's
 * clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import type { ResponseCache } from '../../src/cache/response-cache.js';
import { jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-cache-stall-key-0001';
let now = 1_700_000_000_000;
let stalled = false;
const calls = { get: 0, set: 0 };
const held = new Map<string, string>();
const store: ResponseCache = {
  get: (key) => {
    calls.get++;
    return stalled ? new Promise(() => undefined) : Promise.resolve(held.get(key));
  },
  set: (key, value) => {
    calls.set++;
    if (stalled) return new Promise(() => undefined);
    held.set(key, value);
    return Promise.resolve();
  },
};
let gateway: Gateway;

beforeAll(() => {
  gateway = createGateway(
    { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'cached', provider: 'mock', upstreamModel: 'mock-chat', cache: { ttlSeconds: 3600 } }], keys: [{ id: 'k', key: KEY }] },
    { responseCache: store, storeTimeoutMs: 50, now: () => now },
  );
});
afterAll(async () => {
  await gateway?.close();
});

const ask = async (text: string) => {
  const res = await gateway.handle(jsonRequest('/v1/chat/completions', { model: 'cached', messages: [{ role: 'user', content: text }] }, { key: KEY }));
  await res.text();
  return { status: res.status, cache: res.headers.get('x-modelgate-cache') };
};

describe('a response cache store that stops answering', () => {
  it('is skipped for 5 s after a late call, then tried again', async () => {
    expect(await ask('one')).toEqual({ status: 200, cache: 'miss' });
    expect(await ask('one')).toEqual({ status: 200, cache: 'hit' });
    stalled = true;
    const before = { ...calls };
    expect((await ask('two')).status).toBe(200); // the read runs into the deadline
    expect(calls.get - before.get).toBe(1);
    for (const text of ['three', 'four', 'one']) expect((await ask(text)).status).toBe(200);
    // Skipped meanwhile: no more reads, and nothing written.
    expect([calls.get - before.get, calls.set - before.set]).toEqual([1, 0]);
    stalled = false;
    now += 5001;
    expect(await ask('one')).toEqual({ status: 200, cache: 'hit' });
    expect(calls.get - before.get).toBe(2);
  });
});
