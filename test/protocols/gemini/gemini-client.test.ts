/**
 * The official @google/genai client against the gateway (node:http adapter):
 * (a) pass-through to the strict mock Gemini upstream and (b) translated to the mock OpenAI upstream.
 */
import { ApiError, type Content, type GoogleGenAI, type Tool } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_KEY_ALL, GEMINI_KEY_LIMITED, startGeminiTestbed, type GeminiTestbed } from '../../helpers/gemini-gateway.js';
import { mockSignature } from '../../helpers/mock-anthropic-validate.js';

let tb: GeminiTestbed;
let ai: GoogleGenAI;

beforeAll(async () => {
  tb = await startGeminiTestbed();
  ai = tb.client();
});
afterAll(async () => {
  await tb?.close();
});

const PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==';
const PDF = 'JVBERi0xLjQKJcfsj6IKMSAwIG9iago8PD4+CmVuZG9iagp0cmFpbGVyCjw8Pj4KJSVFT0YK';

const weatherTools: Tool[] = [
  {
    functionDeclarations: [
      { name: 'get_weather', description: 'Weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } }, required: ['city'] } },
      { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { utc: { type: 'boolean' } } } },
    ],
  },
];

async function expectApiError(p: Promise<unknown>, status: number): Promise<{ error: { code: number; status: string; message: string } }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ApiError);
  expect((err as ApiError).status).toBe(status);
  const body = JSON.parse((err as ApiError).message) as { error: { code: number; status: string; message: string } };
  expect(body.error.code).toBe(status);
  return body;
}

async function post(path: string, body: string, headers: Record<string, string> = { 'x-goog-api-key': GEMINI_KEY_ALL }): Promise<Response> {
  return fetch(`${tb.server.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
}

describe.each([
  { name: 'pass-through to Gemini', model: 'gemini-2.5-flash', vendor: 'gemini' },
  { name: 'translated to OpenAI', model: 'gpt-4o', vendor: 'openai' },
  { name: 'translated to Anthropic', model: 'claude-sonnet', vendor: 'anthropic' },
])('$name', ({ model, vendor }) => {
  it('generateContent: text, finish, usage', async () => {
    const r = await ai.models.generateContent({ model, contents: 'hello there', config: { systemInstruction: 'be brief', temperature: 0.5 } });
    expect(r.text).toBe(`[${vendor}] you said: hello there`);
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
    expect(r.modelVersion).toContain(model);
  });

  it('generateContentStream: word chunks, finish and usage on the last chunk', async () => {
    const chunks = [];
    for await (const c of await ai.models.generateContentStream({ model, contents: 'stream me' })) chunks.push(c);
    expect(chunks.map((c) => c.text ?? '').join('')).toBe(`[${vendor}] you said: stream me`);
    expect(chunks.length).toBeGreaterThanOrEqual(5);
    const last = chunks.at(-1)!;
    expect(last.candidates?.[0]?.finishReason).toBe('STOP');
    expect(last.usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
    expect(new Set(chunks.map((c) => c.responseId)).size).toBe(1);
  });

  it('streams a JSON array without alt=sse', async () => {
    const res = await post(`/v1beta/models/${model}:streamGenerateContent`, JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'array please' }] }] }));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    const arr = (await res.json()) as Array<{ candidates: Array<{ content: { parts: Array<{ text?: string }> }; finishReason?: string }> }>;
    expect(arr.map((c) => c.candidates[0]!.content.parts.map((p) => p.text ?? '').join('')).join('')).toBe(`[${vendor}] you said: array please`);
    expect(arr.at(-1)!.candidates[0]!.finishReason).toBe('STOP');
  });

  it('function calling with a functionResponse follow-up', async () => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather and time?' }] }];
    const first = await ai.models.generateContent({ model, contents, config: { tools: weatherTools } });
    const calls = first.functionCalls ?? [];
    expect(calls.map((c) => [c.name, c.args])).toEqual([['get_weather', { city: 'Paris', days: 1 }], ['get_time', { utc: true }]]);
    expect(first.candidates?.[0]?.finishReason).toBe('STOP');
    contents.push(first.candidates![0]!.content!);
    contents.push({
      role: 'user',
      parts: calls.map((c) => ({ functionResponse: { ...(c.id ? { id: c.id } : {}), name: c.name!, response: { result: c.name === 'get_weather' ? 'sunny' : 'noon' } } })),
    });
    const second = await ai.models.generateContent({ model, contents, config: { tools: weatherTools } });
    expect(second.text).toBe(`[${vendor}] tool results: sunny; noon`);
  });

  it('streams function calls whole', async () => {
    const parts = [];
    for await (const c of await ai.models.generateContentStream({ model, contents: 'weather?', config: { tools: weatherTools } })) {
      parts.push(...(c.candidates?.[0]?.content?.parts ?? []).filter((p) => p.functionCall));
    }
    expect(parts.map((p) => [p.functionCall?.name, p.functionCall?.args])).toEqual([['get_weather', { city: 'Paris', days: 1 }], ['get_time', { utc: true }]]);
  });

  it('inline image and PDF', async () => {
    const r = await ai.models.generateContent({
      model,
      contents: [{ role: 'user', parts: [{ text: 'see' }, { inlineData: { mimeType: 'image/png', data: PNG } }, { inlineData: { mimeType: 'application/pdf', data: PDF } }] }],
    });
    expect(r.text).toBe(`[${vendor}] you said: see [image] [pdf]`);
  });

  it('stop sequences and maxOutputTokens', async () => {
    const s = await ai.models.generateContent({ model, contents: 'one two three', config: { stopSequences: ['two'] } });
    expect(s.text).toBe(`[${vendor}] you said: one `);
    expect(s.candidates?.[0]?.finishReason).toBe('STOP');
    const m = await ai.models.generateContent({ model, contents: 'one two three', config: { maxOutputTokens: 2 } });
    expect(m.text).toBe(`[${vendor}] you`);
    expect(m.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
  });

  it('countTokens', async () => {
    const r = await ai.models.countTokens({ model, contents: 'one two three four' });
    // Gemini counts words (mock); elsewhere the gateway estimates chars / 4.
    expect(r.totalTokens).toBe(vendor === 'gemini' ? 4 : Math.ceil('one two three four'.length / 4));
  });

  it('400 for a body Gemini would reject, before any upstream call', async () => {
    const count = (): number => tb.gemini.requests.length + tb.openai.requests.length + tb.anthropic.requests.length;
    const before = count();
    const body = await expectApiError(ai.models.generateContent({ model, contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] }), 400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    expect(body.error.message).toContain('contents[0].role');
    expect(count()).toBe(before);
  });

  it('an upstream 429 reaches the client as RESOURCE_EXHAUSTED', async () => {
    if (vendor === 'gemini') tb.gemini.failNext(429, { error: { code: 429, message: 'Resource has been exhausted (e.g. check quota).', status: 'RESOURCE_EXHAUSTED' } });
    else if (vendor === 'openai') tb.openai.failNext(429, { error: { message: 'Rate limit reached', type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    else tb.anthropic.failNext(429, { type: 'error', error: { type: 'rate_limit_error', message: 'Rate limited' } });
    const body = await expectApiError(ai.models.generateContent({ model, contents: 'x' }), 429);
    expect(body.error.status).toBe('RESOURCE_EXHAUSTED');
  });
});

describe('pass-through fidelity', () => {
  it('forwards the body byte for byte, with the upstream key and model, never the client key', async () => {
    const raw = '{ "contents" : [ {"role":"user","parts":[{"text":"exact"}]} ],\n "safety_settings": [{"category":"HARM_CATEGORY_HARASSMENT","threshold":"BLOCK_NONE"}],\n "generationConfig": {"responseLogprobs": true, "logprobs": 2, "mediaResolution": "MEDIA_RESOLUTION_LOW"}, "serviceTier": "flex" }';
    const res = await post(`/v1beta/models/flash-alias:generateContent?key=${GEMINI_KEY_ALL}`, raw, {});
    expect(res.status).toBe(200);
    const sent = tb.gemini.requests.at(-1)!;
    expect(sent.rawBody).toBe(raw);
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:generateContent');
    expect(sent.query.get('key')).toBeNull();
    expect(sent.headers['x-goog-api-key']).toBe(tb.gemini.apiKey);
    expect(JSON.stringify(sent.headers)).not.toContain(GEMINI_KEY_ALL);
  });

  it('streams keep the client body too and relay thought signatures untouched', async () => {
    const parts = [];
    for await (const c of await ai.models.generateContentStream({ model: 'gemini-3-pro-preview', contents: 'weather?', config: { tools: weatherTools, thinkingConfig: { thinkingBudget: 128, includeThoughts: true } } })) {
      parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
    }
    expect(parts[0]).toMatchObject({ thought: true });
    const call = parts.find((p) => p.functionCall);
    expect(call?.thoughtSignature).toBe(Buffer.from('mock-thought-signature:get_weather').toString('base64'));
    expect(tb.gemini.requests.at(-1)!.query.get('alt')).toBe('sse');
  });

  it('routes provider/model ids with encoded slashes and the models/ prefix', async () => {
    const res = await post('/v1beta/models/google%2Fgemini-2.5-pro:generateContent', JSON.stringify({ contents: [{ parts: [{ text: 'direct' }] }] }));
    expect(res.status).toBe(200);
    expect(tb.gemini.requests.at(-1)!.path).toBe('/v1beta/models/gemini-2.5-pro:generateContent');
    const r = await ai.models.generateContent({ model: 'models/gemini-2.5-flash', contents: 'prefixed' });
    expect(r.text).toBe('[gemini] you said: prefixed');
  });

  it('countTokens with generateContentRequest names the upstream model', async () => {
    const res = await post('/v1beta/models/flash-alias:countTokens', JSON.stringify({ generateContentRequest: { model: 'models/flash-alias', contents: [{ parts: [{ text: 'a b' }] }] } }));
    expect(await res.json()).toMatchObject({ totalTokens: 2 });
    const sent = tb.gemini.requests.at(-1)!;
    expect(sent.path).toBe('/v1beta/models/gemini-2.0-flash:countTokens');
    expect((sent.body as { generateContentRequest: { model: string } }).generateContentRequest.model).toBe('models/gemini-2.0-flash');
  });

  it('a failure after the stream started arrives in-band', async () => {
    tb.gemini.failStreamNext(500, 'upstream broke');
    const seen: string[] = [];
    const err = await (async () => {
      for await (const c of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'a b c' })) seen.push(c.text ?? '');
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(seen).toEqual(['[gemini]']);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).status).toBe(500);
  });
});

describe('translated only', () => {
  it('sends OpenAI the converted tools, tool results and media', async () => {
    const contents: Content[] = [
      { role: 'user', parts: [{ text: 'weather?' }] },
      { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: { city: 'Paris' } } }] },
      { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { temp: 18 } } }] },
    ];
    const r = await ai.models.generateContent({ model: 'gpt-4o', contents, config: { tools: weatherTools, toolConfig: { functionCallingConfig: { mode: 'AUTO' as never } } } });
    expect(r.text).toBe('[openai] tool results: {"temp":18}');
    const sent = tb.openai.requests.at(-1)!.body as { messages: Array<Record<string, unknown>>; tools: unknown[]; tool_choice: unknown };
    expect(sent.messages).toEqual([
      { role: 'user', content: 'weather?' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'call_1_0', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }] },
      { role: 'tool', tool_call_id: 'call_1_0', content: '{"temp":18}' },
    ]);
    expect(sent.tools).toHaveLength(2);
    expect(sent.tool_choice).toBe('auto');
  });

  it('a Gemini built-in tool is a 400 naming it', async () => {
    const body = await expectApiError(ai.models.generateContent({ model: 'gpt-4o', contents: 'search', config: { tools: [{ googleSearch: {} }] } }), 400);
    expect(body.error.message).toContain('googleSearch');
  });
});

describe('translated to Anthropic with thinking', () => {
  it('streams thoughts with their signature and replays them with the tool call in the next turn', async () => {
    const config = { tools: weatherTools.map((t) => ({ functionDeclarations: t.functionDeclarations!.slice(0, 1) })), thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, maxOutputTokens: 4000 };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather?' }] }];
    const parts = [];
    for await (const c of await ai.models.generateContentStream({ model: 'claude-sonnet', contents, config })) parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
    const thoughts = parts.filter((p) => p.thought);
    expect(thoughts.map((p) => p.text ?? '').join('')).not.toBe('');
    const signature = thoughts.find((p) => p.thoughtSignature)?.thoughtSignature;
    expect(signature).toBeTruthy();
    const call = parts.find((p) => p.functionCall)!.functionCall!;
    expect(call).toMatchObject({ name: 'get_weather', args: { city: 'Paris', days: 1 } });
    // The client keeps the model turn as streamed (thought text and signature in separate parts).
    contents.push({ role: 'model', parts: parts.filter((p) => !(p.text === '' && !p.thought)) });
    contents.push({ role: 'user', parts: [{ functionResponse: { id: call.id, name: call.name!, response: { result: 'sunny' } } }] });
    const r = await ai.models.generateContent({ model: 'claude-sonnet', contents, config });
    expect(r.text).toBe('[anthropic] tool results: sunny');
    const sent = tb.anthropic.requests.at(-1)!.body as { messages: Array<{ role: string; content: Array<Record<string, unknown>> }> };
    // The client's thoughtSignature is base64 (a gateway token): Anthropic gets its own signature back, on the exact text it signed.
    expect(signature).toMatch(/^[A-Za-z0-9+/]*={0,2}$/);
    const thinking = thoughts.map((p) => p.text ?? '').join('');
    expect(sent.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking, signature: mockSignature(thinking) });
    expect(sent.messages[1]!.content[1]).toMatchObject({ type: 'tool_use', id: call.id, name: 'get_weather' });
  });
});

describe('models and auth', () => {
  it('lists and gets models in Gemini shape', async () => {
    const names: string[] = [];
    for await (const m of await ai.models.list({ config: { pageSize: 2 } })) names.push(m.name ?? '');
    expect(names).toEqual(['models/gemini-2.5-flash', 'models/gemini-3-pro-preview', 'models/flash-alias', 'models/gpt-4o', 'models/claude-sonnet']);
    const one = await ai.models.get({ model: 'flash-alias' });
    expect(one).toMatchObject({ name: 'models/flash-alias', displayName: 'Flash alias', supportedActions: ['generateContent', 'streamGenerateContent', 'countTokens'] });
    expect(one.inputTokenLimit).toBeGreaterThan(0);
    const limited: string[] = [];
    for await (const m of await tb.client(GEMINI_KEY_LIMITED).models.list()) limited.push(m.name ?? '');
    expect(limited).toEqual(['models/gemini-2.5-flash', 'models/gemini-3-pro-preview']);
    await expectApiError(ai.models.get({ model: 'nope' }), 404);
  });

  it('401 for a bad key, 403 for a model the key may not use, 404 for an unknown model', async () => {
    const bad = await expectApiError(tb.client('mg-wrong-key-0000000').models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' }), 401);
    expect(bad.error.status).toBe('UNAUTHENTICATED');
    const denied = await expectApiError(tb.client(GEMINI_KEY_LIMITED).models.generateContent({ model: 'gpt-4o', contents: 'x' }), 403);
    expect(denied.error.status).toBe('PERMISSION_DENIED');
    const missing = await expectApiError(ai.models.generateContent({ model: 'no-such-model', contents: 'x' }), 404);
    expect(missing.error.status).toBe('NOT_FOUND');
    const noKey = await post('/v1beta/models/gemini-2.5-flash:generateContent', '{"contents":[{"parts":[{"text":"x"}]}]}', {});
    expect(noKey.status).toBe(401);
  });

  it('Authorization: Bearer works as well', async () => {
    const res = await post('/v1beta/models/gpt-4o:generateContent', '{"contents":[{"parts":[{"text":"bearer"}]}]}', { authorization: `Bearer ${GEMINI_KEY_ALL}` });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> }).candidates[0]!.content.parts[0]!.text).toBe('[openai] you said: bearer');
  });
});
