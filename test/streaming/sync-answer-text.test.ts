/**
 * A pass-through sync answer goes out as the upstream's text with the traceId appended
 * (upstreamJsonTextResponse) instead of being written out again (upstreamJsonResponse): both must
 * give the same JSON, with the same secrets scrubbed, and byte for byte the same text for an
 * upstream that writes compact JSON.
 */
import { describe, expect, it } from 'vitest';
import { createGateway } from '../../src/index.js';
import { upstreamJsonResponse, upstreamJsonTextResponse } from '../../src/endpoints/common.js';
import { appendTopLevelField } from '../../src/wire/json-splice.js';
import type { EndpointContext } from '../../src/endpoints/services.js';
import { seededRandom } from '../helpers/seeded-random.js';

describe('appendTopLevelField', () => {
  it('adds the member after the last one, keeping the text around it', () => {
    expect(appendTopLevelField('{"a":1}', 'traceId', '"t"')).toBe('{"a":1,"traceId":"t"}');
    expect(appendTopLevelField('{}', 'traceId', '"t"')).toBe('{"traceId":"t"}');
    expect(appendTopLevelField(' { \n } \n', 'traceId', '"t"')).toBe(' {"traceId":"t" \n } \n');
    expect(appendTopLevelField('{\n  "a": [1, {}],\n  "b": {"c": "}"}\n}\n', 'x', '2')).toBe('{\n  "a": [1, {}],\n  "b": {"c": "}"},"x":2\n}\n');
    expect(appendTopLevelField('{"a":"x"}\t\r\n ', 'k', 'null')).toBe('{"a":"x","k":null}\t\r\n ');
  });

  it('gives undefined for a text that is no object', () => {
    expect(appendTopLevelField('[1]', 'k', '1')).toBeUndefined();
    expect(appendTopLevelField('', 'k', '1')).toBeUndefined();
    expect(appendTopLevelField('}', 'k', '1')).toBeUndefined();
  });
});

const SECRETS = ['sk-upstream-secret-0001', 'caller-own-key-9999'];

function ctxOf(traceId: string, callerSecrets?: string[]): EndpointContext {
  const secrets = [SECRETS[0] as string, ...(callerSecrets ?? [])];
  return { traceId, services: { secrets: [SECRETS[0]] }, secrets, ...(callerSecrets ? { callerSecrets } : {}) } as unknown as EndpointContext;
}

/** A random JSON value; strings may hold a secret, escapes, non-ASCII and quotes. */
function randomValue(rand: () => number, depth: number): unknown {
  const r = rand();
  if (depth > 3 || r < 0.35) return randomScalar(rand);
  if (r < 0.6) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(rand, depth + 1));
  return randomObject(rand, depth + 1);
}

const PIECES = ['hello', ' ', 'wörld', '"', '\\', '\n', '\t', '}', '{', ',', ':', '/', '\u2028', '😀', '\u0001', 'traceId', SECRETS[0], SECRETS[1], 'sk-upstream'];

function randomScalar(rand: () => number): unknown {
  const r = rand();
  if (r < 0.5) return Array.from({ length: Math.floor(rand() * 5) }, () => PIECES[Math.floor(rand() * PIECES.length)]).join('');
  if (r < 0.7) return Math.floor(rand() * 1e6) / (rand() < 0.5 ? 1 : 1000);
  if (r < 0.8) return null;
  return rand() < 0.5;
}

function randomObject(rand: () => number, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const n = Math.floor(rand() * 5);
  for (let i = 0; i < n; i++) out[rand() < 0.05 ? 'traceId' : `k${Math.floor(rand() * 8)}`] = randomValue(rand, depth);
  return out;
}

/** The object as an upstream might write it: compact, indented, or with whitespace around the outside. */
function asUpstreamText(rand: () => number, json: Record<string, unknown>): string {
  const r = rand();
  if (r < 0.4) return JSON.stringify(json);
  if (r < 0.7) return JSON.stringify(json, null, 2);
  const text = JSON.stringify(json, null, rand() < 0.5 ? '\t' : undefined);
  return `${rand() < 0.5 ? ' \n' : ''}${text}${rand() < 0.5 ? '\n' : ' \r\n\t'}`;
}

describe('upstreamJsonTextResponse', () => {
  it('gives the JSON upstreamJsonResponse gives, over random answers (the same text for compact ones)', () => {
    const rand = seededRandom(1313);
    let spliced = 0;
    for (let i = 0; i < 3000; i++) {
      const source = randomObject(rand, 0);
      const text = asUpstreamText(rand, source);
      const ctx = ctxOf(`trace${i}`, rand() < 0.5 ? [SECRETS[1] as string] : undefined);
      const fast = upstreamJsonTextResponse(ctx, text, JSON.parse(text) as Record<string, unknown>);
      const slow = upstreamJsonResponse(ctx, JSON.parse(text) as Record<string, unknown>);
      expect(fast.status).toBe(slow.status);
      expect([...fast.headers]).toEqual([...slow.headers]);
      const fastText = fast.body as string;
      const slowText = slow.body as string;
      if (fastText !== slowText) spliced++;
      // A scrubbed secret may cut an escape in two in both (a '\\' piece before it): compare the JSON when both parse.
      let slowJson: unknown;
      try {
        slowJson = JSON.parse(slowText);
      } catch {
        expect(() => JSON.parse(fastText)).toThrow();
        continue;
      }
      expect(JSON.parse(fastText)).toEqual(slowJson);
      for (const s of ctx.callerSecrets ? SECRETS : SECRETS.slice(0, 1)) expect(fastText).not.toContain(s);
      if (text === JSON.stringify(source)) expect(fastText).toBe(slowText);
      expect(fastText.match(/"traceId":"trace\d+"/g)).toHaveLength(1);
    }
    // The fast path did run on the answers that are not compact.
    expect(spliced).toBeGreaterThan(300);
  });

  it('keeps only the gateway traceId when the upstream sent one', () => {
    const text = '{"traceId":"theirs","a":1,"traceId":"again"}';
    const reply = upstreamJsonTextResponse(ctxOf('ours'), text, JSON.parse(text) as Record<string, unknown>);
    expect(reply.body).toBe('{"traceId":"ours","a":1}');
  });

  it('writes out again an answer with \\u or \\/ escapes (a secret may hide in them)', () => {
    const escaped = `{"a":"${SECRETS[0]?.replace('s', '\\u0073')}","b":"x\\/y"}`;
    const reply = upstreamJsonTextResponse(ctxOf('t'), escaped, JSON.parse(escaped) as Record<string, unknown>);
    expect(reply.body).toBe('{"a":"[redacted]","b":"x/y","traceId":"t"}');
  });
});

describe('a pass-through sync answer', () => {
  const answer = (text: string) =>
    createGateway(
      {
        providers: [{ id: 'up', type: 'openai', baseURL: 'http://up.test/v1', apiKey: SECRETS[0] as string }],
        models: [{ id: 'm', provider: 'up', upstreamModel: 'gpt-x' }],
        keys: [{ id: 'k', key: 'mg-key-000000001', models: ['*'] }],
      },
      { env: {}, fetch: async () => new Response(text, { headers: { 'content-type': 'application/json' } }) },
    );
  const send = async (text: string) => {
    const gateway = answer(text);
    const res = await gateway.handle(
      new Request('http://gw.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: 'Bearer mg-key-000000001', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    await gateway.close();
    return { status: res.status, traceId: res.headers.get('x-trace-id'), text: await res.text() };
  };

  it('is the upstream text with the traceId, secrets scrubbed', async () => {
    const upstream = `{\n  "id": "c1",\n  "object": "chat.completion",\n  "choices": [{"index": 0, "message": {"role": "assistant", "content": "key ${SECRETS[0]}\\n"}, "finish_reason": "stop"}],\n  "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}\n}\n`;
    const { status, traceId, text } = await send(upstream);
    expect(status).toBe(200);
    expect(text).toBe(upstream.replace(SECRETS[0] as string, '[redacted]').replace('3}\n}', `3},"traceId":"${traceId}"\n}`));
  });

  it('adds the traceId to an answer with nothing else, and replaces an upstream traceId', async () => {
    const bare = await send('{"choices":[] }');
    expect(bare.text).toBe(`{"choices":[],"traceId":"${bare.traceId}" }`);
    const theirs = await send('{"traceId": "theirs", "id": "c1", "choices": []}');
    expect(JSON.parse(theirs.text)).toEqual({ traceId: theirs.traceId, id: 'c1', choices: [] });
  });

  it('is still a 502 when the answer is no object', async () => {
    for (const text of ['[1, 2]', '"text"', '12', 'null', '{"a":', '']) expect((await send(text)).status).toBe(502);
  });

  it('is a 502 with the upstream message, not a 200, when the object is no chat answer (an error sent with 200)', async () => {
    for (const text of ['{ }', '{"choices":"nope","content":42}', `{"error":{"message":"The server had an error (key ${SECRETS[0]})","type":"server_error"}}`]) {
      const { status, text: body } = await send(text);
      expect(status, text).toBe(502);
      const error = (JSON.parse(body) as { error: { message: string } }).error;
      expect(error.message).toContain('answered 200 without an answer');
      expect(body).not.toContain(SECRETS[0] as string);
    }
    expect(JSON.parse((await send('{"error":{"message":"The server had an error"}}')).text).error.message).toContain('The server had an error');
  });
});

describe('a 200 error body on the other pass-through protocols', () => {
  const gatewayAnswering = (text: string) =>
    createGateway(
      {
        providers: [
          { id: 'oai', type: 'openai', baseURL: 'http://up.test/v1', apiKey: 'sk-upstream-0000000001' },
          { id: 'ant', type: 'anthropic', baseURL: 'http://up.test', apiKey: 'sk-ant-upstream-000001' },
          { id: 'gem', type: 'gemini', baseURL: 'http://up.test', apiKey: 'gem-upstream-key-000001' },
        ],
        models: [
          { id: 'resp', provider: 'oai', upstreamModel: 'gpt-x' },
          { id: 'claude', provider: 'ant', upstreamModel: 'claude-x' },
          { id: 'gemini', provider: 'gem', upstreamModel: 'gemini-x' },
        ],
        keys: [{ id: 'k', key: 'mg-key-000000002', models: ['*'] }],
        retry: { attempts: 1 },
      },
      { env: {}, fetch: async () => new Response(text, { headers: { 'content-type': 'application/json' } }) },
    );

  it('Responses: a 502, and nothing is stored under a response id', async () => {
    const gateway = gatewayAnswering('{"error":{"message":"The server had an error","type":"server_error"}}');
    try {
      const res = await gateway.handle(new Request('http://gw.test/v1/responses', { method: 'POST', headers: { authorization: 'Bearer mg-key-000000002', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'resp', input: 'hi' }) }));
      expect(res.status).toBe(502);
      const body = (await res.json()) as { id?: string; error: { message: string } };
      expect(body.id).toBeUndefined();
      expect(body.error.message).toContain('The server had an error');
    } finally {
      await gateway.close();
    }
  });

  it('a stream request answered with JSON (an error sent with 200) is a 502 before any event, pass-through and translated', async () => {
    const gateway = gatewayAnswering('{"error":{"message":"The server had an error","type":"server_error"}}');
    try {
      const chat = await gateway.handle(new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: { authorization: 'Bearer mg-key-000000002', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'resp', stream: true, messages: [{ role: 'user', content: 'hi' }] }) }));
      expect(chat.status).toBe(502);
      expect(chat.headers.get('content-type')).toContain('application/json');
      expect(((await chat.json()) as { error: { message: string } }).error.message).toContain('The server had an error');
      const translated = await gateway.handle(new Request('http://gw.test/v1/messages', { method: 'POST', headers: { 'x-api-key': 'mg-key-000000002', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'resp', stream: true, max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }) }));
      expect(translated.status).toBe(502);
      expect(await translated.json()).toMatchObject({ type: 'error', error: { message: expect.stringContaining('The server had an error') } });
    } finally {
      await gateway.close();
    }
  });

  it('Anthropic Messages and Gemini: a 502 in the caller shape', async () => {
    const anthropic = gatewayAnswering('{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}');
    const gemini = gatewayAnswering('{"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}');
    try {
      const a = await anthropic.handle(new Request('http://gw.test/v1/messages', { method: 'POST', headers: { 'x-api-key': 'mg-key-000000002', 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'claude', max_tokens: 8, messages: [{ role: 'user', content: 'hi' }] }) }));
      expect(a.status).toBe(502);
      expect(await a.json()).toMatchObject({ type: 'error', error: { type: 'api_error', message: expect.stringContaining('Overloaded') } });
      const g = await gemini.handle(new Request('http://gw.test/v1beta/models/gemini:generateContent', { method: 'POST', headers: { 'x-goog-api-key': 'mg-key-000000002', 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) }));
      expect(g.status).toBe(502);
      expect(await g.json()).toMatchObject({ error: { code: 502, message: expect.stringContaining('Internal error') } });
    } finally {
      await anthropic.close();
      await gemini.close();
    }
  });
});
