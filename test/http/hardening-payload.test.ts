/**
 * Hostile request bodies get a clear 400, never a 500, and never reach an upstream:
 * - duplicate top-level keys (the splicer rewrote the first `model`, routing used the last) on
 *   every JSON endpoint;
 * - nesting past MAX_JSON_DEPTH (100k levels overflowed JSON.stringify and the recursive walkers),
 *   also inside JSON carried in strings (tool-call arguments, tool results);
 * - caller input echoed in error messages is cut to a readable length.
 * Each for the OpenAI, Anthropic and Gemini routes (and images / video where they apply).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { inspectJson, MAX_JSON_DEPTH } from '../../src/wire/json-guard.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const KEY = 'mg-payload-test-key-0001';
const DEEP = 100_000;
const deepObject = (n: number) => `${'{"a":'.repeat(n)}1${'}'.repeat(n)}`;
const deepArray = (n: number) => `${'['.repeat(n)}${']'.repeat(n)}`;

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'mock', type: 'mock' },
      ],
      models: [
        { id: 'gpt-4o', provider: 'openai' },
        { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
        { id: 'gemini-2.5-flash', provider: 'google' },
        { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
        { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
      ],
      keys: [{ id: 'caller', key: KEY }],
    },
    { env: {}, video: { pollerTickMs: false } },
  );
});

afterAll(async () => {
  await gateway.close();
  await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
});

const upstreamCalls = () => openai.requests.length + anthropic.requests.length + gemini.requests.length;

async function post(path: string, body: string): Promise<{ status: number; text: string }> {
  const res = await gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body,
    }),
  );
  return { status: res.status, text: await res.text() };
}

const ENDPOINTS: Array<[string, string, string]> = [
  ['OpenAI chat', '/v1/chat/completions', '"model":"gpt-4o","messages":[{"role":"user","content":"hi"}]'],
  ['Anthropic messages', '/v1/messages', '"model":"claude","max_tokens":16,"messages":[{"role":"user","content":"hi"}]'],
  ['Anthropic count_tokens', '/v1/messages/count_tokens', '"model":"claude","messages":[{"role":"user","content":"hi"}]'],
  ['Gemini generateContent', '/v1beta/models/gemini-2.5-flash:generateContent', '"contents":[{"role":"user","parts":[{"text":"hi"}]}]'],
  ['Gemini countTokens', '/v1beta/models/gemini-2.5-flash:countTokens', '"contents":[{"role":"user","parts":[{"text":"hi"}]}]'],
  ['images generations', '/v1/images/generations', '"model":"mock-image","prompt":"a kite"'],
  ['images edits (JSON)', '/v1/images/edits', '"model":"mock-image","prompt":"a kite","images":[{"image_url":"data:image/png;base64,iVBORw0KGgo="}]'],
  ['video generations', '/v1/video/generations', '"model":"mock-video","prompt":"a cat"'],
  ['Responses', '/v1/responses', '"model":"claude","input":"hi"'],
  ['Responses input_tokens', '/v1/responses/input_tokens', '"model":"claude","input":"hi"'],
  ['Interactions', '/v1beta/interactions', '"model":"claude","input":"hi"'],
];

describe('duplicate top-level keys are refused on every JSON endpoint', () => {
  for (const [name, path, fields] of ENDPOINTS) {
    const key = path.startsWith('/v1beta/models/') ? 'contents' : 'model';
    const second = key === 'contents' ? '"contents":[{"role":"user","parts":[{"text":"other"}]}]' : '"model":"not-resolved"';
    it(`${name}: a second '${key}' is a 400 naming it, and nothing goes upstream`, async () => {
      const before = upstreamCalls();
      const r = await post(path, `{${fields},${second}}`);
      expect(r.status).toBe(400);
      expect(r.text).toContain(`the top-level key '${key}' more than once`);
      expect(upstreamCalls()).toBe(before);
    });
  }

  it('an escaped spelling of the same key is the same key', async () => {
    const r = await post('/v1/chat/completions', '{"model":"gpt-4o","messages":[{"role":"user","content":"hi"}],"mod\\u0065l":"other"}');
    expect(r.status).toBe(400);
    const body = JSON.parse(r.text) as { error: { param: string; code: string } };
    expect(body.error).toMatchObject({ param: 'model', code: 'duplicate_key' });
  });

  it('the scan: only top-level keys count; strings with quotes, escapes and braces do not confuse it', () => {
    expect(inspectJson('{"a":{"x":1,"x":2},"b":[{"y":1},{"y":2}]}').duplicateKey).toBeUndefined();
    expect(inspectJson('{"a":"}\\"{,\\"a\\":","b":"\\\\","a":1}').duplicateKey).toBe('a');
    expect(inspectJson('{"a":"x","b":{"a":1}}').duplicateKey).toBeUndefined();
  });
});

describe(`nesting deeper than ${MAX_JSON_DEPTH} levels is a 400 naming the limit`, () => {
  const expectTooDeep = (r: { status: number; text: string }) => {
    expect(r.status).toBe(400);
    expect(r.text).toContain(`deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  };

  for (const [name, path, fields] of ENDPOINTS) {
    it(`${name}: ${DEEP} levels in the body`, async () => {
      const before = upstreamCalls();
      expectTooDeep(await post(path, `{${fields},"metadata":${deepArray(DEEP)}}`));
      expect(upstreamCalls()).toBe(before);
    });
  }

  it('OpenAI client -> Anthropic upstream: a deep tool schema (serialized again for the upstream)', async () => {
    expectTooDeep(await post('/v1/chat/completions', `{"model":"claude","messages":[{"role":"user","content":"hi"}],"tools":[{"type":"function","function":{"name":"f","parameters":${deepObject(DEEP)}}}]}`));
  });

  it('Anthropic count_tokens estimated locally (recursive walker): a deep tool_use input', async () => {
    const body = `{"model":"gpt-4o","messages":[{"role":"user","content":"hi"},{"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"f","input":${deepObject(DEEP)}}]}]}`;
    expectTooDeep(await post('/v1/messages/count_tokens', body));
  });

  it('Gemini client -> OpenAI upstream: a deep parametersJsonSchema (schema dialect walker)', async () => {
    const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":${deepObject(DEEP)}}]}]}`;
    const r = await post('/v1beta/models/gpt-4o:generateContent', body);
    expectTooDeep(r);
  });

  const toolTurn = (args: string, result: string) =>
    JSON.stringify({
      messages: [
        { role: 'user', content: 'hi' },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'f', arguments: args } }] },
        { role: 'tool', tool_call_id: 'call_1', content: result },
      ],
    }).slice(1, -1);

  it('JSON inside strings: deep tool-call arguments to Anthropic and Gemini upstreams', async () => {
    for (const model of ['claude', 'gemini-2.5-flash']) {
      const r = await post('/v1/chat/completions', `{"model":"${model}",${toolTurn(deepObject(DEEP), '"ok"')}}`);
      expectTooDeep(r);
      expect(r.text).toContain('The tool call arguments');
    }
  });

  it('JSON inside strings: a deep tool result to a Gemini upstream', async () => {
    const r = await post('/v1/chat/completions', `{"model":"gemini-2.5-flash",${toolTurn('{}', deepArray(DEEP))}}`);
    expectTooDeep(r);
    expect(r.text).toContain('The tool result');
  });

  it('a schema nested well within the limit still goes through a translated path', async () => {
    let schema = '{"type":"string"}';
    for (let i = 0; i < 50; i++) schema = `{"type":"object","properties":{"p":${schema}}}`;
    const body = `{"contents":[{"role":"user","parts":[{"text":"hi"}]}],"tools":[{"functionDeclarations":[{"name":"f","parametersJsonSchema":${schema}}]}]}`;
    expect(inspectJson(body).tooDeep).toBe(false);
    const r = await post('/v1beta/models/gpt-4o:generateContent', body);
    expect(r.status).toBe(200);
  });

  it('the limit is exact', () => {
    expect(inspectJson(deepArray(MAX_JSON_DEPTH)).tooDeep).toBe(false);
    expect(inspectJson(deepArray(MAX_JSON_DEPTH + 1)).tooDeep).toBe(true);
  });
});

describe('caller input echoed in error messages is cut short', () => {
  const HUGE = 'x'.repeat(1 << 20);
  const expectShort = (r: { status: number; text: string }, status: number) => {
    expect(r.status).toBe(status);
    expect(r.text.length).toBeLessThan(2000);
    expect(r.text).toContain(`'${'x'.repeat(120)}…'`);
  };

  it('OpenAI route: a 1 MiB model id', async () => {
    expectShort(await post('/v1/chat/completions', JSON.stringify({ model: HUGE, messages: [{ role: 'user', content: 'hi' }] })), 400);
  });

  it('OpenAI route: a 1 MiB key in a validated map (zod path and param)', async () => {
    const r = await post('/v1/chat/completions', JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }], logit_bias: { [HUGE]: 1 } }));
    expect(r.status).toBe(400);
    expect(r.text.length).toBeLessThan(2000);
    const param = (JSON.parse(r.text) as { error: { param: string } }).error.param;
    expect(param).toBe(`logit_bias.${'x'.repeat(120 - 'logit_bias.'.length)}…`);
  });

  it('Anthropic route: a 1 MiB model id', async () => {
    expectShort(await post('/v1/messages', JSON.stringify({ model: HUGE, max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] })), 400);
  });

  it('ids of stored objects, in the path and in the body (responses, interactions, video tasks)', async () => {
    const LONG = 'x'.repeat(10_000);
    const get = async (path: string) => {
      const res = await gateway.handle(new Request(`http://gateway.test${path}`, { headers: { authorization: `Bearer ${KEY}`, 'anthropic-version': '2023-06-01' } }));
      return { status: res.status, text: await res.text() };
    };
    expectShort(await get(`/v1/responses/${LONG}`), 404);
    expectShort(await get(`/v1/responses/${LONG}/input_items`), 404);
    expectShort(await get(`/v1beta/interactions/${LONG}`), 404);
    expectShort(await get(`/v1/video/generations/${LONG}`), 404);
    expectShort(await post('/v1/responses', JSON.stringify({ model: 'claude', input: 'hi', previous_response_id: LONG })), 404);
    expectShort(await post('/v1beta/interactions', JSON.stringify({ model: 'claude', input: 'hi', previous_interaction_id: LONG })), 404);
  });

  it('Gemini route: a 1 MiB model name in the path, and a 1 MiB thinkingLevel', async () => {
    expectShort(await post(`/v1beta/models/${HUGE}:generateContent`, JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] })), 400);
    const body = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { thinkingConfig: { thinkingLevel: HUGE } } });
    expectShort(await post('/v1beta/models/gpt-4o:generateContent', body), 400);
  });
});
