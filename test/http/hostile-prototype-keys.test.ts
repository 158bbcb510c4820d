/**
 * Keys named `__proto__`, `constructor` and `prototype` are data. A fuzz over valid bodies of every
 * JSON endpoint (chat completions, Messages, generateContent, Responses, Interactions, the three
 * token counts, images), each sent to every kind of upstream, plants each key at every object of
 * the body, one at a time, through the shipped node server and upstream client:
 * - never a 500: a 200, or a 400 in the caller's shape;
 * - `__proto__` (which JSON.parse makes an own key that assigning or merging turns into a
 *   prototype) is refused with a 400 naming where it is, and nothing goes upstream;
 * - `constructor` / `prototype` where the protocol takes any key (a tool's JSON schema, tool-call
 *   arguments, metadata) are a 200 and reach the upstream as sent;
 * - Object.prototype is untouched afterwards.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-proto-keys-test-0001';
const POLLUTION = 'mg-polluted';
const KEYS = ['__proto__', 'constructor', 'prototype'] as const;
/** Requests in flight at once per fuzz case. */
const PARALLEL = 6;

let chat: MockOpenAI;
let responses: MockOpenAIResponses;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  [chat, responses, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockOpenAIResponses(), startMockAnthropic(), startMockGemini()]);
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'openai', type: 'openai', baseURL: chat.baseURL, apiKey: chat.apiKey },
        { id: 'openai-responses', type: 'openai', baseURL: responses.baseURL, apiKey: responses.apiKey },
        { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'mock', type: 'mock' },
      ],
      models: [
        { id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o' },
        { id: 'gpt-r', provider: 'openai-responses', upstreamModel: 'gpt-5', api: 'responses' },
        { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
        { id: 'gemini', provider: 'google', upstreamModel: 'gemini-2.5-flash' },
        { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
      ],
      retry: { attempts: 1 },
      keys: [{ id: 'caller', key: KEY }],
    },
    { env: {}, video: { pollerTickMs: false } },
  );
  server = await serve(gateway, { port: 0 });
});

afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([chat?.close(), responses?.close(), anthropic?.close(), gemini?.close()]);
});

const mocks = () => [chat, responses, anthropic, gemini];
const upstreamCalls = () => mocks().reduce((n, m) => n + m.requests.length, 0);
/** Every body the upstreams received since `counts` (each mock's request count) was taken. */
const sentSince = (counts: number[]) => mocks().flatMap((m, i) => m.requests.slice(counts[i]).map((r) => r.rawBody));

/** Runs `jobs` with at most PARALLEL in flight. */
async function inParallel(jobs: Array<() => Promise<void>>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) await (jobs[next++] as () => Promise<void>)();
  };
  await Promise.all(Array.from({ length: PARALLEL }, worker));
}

type Json = unknown;
type Shape = 'openai' | 'anthropic' | 'gemini';

interface Endpoint {
  name: string;
  shape: Shape;
  path(model: string): string;
  body(model: string): Json;
  /** Models (upstream kinds) the endpoint is fuzzed against. */
  models: string[];
}

const SCHEMA: Json = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
/** One model per upstream encoder: OpenAI chat, OpenAI Responses, Anthropic, Gemini. */
const TARGETS = ['gpt', 'gpt-r', 'claude', 'gemini'];

const ENDPOINTS: Endpoint[] = [
  {
    name: 'chat completions',
    shape: 'openai',
    models: TARGETS,
    path: () => '/v1/chat/completions',
    body: (model) => ({
      model,
      temperature: 0.5,
      stream_options: null,
      messages: [
        { role: 'system', content: 'be brief' },
        { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
        { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: 'sunny' },
      ],
      tools: [{ type: 'function', function: { name: 'get_weather', description: 'weather', parameters: SCHEMA } }],
      response_format: { type: 'json_schema', json_schema: { name: 'answer', schema: { type: 'object', properties: { text: { type: 'string' } } } } },
    }),
  },
  {
    name: 'Messages',
    shape: 'anthropic',
    models: TARGETS,
    path: () => '/v1/messages',
    body: (model) => ({
      model,
      max_tokens: 64,
      system: [{ type: 'text', text: 'be brief' }],
      metadata: { user_id: 'u1' },
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'weather?' }] },
        { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: [{ type: 'text', text: 'sunny' }] }] },
      ],
      tools: [{ name: 'get_weather', description: 'weather', input_schema: SCHEMA }],
      tool_choice: { type: 'auto' },
    }),
  },
  {
    name: 'generateContent',
    shape: 'gemini',
    models: TARGETS,
    path: (model) => `/v1beta/models/${model}:generateContent`,
    body: () => ({
      systemInstruction: { parts: [{ text: 'be brief' }] },
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
      ],
      tools: [{ functionDeclarations: [{ name: 'get_weather', description: 'weather', parameters: SCHEMA }] }],
      generationConfig: { temperature: 0.5, maxOutputTokens: 64 },
    }),
  },
  {
    name: 'Responses',
    shape: 'openai',
    models: ['gpt-r', 'claude', 'gemini'],
    path: () => '/v1/responses',
    body: (model) => ({
      model,
      instructions: 'be brief',
      store: false,
      metadata: { team: 'a' },
      input: [
        { role: 'user', content: [{ type: 'input_text', text: 'weather?' }] },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call_output', call_id: 'call_1', output: 'sunny' },
      ],
      tools: [{ type: 'function', name: 'get_weather', description: 'weather', parameters: SCHEMA, strict: false }],
      text: { format: { type: 'text' } },
    }),
  },
  {
    name: 'Interactions',
    shape: 'gemini',
    models: TARGETS,
    path: () => '/v1beta/interactions',
    body: (model) => ({
      model,
      store: false,
      system_instruction: 'be brief',
      input: [
        { type: 'user_input', content: [{ type: 'text', text: 'weather?' }] },
        { type: 'function_call', id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } },
        { type: 'function_result', call_id: 'call_1', name: 'get_weather', result: 'sunny' },
      ],
      tools: [{ type: 'function', name: 'get_weather', description: 'weather', parameters: SCHEMA }],
      generation_config: { temperature: 0.5, max_output_tokens: 64 },
    }),
  },
  {
    name: 'Messages count_tokens',
    shape: 'anthropic',
    models: ['claude', 'gemini', 'gpt'],
    path: () => '/v1/messages/count_tokens',
    body: (model) => ({
      model,
      system: [{ type: 'text', text: 'be brief' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'weather?' }] }],
      tools: [{ name: 'get_weather', description: 'weather', input_schema: SCHEMA }],
    }),
  },
  {
    name: 'Gemini countTokens',
    shape: 'gemini',
    models: ['gemini', 'claude', 'gpt'],
    path: (model) => `/v1beta/models/${model}:countTokens`,
    body: () => ({ contents: [{ role: 'user', parts: [{ text: 'weather?' }] }] }),
  },
  {
    name: 'Responses input_tokens',
    shape: 'openai',
    models: ['gpt-r', 'claude', 'gemini'],
    path: () => '/v1/responses/input_tokens',
    body: (model) => ({ model, input: [{ role: 'user', content: [{ type: 'input_text', text: 'weather?' }] }], tools: [{ type: 'function', name: 'get_weather', parameters: SCHEMA }] }),
  },
  {
    name: 'images',
    shape: 'openai',
    models: ['mock-image'],
    path: () => '/v1/images/generations',
    body: (model) => ({ model, prompt: 'a kite', n: 1, size: '256x256' }),
  },
];

/** Paths (as key lists) of every object in a JSON value, the root first. */
function objectPaths(value: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (value === null || typeof value !== 'object') return [];
  const own = Array.isArray(value) ? [] : [at];
  const children = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [...own, ...children.flatMap(([k, v]) => objectPaths(v, [...at, k]))];
}

/**
 * What `key` carries at `path`, marked with `marker` so the upstream bodies can be searched for it:
 * under a JSON schema's `properties` a property schema (what the position takes, so the upstream
 * accepts it), elsewhere what would pollute Object.prototype (or switch on streaming) if it were
 * merged into an object.
 */
function payloadFor(key: string, path: Array<string | number>, marker: string): Json {
  if (path.at(-1) === 'properties') return { type: 'string', description: marker };
  if (key === '__proto__') return { polluted: marker, stream: true };
  if (key === 'constructor') return { prototype: { polluted: marker } };
  return { polluted: marker };
}

function copyOf(body: Json): Json {
  return JSON.parse(JSON.stringify(body)) as Json;
}

function nodeAt(root: Json, path: Array<string | number>): Record<string | number, Json> {
  let node = root as Record<string | number, Json>;
  for (const k of path) node = node[k] as Record<string | number, Json>;
  return node;
}

/** The body's JSON text with `key` (an own key, as JSON.parse makes it) added to the object at `path`. */
function planted(body: Json, path: Array<string | number>, key: string, marker: string): string {
  const copy = copyOf(body);
  Object.defineProperty(nodeAt(copy, path), key, { value: payloadFor(key, path, marker), enumerable: true, writable: true, configurable: true });
  return JSON.stringify(copy);
}

/** Paths of every string in a JSON value. */
function stringPaths(value: Json, at: Array<string | number> = []): Array<Array<string | number>> {
  if (typeof value === 'string') return [at];
  if (value === null || typeof value !== 'object') return [];
  const children = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return children.flatMap(([k, v]) => stringPaths(v as Json, [...at, k]));
}

/** The body's JSON text with the string at `path` replaced by `text`. */
function replaced(body: Json, path: Array<string | number>, text: string): string {
  const copy = copyOf(body);
  nodeAt(copy, path.slice(0, -1))[path.at(-1) as string | number] = text;
  return JSON.stringify(copy);
}

function pathText(path: Array<string | number>): string {
  return path.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

/** Where the protocol takes any key: a JSON schema's properties, tool-call arguments and results, metadata. */
function isDataObject(path: Array<string | number>): boolean {
  const last = path.at(-1);
  return last === 'properties' || last === 'args' || last === 'arguments' || last === 'input' && path.includes('content');
}

async function post(path: string, text: string): Promise<{ status: number; body: Record<string, unknown>; raw: string }> {
  const res = await fetch(`${server.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'x-api-key': KEY, 'x-goog-api-key': KEY, 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
    body: text,
  });
  const raw = await res.text();
  let body: Record<string, unknown> = {};
  try {
    body = JSON.parse(raw) as Record<string, unknown>;
  } catch {
    // a stream or a non-JSON answer: judged by status only
  }
  return { status: res.status, body, raw };
}

function errorMessage(shape: Shape, body: Record<string, unknown>): string | undefined {
  const error = body.error as { message?: unknown } | undefined;
  if (shape === 'anthropic' && body.type !== 'error') return undefined;
  return typeof error?.message === 'string' ? error.message : undefined;
}

function expectNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  expect(probe.polluted).toBeUndefined();
  expect(Object.prototype.hasOwnProperty.call(Object.prototype, 'polluted')).toBe(false);
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(PROTOTYPE_NAMES);
}
const PROTOTYPE_NAMES = Object.getOwnPropertyNames(Object.prototype).sort();

describe('prototype-named keys at every depth of every JSON endpoint', () => {
  for (const ep of ENDPOINTS) {
    for (const model of ep.models) {
      it(`${ep.name} -> ${model}: never a 500; __proto__ is a 400 naming it, constructor/prototype are data`, async () => {
        const base = ep.body(model);
        const paths = objectPaths(base);
        expect(paths.length).toBeGreaterThan(0);
        // The unplanted body is served: the fuzz starts from valid requests.
        const clean = await post(ep.path(model), JSON.stringify(base));
        expect(clean.status, clean.raw).toBe(200);
        const failures: string[] = [];
        const counts = mocks().map((m) => m.requests.length);
        const forwarded: Array<{ where: string; key: string; marker: string }> = [];
        const refused: Array<{ where: string; marker: string }> = [];
        const jobs = paths.flatMap((path, p) =>
          KEYS.map((key) => async () => {
            const marker = `${POLLUTION}-${p}-${key}`;
            const r = await post(ep.path(model), planted(base, path, key, marker));
            const where = `${key} at ${pathText(path) || '(top level)'}`;
            const message = errorMessage(ep.shape, r.body);
            if (r.status !== 200 && r.status !== 400) failures.push(`${where}: ${r.status} ${r.raw.slice(0, 200)}`);
            else if (r.status === 400 && message === undefined) failures.push(`${where}: a 400 not in the ${ep.shape} shape: ${r.raw.slice(0, 200)}`);
            else if (key === '__proto__') {
              const named = message?.includes(`'__proto__' (at ${pathText([...path, '__proto__'])})`);
              if (r.status !== 400 || !named) failures.push(`${where}: expected a 400 naming it, got ${r.status} ${r.raw.slice(0, 200)}`);
              refused.push({ where, marker });
            } else if (isDataObject(path)) {
              if (r.status !== 200) failures.push(`${where}: data refused: ${r.status} ${r.raw.slice(0, 200)}`);
              else forwarded.push({ where, key, marker });
            }
            expectNoPollution();
          }),
        );
        await inParallel(jobs);
        const sent = sentSince(counts);
        for (const { where, marker } of refused) if (sent.some((b) => b.includes(marker))) failures.push(`${where}: refused, yet sent upstream`);
        // Only where an upstream was called (count_tokens of a vendor without a counting endpoint is estimated).
        if (sent.length > 0) {
          for (const { where, key, marker } of forwarded) {
            const body = sent.find((b) => b.includes(marker));
            if (!body || !(body.includes(`"${key}":`) || body.includes(`\\"${key}\\":`))) failures.push(`${where}: not forwarded as sent: ${body?.slice(0, 300)}`);
          }
        }
        expect(failures.join('\n')).toBe('');
      });
    }
  }
});

describe('prototype names as values (roles, types, levels, model ids) of every JSON endpoint', () => {
  // Values are read by the caller's protocol decoder whatever the upstream: one target each.
  for (const ep of ENDPOINTS) {
    const model = ep.models[0] as string;
    it(`${ep.name} -> ${model}: each string set to __proto__ / constructor / prototype is never a 500`, async () => {
      const base = ep.body(model);
      const failures: string[] = [];
      await inParallel(
        stringPaths(base).flatMap((path) =>
          KEYS.map((name) => async () => {
            const r = await post(ep.path(model), replaced(base, path, name));
            const where = `'${name}' as ${pathText(path)}`;
            if (![200, 400, 404].includes(r.status)) failures.push(`${where}: ${r.status} ${r.raw.slice(0, 200)}`);
            else if (r.status !== 200 && errorMessage(ep.shape, r.body) === undefined) failures.push(`${where}: a ${r.status} not in the ${ep.shape} shape: ${r.raw.slice(0, 200)}`);
            expectNoPollution();
          }),
        ),
      );
      for (const name of KEYS) {
        // The model carried in the path (Gemini) or the body.
        const r = await post(ep.path(name), JSON.stringify(ep.body(name)));
        if (r.status !== 404 || !errorMessage(ep.shape, r.body)?.includes(name)) failures.push(`model '${name}': ${r.status} ${r.raw.slice(0, 200)}`);
      }
      expect(failures.join('\n')).toBe('');
    });
  }
});

describe('through the official SDKs, and spelt with escapes', () => {
  it('Anthropic SDK: a tool whose schema has `constructor` and `prototype` properties reaches the upstream as sent', async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
    const before = anthropic.requests.length;
    const properties = { constructor: { type: 'string' }, prototype: { type: 'object', properties: { polluted: { type: 'string' } } } };
    const message = await client.messages.create({
      model: 'claude',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'build', input_schema: { type: 'object', properties } }],
    });
    expect(message.type).toBe('message');
    expect(anthropic.requests.length).toBe(before + 1);
    const sent = anthropic.requests.at(-1)?.body as { tools: Array<{ input_schema: { properties: unknown } }> };
    expect(sent.tools[0]?.input_schema.properties).toEqual(properties);
    expectNoPollution();
  });

  it('Anthropic SDK: the same tool translated to Gemini keeps both properties', async () => {
    const client = new Anthropic({ baseURL: server.url, apiKey: KEY, maxRetries: 0 });
    await client.messages.create({
      model: 'gemini',
      max_tokens: 32,
      messages: [{ role: 'user', content: 'hi' }],
      tools: [{ name: 'build', input_schema: { type: 'object', properties: { constructor: { type: 'string' }, prototype: { type: 'string' } } } }],
    });
    const sent = gemini.requests.at(-1)?.body as { tools: Array<{ functionDeclarations: Array<{ parameters?: { properties: object }; parametersJsonSchema?: { properties: object } }> }> };
    const decl = sent.tools[0]?.functionDeclarations[0];
    expect(Object.keys((decl?.parameters ?? decl?.parametersJsonSchema)?.properties ?? {}).sort()).toEqual(['constructor', 'prototype']);
  });

  it('OpenAI SDK: a `__proto__` key is refused with a 400 naming where it is', async () => {
    const client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: KEY, maxRetries: 0 });
    const before = upstreamCalls();
    const part = { type: 'text', text: 'hi', ['__proto__']: { polluted: POLLUTION } } as OpenAI.ChatCompletionContentPartText;
    const err = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: [part] }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    expect((err as InstanceType<typeof OpenAI.BadRequestError>).error).toMatchObject({ param: 'messages[0].content[0].__proto__', code: 'forbidden_key' });
    expect(upstreamCalls()).toBe(before);
    expectNoPollution();
  });

  it('a `__proto__` spelt with JSON escapes is the same key', async () => {
    const before = upstreamCalls();
    const r = await post('/v1/messages', '{"model":"claude","max_tokens":8,"messages":[{"role":"user","content":"hi"}],"metadata":{"\\u005f_pr\\u006fto__":{"user_id":"x"}}}');
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
    expect(errorMessage('anthropic', r.body)).toContain('metadata.__proto__');
    expect(upstreamCalls()).toBe(before);
  });

  it('`__proto__` inside a string (a message about JavaScript) is text, not a key', async () => {
    const r = await post('/v1/chat/completions', JSON.stringify({ model: 'gpt', messages: [{ role: 'user', content: 'what does {"__proto__": {}} do?' }] }));
    expect(r.status).toBe(200);
    expect(chat.requests.at(-1)?.rawBody).toContain('{\\"__proto__\\": {}}');
  });

  it('tool-call arguments and tool results holding prototype-named keys are forwarded as data, translated', async () => {
    const args = '{"__proto__":{"polluted":"mg-polluted"},"constructor":{"prototype":{"polluted":"mg-polluted"}}}';
    const r = await post(
      '/v1/chat/completions',
      JSON.stringify({
        model: 'claude',
        messages: [
          { role: 'user', content: 'go' },
          { role: 'assistant', content: null, tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'build', arguments: args } }] },
          { role: 'tool', tool_call_id: 'call_1', content: args },
        ],
      }),
    );
    expect(r.status).toBe(200);
    const sent = JSON.parse(anthropic.requests.at(-1)?.rawBody ?? '{}') as { messages: Array<{ content: Array<{ type: string; input?: object }> }> };
    const use = sent.messages[1]?.content.find((c) => c.type === 'tool_use');
    expect(Object.keys(use?.input ?? {}).sort()).toEqual(['__proto__', 'constructor']);
    expect(anthropic.requests.at(-1)?.rawBody).toContain('"__proto__":{"polluted":"mg-polluted"}');
    expectNoPollution();
  });

  it('images edits (multipart): a `__proto__` form field is refused like a JSON key; `constructor` is not mistaken for a repeat', async () => {
    const form = (extra: string) => {
      const f = new FormData();
      f.set('model', 'mock-image');
      f.set('prompt', 'a kite');
      f.set('image', new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), 'in.png');
      f.set(extra, 'x');
      return f;
    };
    const auth = { authorization: `Bearer ${KEY}` };
    const proto = await fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: auth, body: form('__proto__') });
    expect(proto.status).toBe(400);
    expect(((await proto.json()) as { error: { param: string; code: string } }).error).toMatchObject({ param: '__proto__', code: 'forbidden_key' });
    const ctor = await fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: auth, body: form('constructor') });
    const text = await ctor.text();
    expect(text).not.toContain('more than once');
    expect(ctor.status, text).toBe(200);
    expectNoPollution();
  });
});
