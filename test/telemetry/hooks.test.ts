/**
 * onRequest/onResponse hook events: key id, model, provider, status, latency, usage, trace id —
 * and never a platform key or upstream credential (nor in any console line).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createGateway, type Gateway, type RequestEvent, type ResponseEvent } from '../../src/index.js';
import { KEY_ALL, KEY_GPT, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { jsonRequest } from '../helpers/requests.js';

let mock: MockOpenAI;
let gateway: Gateway;
const requests: RequestEvent[] = [];
const responses: ResponseEvent[] = [];
const consoleLines: string[] = [];
let clock = 1_000_000;

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(openAIConfig(mock), {
    // Each reading of the clock advances it by 5 ms, so latencies are deterministic and positive.
    now: () => (clock += 5),
    hooks: {
      onRequest: (e) => void requests.push(structuredClone(e)),
      onResponse: (e) => void responses.push(structuredClone(e)),
    },
  });
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});
beforeEach(() => {
  requests.length = 0;
  responses.length = 0;
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void consoleLines.push(args.map(String).join(' ')));
  }
});
afterEach(() => {
  vi.restoreAllMocks();
});

function chat(body: Record<string, unknown>, key: string | undefined = KEY_ALL, headers: Record<string, string> = {}): Promise<Response> {
  return gateway.handle(jsonRequest('/v1/chat/completions', body, { key: key || undefined, headers }));
}

const SECRETS = () => [KEY_ALL, KEY_GPT, mock.apiKey];

function expectNoSecrets(value: unknown): void {
  const text = JSON.stringify(value);
  for (const s of SECRETS()) expect(text).not.toContain(s);
}

describe('hook events', () => {
  it('sync success: request and response events with key id, model, provider, status, latency, usage, trace id', async () => {
    const res = await chat({ model: 'fast', messages: [{ role: 'user', content: 'count these words' }] }, KEY_ALL, { 'request-id': 'rid-hooks-1' });
    expect(res.status).toBe(200);
    await res.text();
    const traceId = res.headers.get('x-trace-id');
    expect(requests).toHaveLength(1);
    expect(requests[0]).toMatchObject({
      traceId,
      requestId: 'rid-hooks-1',
      method: 'POST',
      path: '/v1/chat/completions',
      keyId: 'team-all',
      model: 'fast',
      provider: 'local',
      upstreamModel: 'llama-3.1-8b',
      stream: false,
    });
    expect(responses).toHaveLength(1);
    const ev = responses[0] as ResponseEvent;
    expect(ev).toMatchObject({ traceId, keyId: 'team-all', model: 'fast', provider: 'local', status: 200 });
    expect(ev.latencyMs).toBeGreaterThan(0);
    expect(ev.usage).toEqual({ inputTokens: 10, outputTokens: 6, totalTokens: 16, cachedInputTokens: 0, reasoningTokens: 0 });
    expect(ev.error).toBeUndefined();
    expectNoSecrets([requests, responses]);
  });

  it('stream: onResponse fires when the stream ends, with usage even if the client did not ask for it', async () => {
    const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b' }] });
    const text = await res.text();
    expect(text).not.toContain('"usage"');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({
      traceId: res.headers.get('x-trace-id'),
      status: 200,
      stream: true,
      streamCompleted: true,
      usage: { inputTokens: 10, outputTokens: 5, totalTokens: 15 },
    });
  });

  it('errors: 401 has no key id; 403 names key and model; both carry the code', async () => {
    const unauth = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }, 'mg-wrong-key-but-long-1');
    expect(unauth.status).toBe(401);
    const forbidden = await chat({ model: 'fast', messages: [{ role: 'user', content: 'x' }] }, KEY_GPT);
    expect(forbidden.status).toBe(403);
    expect(responses).toHaveLength(2);
    expect(responses[0]).toMatchObject({ status: 401, error: { code: 'authentication' } });
    expect(responses[0]?.keyId).toBeUndefined();
    expect(responses[1]).toMatchObject({ status: 403, keyId: 'team-gpt', error: { code: 'permission_denied' } });
    expect(responses[1]?.traceId).toBe(forbidden.headers.get('x-trace-id'));
    expectNoSecrets(responses);
    expect(JSON.stringify(responses)).not.toContain('mg-wrong-key-but-long-1');
  });

  it('an upstream error that echoes the upstream key is redacted in the response and the hook event', async () => {
    mock.failNext(401, { error: { message: `Incorrect API key provided: ${mock.apiKey}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    const res = await chat({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    const body = await res.text();
    expect(body).toContain('[redacted]');
    expect(responses).toHaveLength(1);
    expect(responses[0]?.error?.message).toContain('[redacted]');
    expectNoSecrets([body, responses]);
  });

  it('a mid-stream upstream failure is reported with streamCompleted false and an error', async () => {
    mock.breakStreamNext();
    const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'break here' }] });
    const text = await res.text();
    expect(text).toContain('"error"');
    expect(responses).toHaveLength(1);
    expect(responses[0]).toMatchObject({ status: 200, streamCompleted: false, error: { code: 'bad_gateway' } });
  });

  it('a throwing or rejecting hook does not break the request', async () => {
    const gw = createGateway(openAIConfig(mock), {
      hooks: {
        onRequest: () => {
          throw new Error('host bug');
        },
        onResponse: async () => {
          throw new Error('async host bug');
        },
      },
    });
    const res = await gw.handle(
      new Request('http://gw.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'still fine' }] }),
      }),
    );
    expect(res.status).toBe(200);
    await gw.close();
  });

  it('nothing the gateway printed contains a secret, and platform keys never reach the upstream', () => {
    for (const line of consoleLines) for (const s of SECRETS()) expect(line).not.toContain(s);
    expect(mock.requests.length).toBeGreaterThan(3);
    const upstreamSaw = JSON.stringify(mock.requests.map((r) => ({ headers: r.headers, body: r.rawBody })));
    expect(upstreamSaw).not.toContain(KEY_ALL);
    expect(upstreamSaw).not.toContain(KEY_GPT);
  });
});

describe('hooks fire once, centrally, for every request', () => {
  function get(path: string, key: string | undefined = KEY_ALL): Promise<Response> {
    return gateway.handle(new Request(`http://gw.test${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {} }));
  }

  function expectOnePair(res: Response): { req: RequestEvent; ev: ResponseEvent } {
    expect(requests).toHaveLength(1);
    expect(responses).toHaveLength(1);
    const traceId = res.headers.get('x-trace-id');
    expect(requests[0]?.traceId).toBe(traceId);
    expect(responses[0]?.traceId).toBe(traceId);
    return { req: requests[0] as RequestEvent, ev: responses[0] as ResponseEvent };
  }

  it('a successful GET /v1/models fires onRequest and onResponse with its route name', async () => {
    const res = await get('/v1/models');
    expect(res.status).toBe(200);
    await res.text();
    const { req, ev } = expectOnePair(res);
    expect(req).toMatchObject({ method: 'GET', path: '/v1/models', endpoint: 'GET /v1/models', route: '/v1/models', keyId: 'team-all' });
    expect(ev).toMatchObject({ endpoint: 'GET /v1/models', route: '/v1/models', status: 200, keyId: 'team-all' });
    expect(ev.error).toBeUndefined();
  });

  it('route names are templates, not the request path or a regular expression', async () => {
    const res = await get('/v1/models/gpt-4o');
    expect(res.status).toBe(200);
    await res.text();
    const { ev } = expectOnePair(res);
    expect(ev).toMatchObject({ path: '/v1/models/gpt-4o', endpoint: 'GET /v1/models/{id}', route: '/v1/models/{id}', status: 200 });
    requests.length = 0;
    responses.length = 0;
    const gem = await get('/v1beta/models/gpt-4o');
    await gem.text();
    expect(expectOnePair(gem).ev).toMatchObject({ endpoint: 'GET /v1beta/models/{model}', route: '/v1beta/models/{model}' });
  });

  it('an error carries a plain message (not the JSON body) and the code', async () => {
    const res = await get('/v1/models', 'mg-wrong-key-but-long-2');
    expect(res.status).toBe(401);
    const { ev } = expectOnePair(res);
    expect(ev).toMatchObject({ status: 401, endpoint: 'GET /v1/models', error: { code: 'authentication', message: 'Invalid API key.' } });
  });

  it('an unknown route fires the pair too, named unknown', async () => {
    const res = await get('/v1/nothing-here');
    expect(res.status).toBe(404);
    const { req, ev } = expectOnePair(res);
    expect(req.endpoint).toBe('unknown');
    expect(req.route).toBeUndefined();
    expect(ev).toMatchObject({ status: 404, error: { code: 'not_found' } });
    expect(ev.error?.message).toBe('No route for GET /v1/nothing-here.');
  });

  it('a stream: onRequest before the upstream call, onResponse only once the body is read', async () => {
    const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b c' }] });
    expect(requests).toHaveLength(1);
    expect(responses).toHaveLength(0);
    await res.text();
    const { ev } = expectOnePair(res);
    expect(ev).toMatchObject({ endpoint: 'POST /v1/chat/completions', route: '/v1/chat/completions', streamCompleted: true, status: 200 });
  });

  it('a stream the client cancels fires onResponse once, incomplete', async () => {
    const res = await chat({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'a b c' }] });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    const { ev } = expectOnePair(res);
    expect(ev.streamCompleted).toBe(false);
    expect(ev.status).toBe(200);
  });
});
