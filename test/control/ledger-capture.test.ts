/**
 * The ledger row of every request whose key is known, captured from the request's complete event:
 * requested/served/vendor-reported model, provider and deployment, attempts and fallbacks, tokens
 * (cached, reasoning), cost with its price, latency and time to first token, stream, BYOK, status
 * and error code; also for requests refused with the key known (403, 429, an upstream 4xx). No
 * prompt or answer text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { KEY_ALL, KEY_GPT, openAIConfig, readSSEData } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { jsonRequest } from '../helpers/requests.js';

let mock: MockOpenAI;
let gateway: Gateway;
const rows: LedgerRow[] = [];
const KEY_LIMITED = 'mg-test-key-limited-0003';
const PRICING = { inputPerMTok: 2.5, outputPerMTok: 10 };

beforeAll(async () => {
  mock = await startMockOpenAI();
  const cfg = openAIConfig(mock);
  cfg.models = [
    { id: 'gpt-4o', provider: 'openai', pricing: PRICING, fallbacks: ['gpt-4o-mini'] },
    { id: 'gpt-4o-mini', provider: 'openai', pricing: { inputPerMTok: 0.15, outputPerMTok: 0.6 } },
    { id: 'fast', provider: 'local', upstreamModel: 'llama-3.1-8b' },
  ];
  cfg.retry = { attempts: 1 };
  cfg.keys = [...(cfg.keys ?? []), { id: 'team-limited', key: KEY_LIMITED, models: ['*'], limits: { requestsPerMinute: 1 } }];
  gateway = createGateway(cfg, { ledger: { enqueue: (r) => (rows.push(structuredClone(r)), true) } });
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

function chat(body: Record<string, unknown>, key: string = KEY_ALL): Promise<Response> {
  return gateway.handle(jsonRequest('/v1/chat/completions', body, { key, headers: { 'request-id': 'rid-ledger' } }));
}

const rowOf = (res: Response): LedgerRow => {
  const found = rows.filter((r) => r.traceId === res.headers.get('x-trace-id'));
  expect(found).toHaveLength(1);
  return found[0] as LedgerRow;
};

describe('ledger rows', () => {
  it('a sync call: every field, the vendor-reported model, the cost with its price, no prompt text', async () => {
    const res = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'secret prompt words here' }] });
    expect(res.status).toBe(200);
    const answer = (await res.json()) as { model: string; usage: { prompt_tokens: number; completion_tokens: number } };
    const r = rowOf(res);
    expect(r).toMatchObject({
      requestId: 'rid-ledger',
      keyId: 'team-all',
      method: 'POST',
      route: '/v1/chat/completions',
      protocol: 'openai-chat',
      model: 'gpt-4o',
      requestedModel: 'gpt-4o',
      resolvedModel: 'gpt-4o-2024-08-06',
      provider: 'openai',
      deployment: 'gpt-4o',
      status: 200,
      errorCode: null,
      attempts: 1,
      fallbacks: 0,
      inputTokens: answer.usage.prompt_tokens,
      outputTokens: answer.usage.completion_tokens,
      cachedTokens: 0,
      reasoningTokens: 0,
      price: PRICING,
      stream: false,
      byok: false,
      cacheHit: false,
      ttftMs: null,
    });
    expect(answer.model).toBe(r.resolvedModel);
    expect(r.costUsd).toBeCloseTo((answer.usage.prompt_tokens * 2.5 + answer.usage.completion_tokens * 10) / 1e6, 12);
    expect(r.latencyMs).toBeGreaterThanOrEqual(0);
    expect(Math.abs(r.time - Date.now())).toBeLessThan(10_000);
    const text = JSON.stringify(rows);
    expect(text).not.toContain('secret prompt');
    expect(text).not.toContain(KEY_ALL);
    expect(text).not.toContain(mock.apiKey);
  });

  it('a pass-through stream: stream, time to first token, usage and cost once the stream ended', async () => {
    const res = await chat({ model: 'gpt-4o', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: 'one two three' }] });
    expect(res.status).toBe(200);
    const events = await readSSEData(res);
    expect(events.at(-1)).toBe('[DONE]');
    const r = rowOf(res);
    expect(r).toMatchObject({ stream: true, status: 200, resolvedModel: 'gpt-4o-2024-08-06', protocol: 'openai-chat' });
    expect(r.ttftMs).not.toBeNull();
    expect(r.ttftMs as number).toBeLessThanOrEqual(r.latencyMs);
    expect(r.outputTokens).toBeGreaterThan(0);
    expect(r.costUsd).toBeGreaterThan(0);
  });

  it('a fallback: attempts and fallbacks counted, the model that served named', async () => {
    mock.failNext(503, { error: { message: 'overloaded', type: 'server_error' } });
    const res = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(200);
    await res.text();
    expect(rowOf(res)).toMatchObject({ requestedModel: 'gpt-4o', model: 'gpt-4o-mini', resolvedModel: 'gpt-4o-mini-2024-08-06', attempts: 2, fallbacks: 1, status: 200 });
  });

  it('refused with the key known: 403 (model not allowed) has a row with its status and error code', async () => {
    const res = await chat({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }, KEY_GPT);
    expect(res.status).toBe(403);
    expect(rowOf(res)).toMatchObject({ keyId: 'team-gpt', status: 403, errorCode: 'permission_denied', model: 'fast', requestedModel: 'fast', attempts: 0, costUsd: null });
  });

  it('refused with the key known: 429 (rate limit) has a row', async () => {
    const first = await chat({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }, KEY_LIMITED);
    expect(first.status).toBe(200);
    await first.text();
    const res = await chat({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] }, KEY_LIMITED);
    expect(res.status).toBe(429);
    expect(rowOf(res)).toMatchObject({ keyId: 'team-limited', status: 429, errorCode: 'rate_limited' });
  });

  it('an upstream 4xx has a row with its status and error code, the attempt counted', async () => {
    mock.failNext(400, { error: { message: 'bad things', type: 'invalid_request_error', param: 'messages', code: null } });
    const res = await chat({ model: 'fast', messages: [{ role: 'user', content: 'hi' }] });
    expect(res.status).toBe(400);
    expect(rowOf(res)).toMatchObject({ keyId: 'team-all', status: 400, errorCode: 'invalid_request', attempts: 1, model: 'fast', provider: 'local', deployment: 'llama-3.1-8b' });
  });

  it('no key known, no row (a 401 is nobody to account to)', async () => {
    const before = rows.length;
    const res = await chat({ model: 'fast', messages: [] }, 'not-a-key');
    expect(res.status).toBe(401);
    expect(rows.length).toBe(before);
  });
});
