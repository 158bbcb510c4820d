/**
 * Every error status of POST /v1/chat/completions, seen through the official openai client and raw
 * fetch: 401/403/404/400 (each documented field range)/405/413/502/504 and upstream errors, always
 * with x-trace-id (= traceId in the body) and the caller's Request-Id echoed; never a 500 for a
 * caller's mistake; upstream credentials never shown.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import { KEY_ALL, KEY_GPT, openAIConfig, readSSEData } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

let mock: MockOpenAI;
const running: Array<{ server: RunningServer; gateway: Gateway }> = [];
let url: string;
let client: OpenAI;

async function start(config: GatewayConfigInput): Promise<string> {
  const gateway = createGateway(config);
  const server = await serve(gateway, { port: 0 });
  running.push({ server, gateway });
  return server.url;
}

beforeAll(async () => {
  mock = await startMockOpenAI();
  url = await start(openAIConfig(mock));
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
});
afterAll(async () => {
  for (const r of running) {
    r.server.server.closeAllConnections();
    await r.server.close();
    await r.gateway.close();
  }
  await mock?.close();
});

const USER = [{ role: 'user' as const, content: 'hi' }];

interface ErrorBody {
  error: { message: string; type: string; param: string | null; code: string | null };
  traceId: string;
}

/** POSTs a raw body and checks the invariants every error response must keep. */
async function post(body: string | object, headers: Record<string, string> = { authorization: `Bearer ${KEY_ALL}` }, base = url): Promise<{ status: number; body: ErrorBody; headers: Headers }> {
  const res = await fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'request-id': 'caller-rid-1', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const parsed = JSON.parse(text) as ErrorBody;
  expect(res.headers.get('x-trace-id')).toBe(parsed.traceId);
  expect(res.headers.get('request-id')).toBe('caller-rid-1');
  if (res.status >= 400) {
    expect(Object.keys(parsed.error).sort()).toEqual(['code', 'message', 'param', 'type']);
    expect(typeof parsed.error.type).toBe('string');
  }
  return { status: res.status, body: parsed, headers: res.headers };
}

async function sdkError(p: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  try {
    await p;
  } catch (err) {
    if (err instanceof OpenAI.APIError) {
      expect(err.headers?.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
      return err;
    }
    throw err;
  }
  throw new Error('expected an API error');
}

describe('401 authentication', () => {
  it('missing credential', async () => {
    const r = await post({ model: 'gpt-4o', messages: USER }, {});
    expect(r.status).toBe(401);
    expect(r.body.error.code).toBe('missing_api_key');
    // The hint survives the credential scrubber (it once read "Authorization: [redacted] <key>").
    expect(r.body.error.message).toBe('Missing API key. Send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".');
  });

  it('malformed Authorization header', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer', `Bearer ${KEY_ALL} extra`]) {
      const r = await post({ model: 'gpt-4o', messages: USER }, { authorization });
      expect(r.status, authorization).toBe(401);
      expect(r.body.error.code).toBe('invalid_api_key');
    }
  });

  it('unknown key, via the SDK (AuthenticationError); the key is not echoed', async () => {
    const bad = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'mg-not-a-real-key-42', maxRetries: 0 });
    const err = await sdkError(bad.chat.completions.create({ model: 'gpt-4o', messages: USER }));
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect(err.status).toBe(401);
    expect(err.code).toBe('invalid_api_key');
    expect(err.message).not.toContain('mg-not-a-real-key-42');
  });

  it('authenticates before looking at the body', async () => {
    const r = await post('not json', {});
    expect(r.status).toBe(401);
  });
});

describe('403 / 404 model access', () => {
  it('403 when the key may not use the model (models globs)', async () => {
    const limited = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY_GPT, maxRetries: 0 });
    const err = await sdkError(limited.chat.completions.create({ model: 'fast', messages: USER }));
    expect(err).toBeInstanceOf(OpenAI.PermissionDeniedError);
    expect(err.param).toBe('model');
    expect(err.message).toContain('fast');
    // The glob also covers direct provider/model ids.
    const direct = await sdkError(limited.chat.completions.create({ model: 'local/llama', messages: USER }));
    expect(direct.status).toBe(403);
    const ok = await limited.chat.completions.create({ model: 'gpt-4o-mini', messages: USER });
    expect(ok.choices[0]?.message.content).toBe('[openai] you said: hi');
  });

  it('404 for an unknown model or provider prefix', async () => {
    for (const model of ['no-such-model', 'nosuchprovider/gpt-4o']) {
      const err = await sdkError(client.chat.completions.create({ model, messages: USER }));
      expect(err).toBeInstanceOf(OpenAI.NotFoundError);
      expect(err.code).toBe('model_not_found');
      expect(err.message).toContain(model);
    }
  });
});

describe('400 validation names the field', () => {
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['temperature above 2', { temperature: 2.01 }, 'temperature'],
    ['temperature below 0', { temperature: -0.1 }, 'temperature'],
    ['top_p above 1', { top_p: 1.5 }, 'top_p'],
    ['top_p below 0', { top_p: -0.5 }, 'top_p'],
    ['max_tokens 0', { max_tokens: 0 }, 'max_tokens'],
    ['max_tokens fractional', { max_tokens: 1.5 }, 'max_tokens'],
    ['max_completion_tokens negative', { max_completion_tokens: -3 }, 'max_completion_tokens'],
    ['stop: five strings', { stop: ['a', 'b', 'c', 'd', 'e'] }, 'stop'],
    ['stop: a number', { stop: 7 }, 'stop'],
    ['presence_penalty above 2', { presence_penalty: 2.5 }, 'presence_penalty'],
    ['frequency_penalty below -2', { frequency_penalty: -2.5 }, 'frequency_penalty'],
    ['n = 0', { n: 0 }, 'n'],
    ['top_logprobs 6', { logprobs: true, top_logprobs: 6 }, 'top_logprobs'],
    ['top_logprobs without logprobs', { top_logprobs: 2 }, 'top_logprobs'],
    ['top_logprobs with logprobs false', { logprobs: false, top_logprobs: 2 }, 'top_logprobs'],
    ['logit_bias above 100', { logit_bias: { '50256': 101 } }, 'logit_bias.50256'],
    ['logit_bias below -100', { logit_bias: { '50256': -101 } }, 'logit_bias.50256'],
    ['tool_choice unknown string', { tool_choice: 'sometimes' }, 'tool_choice'],
    ['tool_choice object without function', { tool_choice: { type: 'function' }, tools: [{ type: 'function', function: { name: 'f' } }] }, 'tool_choice.function'],
    ['unknown role', { messages: [{ role: 'robot', content: 'beep' }] }, 'messages[0].role'],
    ['second message with a bad role', { messages: [{ role: 'user', content: 'a' }, { role: 'wizard', content: 'b' }] }, 'messages[1].role'],
    ['messages missing', { messages: undefined }, 'messages'],
    ['messages empty', { messages: [] }, 'messages'],
    ['messages not an array', { messages: 'hello' }, 'messages'],
    ['user content a number', { messages: [{ role: 'user', content: 42 }] }, 'messages[0].content'],
    ['unknown content part type', { messages: [{ role: 'user', content: [{ type: 'hologram', data: 'x' }] }] }, 'messages[0].content[0].type'],
    ['tool message without tool_call_id', { messages: [{ role: 'tool', content: 'x' }] }, 'messages[0].tool_call_id'],
    ['model missing', { model: undefined }, 'model'],
    ['model not a string', { model: 42 }, 'model'],
    ['stream not a boolean', { stream: 'yes' }, 'stream'],
    ['stream_options without stream', { stream_options: { include_usage: true } }, 'stream_options'],
    ['tool function name with spaces', { tools: [{ type: 'function', function: { name: 'get weather' } }] }, 'tools[0].function.name'],
  ];

  it.each(cases)('%s', async (_name, patch, param) => {
    const r = await post({ model: 'gpt-4o', messages: USER, ...patch });
    expect(r.status).toBe(400);
    expect(r.body.error.type).toBe('invalid_request_error');
    expect(r.body.error.param).toBe(param);
    expect(r.body.error.message).toContain(param);
  });

  it('the SDK sees BadRequestError with param', async () => {
    const err = await sdkError(client.chat.completions.create({ model: 'gpt-4o', messages: USER, temperature: 3 }));
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect(err.param).toBe('temperature');
  });

  const valid: Array<[string, Record<string, unknown>]> = [
    ['temperature 0 and top_p 1', { temperature: 0, top_p: 1 }],
    ['temperature 2 and top_p 0', { temperature: 2, top_p: 0 }],
    ['stop string', { stop: 'zzz' }],
    ['stop four strings', { stop: ['w', 'x', 'y', 'z'] }],
    ['penalties at the bounds', { presence_penalty: -2, frequency_penalty: 2 }],
    ['n = 1', { n: 1 }],
    ['top_logprobs 0..5 with logprobs', { logprobs: true, top_logprobs: 5 }],
    ['logit_bias at the bounds', { logit_bias: { '1': -100, '2': 100 } }],
    ['tool_choice none', { tool_choice: 'none', tools: [{ type: 'function', function: { name: 'f' } }] }],
    ['tool_choice auto', { tool_choice: 'auto' }],
    ['tool_choice required', { tool_choice: 'required', tools: [{ type: 'function', function: { name: 'f' } }] }],
    ['tool_choice function', { tool_choice: { type: 'function', function: { name: 'f' } }, tools: [{ type: 'function', function: { name: 'f' } }] }],
    ['system, developer, user roles', { messages: [{ role: 'system', content: 's' }, { role: 'developer', content: 'd' }, { role: 'user', content: 'u' }] }],
    ['assistant and tool roles', {
      messages: [
        { role: 'user', content: 'u' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_9', type: 'function', function: { name: 'f', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_9', content: 'r' },
      ],
    }],
    ['null optional fields', { temperature: null, stop: null, tool_choice: null, n: null }],
  ];

  it.each(valid)('accepts %s and forwards it unchanged', async (_name, patch) => {
    const body = { model: 'gpt-4o', messages: USER, ...patch };
    const r = await post(body);
    expect(r.status, JSON.stringify(r.body)).toBe(200);
    expect(mock.requests.at(-1)?.body).toEqual(body);
  });

  it('passes unknown fields through to the upstream', async () => {
    const body = { model: 'gpt-4o', messages: USER, vendor_extension: { beam: 3 }, top_k: 5, metadata: { team: 'a' } };
    const r = await post(body);
    expect(r.status).toBe(200);
    expect(mock.requests.at(-1)?.body).toMatchObject({ vendor_extension: { beam: 3 }, top_k: 5, metadata: { team: 'a' } });
  });

  it('rejects bodies that are not JSON objects', async () => {
    for (const raw of ['{"model": "gpt-4o", "messages": [', '', '[]', '"text"', 'null', '42', '{"model":"gpt-4o"} trailing']) {
      const r = await post(raw);
      expect(r.status, raw).toBe(400);
      expect(r.body.error.type).toBe('invalid_request_error');
    }
  });

  it('never answers 500 to malformed input', async () => {
    const weird: unknown[] = [
      { model: 'gpt-4o', messages: [null] },
      { model: 'gpt-4o', messages: [[]] },
      { model: 'gpt-4o', messages: [{}] },
      { model: 'gpt-4o', messages: [{ role: 'user' }] },
      { model: 'gpt-4o', messages: [{ role: 'user', content: [null] }] },
      { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url' }] }] },
      { model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: '' } }] }] },
      { model: 'gpt-4o', messages: [{ role: 'assistant', tool_calls: [{}] }] },
      { model: 'gpt-4o', messages: USER, tools: 'all' },
      { model: 'gpt-4o', messages: USER, tools: [null] },
      { model: 'gpt-4o', messages: USER, response_format: { type: 'yaml' } },
      { model: 'gpt-4o', messages: USER, stream_options: 'yes', stream: true },
      { model: 'gpt-4o', messages: USER, logit_bias: { abc: 1 } },
      { model: ['gpt-4o'], messages: USER },
      { model: '', messages: USER },
      { model: 'gpt-4o', messages: USER, reasoning_effort: 'extreme' },
      { model: 'gpt-4o', messages: { role: 'user', content: 'x' } },
    ];
    for (const body of weird) {
      const r = await post(body as object);
      expect(r.status, JSON.stringify(body)).toBeGreaterThanOrEqual(400);
      expect(r.status, JSON.stringify(body)).toBeLessThan(500);
    }
  });
});

describe('other client errors', () => {
  it('405 for the wrong method and 404 for an unknown route, with trace ids', async () => {
    const get = await fetch(`${url}/v1/chat/completions`, { headers: { authorization: `Bearer ${KEY_ALL}` } });
    expect(get.status).toBe(405);
    const getBody = (await get.json()) as ErrorBody;
    expect(getBody.traceId).toBe(get.headers.get('x-trace-id'));
    const unknown = await fetch(`${url}/v1/nothing-here`, { headers: { 'request-id': 'r-404' } });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('request-id')).toBe('r-404');
    expect(((await unknown.json()) as ErrorBody).traceId).toBe(unknown.headers.get('x-trace-id'));
  });

  it('413 when the body is over the configured limit (streamed or declared)', async () => {
    const small = await start(openAIConfig(mock, { limits: { maxBodyBytes: 1024 } }));
    const ok = await post({ model: 'gpt-4o', messages: USER }, undefined, small);
    expect(ok.status).toBe(200);
    const r = await post({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(2000) }] }, undefined, small);
    expect(r.status).toBe(413);
    expect(r.body.error.code).toBe('request_too_large');
    const sdk = new OpenAI({ baseURL: `${small}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
    const err = await sdkError(sdk.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'y'.repeat(5000) }] }));
    expect(err.status).toBe(413);
  });
});

describe('upstream failures', () => {
  it('502 when the upstream is unreachable', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', () => r()));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    const dead = await start({
      providers: [{ id: 'gone', type: 'openai', baseURL: `http://127.0.0.1:${port}/v1`, apiKey: 'sk-upstream-secret-gone-000000' }],
      models: [{ id: 'gpt-4o', provider: 'gone' }],
      keys: [{ id: 'k', key: KEY_ALL }],
    });
    const r = await post({ model: 'gpt-4o', messages: USER }, undefined, dead);
    expect(r.status).toBe(502);
    expect(r.body.error.message).toContain('gone');
    expect(JSON.stringify(r.body)).not.toContain('sk-upstream-secret-gone');
  });

  it('502 when the upstream answers something that is not JSON', async () => {
    mock.failNext(200, '<html>proxy error page</html>', { 'content-type': 'text/html' });
    const r = await post({ model: 'gpt-4o', messages: USER });
    expect(r.status).toBe(502);
    mock.failNext(200, '[1,2,3]', { 'content-type': 'application/json' });
    expect((await post({ model: 'gpt-4o', messages: USER })).status).toBe(502);
  });

  it('a stream cut by the upstream ends with an in-band error, not a clean close', async () => {
    mock.breakStreamNext();
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'will break' }] }),
    });
    expect(res.status).toBe(200);
    const data = await readSSEData(res);
    expect(data).not.toContain('[DONE]');
    const last = JSON.parse(data.at(-1) as string) as ErrorBody;
    expect(last.error.type).toBe('upstream_error');
    expect(last.traceId).toBe(res.headers.get('x-trace-id'));
  });

  it('a stream the upstream ends without finishing (no finish_reason, no [DONE]) is an error too', async () => {
    const partial = `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: 'half' }, finish_reason: null }] })}\n\n`;
    mock.failNext(200, partial, { 'content-type': 'text/event-stream' });
    const client2 = new OpenAI({ baseURL: `${url}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
    const stream = await client2.chat.completions.create({ model: 'gpt-4o', stream: true, messages: USER });
    let text = '';
    const err = await (async () => {
      try {
        for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      } catch (e) {
        return e;
      }
      return undefined;
    })();
    expect(text).toBe('half');
    expect(err).toBeInstanceOf(OpenAI.APIError);
  });

  it('504 when the upstream does not answer in time (gateway-wide and per provider)', async () => {
    const slow = await start(openAIConfig(mock, { timeouts: { upstreamMs: 200, streamIdleMs: 300_000 } }));
    mock.hangNext(5_000);
    const r = await post({ model: 'gpt-4o', messages: USER }, undefined, slow);
    expect(r.status).toBe(504);
    expect(r.body.error.code).toBe('upstream_timeout');

    const cfg = openAIConfig(mock);
    const perProvider = await start({ ...cfg, providers: cfg.providers?.map((p) => ({ ...p, timeoutMs: 150 })) });
    mock.hangNext(5_000);
    const sdk = new OpenAI({ baseURL: `${perProvider}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
    const err = await sdkError(sdk.chat.completions.create({ model: 'gpt-4o', messages: USER }));
    expect(err.status).toBe(504);
  });

  it('keeps the status and message of upstream 4xx/5xx', async () => {
    const cases: Array<[number, string]> = [
      [400, "Invalid 'messages[0].content': string too long."],
      [404, 'The model `gpt-4o` does not exist or you do not have access to it.'],
      [422, 'Unprocessable thing.'],
      [429, 'Rate limit reached for gpt-4o on tokens per min.'],
      [500, 'The server had an error while processing your request.'],
      [503, 'The engine is currently overloaded.'],
    ];
    for (const [status, message] of cases) {
      mock.failNext(status, { error: { message, type: 'upstream_type', param: null, code: null } }, status === 429 ? { 'retry-after': '7' } : {});
      const r = await post({ model: 'gpt-4o', messages: USER });
      expect(r.status, message).toBe(status);
      expect(r.body.error.message).toContain(message);
      if (status === 429) expect(r.headers.get('retry-after')).toBe('7');
    }
  });

  it('redacts upstream credentials that an upstream error echoes', async () => {
    const leak = `Incorrect API key provided: ${mock.apiKey}. Header was "Authorization: Bearer ${mock.apiKey}".`;
    mock.failNext(401, { error: { message: leak, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    const r = await post({ model: 'gpt-4o', messages: USER });
    expect(r.status).toBeGreaterThanOrEqual(400);
    expect(JSON.stringify(r.body)).not.toContain(mock.apiKey);
    expect(r.body.error.message).toContain('[redacted]');

    mock.failNext(500, `plain text failure for key ${mock.apiKey} and sk-proj-abcdefghijklmnop1234`, { 'content-type': 'text/plain' });
    const r2 = await post({ model: 'gpt-4o', messages: USER });
    expect(r2.status).toBe(500);
    expect(JSON.stringify(r2.body)).not.toContain(mock.apiKey);
    expect(JSON.stringify(r2.body)).not.toContain('sk-proj-abcdefghijklmnop1234');
  });

  it('an upstream error before a stream starts keeps its status', async () => {
    mock.failNext(429, { error: { message: 'slow down', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const err = await sdkError(client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: USER }));
    expect(err).toBeInstanceOf(OpenAI.RateLimitError);
    expect(err.message).toContain('slow down');
  });
});
