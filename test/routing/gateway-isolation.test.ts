/**
 * Two gateways in one process share nothing (issue 22): a deployment cooling down in one is still
 * tried first by the other; each hashes its own keys (one's key is a 401 at the other, while
 * lookups on both interleave), each with its own Node upstream client.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

let a: MockOpenAI;
let b: MockOpenAI;
const gateways: Gateway[] = [];

beforeAll(async () => {
  [a, b] = await Promise.all([startMockOpenAI(), startMockOpenAI()]);
});
afterAll(async () => {
  for (const g of gateways) await g.close();
  await Promise.all([a?.close(), b?.close()]);
});

function gateway(key: string): Gateway {
  const config: GatewayConfigInput = {
    providers: [
      { id: 'a', type: 'openai', baseURL: a.baseURL, apiKey: a.apiKey },
      { id: 'b', type: 'openai', baseURL: b.baseURL, apiKey: b.apiKey },
    ],
    models: [{ id: 'm', deployments: [{ provider: 'a', upstreamModel: 'gpt-4o' }, { provider: 'b', upstreamModel: 'gpt-4o' }] }],
    keys: [{ id: `k-${key}`, key }],
    retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 1 },
    cooldown: { failures: 1, cooldownMs: 600_000 },
  };
  // random 0: the first deployment (a) is always tried first while it is usable.
  const g = createGateway(config, { env: {}, random: () => 0, fetch: createUndiciFetch() });
  gateways.push(g);
  return g;
}

async function chat(g: Gateway, key: string): Promise<number> {
  const res = await g.handle(jsonRequest('/v1/chat/completions', chatBody('m'), { key }));
  await res.arrayBuffer();
  return res.status;
}

describe('two gateways in one process', () => {
  it('keep their own deployment health, keys and upstream clients', async () => {
    const [one, two] = [gateway('mg-isolation-key-one-0001'), gateway('mg-isolation-key-two-0002')];
    a.failNext(503, { error: { message: 'overloaded', type: 'server_error', param: null, code: null } });
    expect(await chat(one, 'mg-isolation-key-one-0001')).toBe(200); // a fails, b answers: a cools down in `one`
    expect([a.requests.length, b.requests.length]).toEqual([1, 1]);
    expect(await chat(one, 'mg-isolation-key-one-0001')).toBe(200); // `one` skips a now
    expect([a.requests.length, b.requests.length]).toEqual([1, 2]);
    expect(await chat(two, 'mg-isolation-key-two-0002')).toBe(200); // `two` never saw a fail
    expect([a.requests.length, b.requests.length]).toEqual([2, 2]);

    expect(await chat(two, 'mg-isolation-key-one-0001')).toBe(401);
    expect(await chat(one, 'mg-isolation-key-two-0002')).toBe(401);
    expect(await chat(one, 'mg-isolation-key-one-0001')).toBe(200);
    expect(await chat(two, 'mg-isolation-key-two-0002')).toBe(200);
    expect([a.requests.length, b.requests.length]).toEqual([3, 3]);
  });
});
