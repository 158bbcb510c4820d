/**
 * GET /v1/key is not counted against the key's requests per minute: looking at one's own limits
 * spends none of them, and it still answers (with remaining 0) once they are spent. Through the
 * node server, a config key limited to 2 requests per minute, the built-in mock vendor.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { createGateway, type Gateway } from '../../src/index.js';

const KEY = 'mg-key-info-free-0001';
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  gateway = createGateway({
    providers: [{ id: 'mock', type: 'mock' }],
    models: [{ id: 'mock-chat', provider: 'mock' }],
    keys: [{ id: 'two-a-minute', key: KEY, limits: { requestsPerMinute: 2 } }],
  });
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
});

const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const chat = () => fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }) });
async function ownKey(): Promise<{ status: number; remaining: number | undefined; limit: number | undefined }> {
  const res = await fetch(`${server.url}/v1/key`, { headers });
  const body = (await res.json()) as { rateLimit?: { requests?: { remaining: number; limit: number } | null } };
  return { status: res.status, remaining: body.rateLimit?.requests?.remaining, limit: body.rateLimit?.requests?.limit };
}

describe('GET /v1/key and the requests-per-minute limit', () => {
  it('reads the minute without spending it', async () => {
    for (let i = 0; i < 4; i++) expect(await ownKey()).toEqual({ status: 200, remaining: 2, limit: 2 });
    expect((await chat()).status).toBe(200);
    expect(await ownKey()).toEqual({ status: 200, remaining: 1, limit: 2 });
    expect((await chat()).status).toBe(200);
    const spent = await chat();
    expect(spent.status).toBe(429);
    expect(spent.headers.get('retry-after')).toMatch(/^\d+$/);
    expect(await ownKey()).toEqual({ status: 200, remaining: 0, limit: 2 });
  });
});

describe('budgetRemainingUsd', () => {
  it('is counted in whole nano-dollars: no binary floating-point noise on the wire', async () => {
    const { budgetRemainingUsd } = await import('../../src/endpoints/key-info.js');
    expect(4 - 3.3).not.toBe(0.7);
    expect(budgetRemainingUsd(4, 3_300_000_000)).toBe(0.7);
    expect(budgetRemainingUsd(0.3, 100_000_000)).toBe(0.2);
    expect(budgetRemainingUsd(1, 2_000_000_000)).toBe(0);
  });
});
