/**
 * Settings the target vendor cannot take as sent are never dropped silently: every dropped or
 * adjusted setting is listed, in the client's own field names, in the `x-modelgate-warnings`
 * response header (sync and streamed) and in the onRequest/onResponse hook events.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { settingWarnings, warningsHeaderValue, MAX_WARNINGS_HEADER } from '../../src/endpoints/setting-warnings.js';
import { createGateway, type Gateway, type RequestEvent, type ResponseEvent, type SettingWarning } from '../../src/index.js';
import type { IRChatRequest } from '../../src/ir/types.js';
import { droppedForeignOptions } from '../../src/protocols/shared/dropped-settings.js';
import { encodeAnthropicRequest } from '../../src/protocols/anthropic-messages/upstream/encode-request.js';
import { geminiProtocol } from '../../src/protocols/gemini/index.js';
import { encodeGeminiRequest } from '../../src/protocols/gemini/upstream/encode-request.js';
import { openAIChatProtocol } from '../../src/protocols/openai-chat/index.js';
import { encodeOpenAIChatRequest } from '../../src/protocols/openai-chat/upstream/encode-request.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const KEY = 'mg-warnings-key-000001';
let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
const requests: RequestEvent[] = [];
const responses: ResponseEvent[] = [];

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createGateway(
    {
      providers: [
        { id: 'p-openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
        { id: 'p-anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'p-gemini', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
      ],
      models: [
        { id: 'up-openai', provider: 'p-openai', upstreamModel: 'gpt-4o' },
        { id: 'up-anthropic', provider: 'p-anthropic', upstreamModel: 'claude-sonnet-4-5' },
        { id: 'up-gemini', provider: 'p-gemini', upstreamModel: 'gemini-2.5-flash' },
      ],
      keys: [{ id: 'warn', key: KEY, models: ['*'] }],
    },
    { hooks: { onRequest: (e) => void requests.push(structuredClone(e)), onResponse: (e) => void responses.push(structuredClone(e)) } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});
beforeEach(() => {
  requests.length = 0;
  responses.length = 0;
});

type Client = 'openai' | 'anthropic' | 'gemini';

async function send(client: Client, model: string, body: Record<string, unknown>, stream: boolean): Promise<{ res: Response; text: string }> {
  let req: Request;
  if (client === 'openai') {
    req = new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model, ...body, ...(stream ? { stream: true } : {}) }) });
  } else if (client === 'anthropic') {
    req = new Request('http://gw.test/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, ...body, ...(stream ? { stream: true } : {}) }),
    });
  } else {
    const action = stream ? 'streamGenerateContent?alt=sse' : 'generateContent';
    req = new Request(`http://gw.test/v1beta/models/${model}:${action}`, { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  }
  const res = await gateway.handle(req);
  const text = await res.text();
  // For streams the hook fires right after the last byte.
  await expect.poll(() => responses.length).toBe(1);
  return { res, text };
}

const pairs = (list: SettingWarning[] | undefined) => (list ?? []).map(({ setting, action }) => `${setting}: ${action}`);

interface Case {
  client: Client;
  model: string;
  body: Record<string, unknown>;
  header: string;
}

const CASES: Case[] = [
  {
    client: 'gemini',
    model: 'up-openai',
    body: {
      contents: [{ role: 'user', parts: [{ text: 'hello there' }] }],
      safetySettings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }],
      generationConfig: { topK: 40, temperature: 0.5, responseLogprobs: true },
    },
    header: 'safetySettings: dropped (not supported by openai); generationConfig.responseLogprobs: dropped (not supported by openai); generationConfig.topK: dropped (not supported by openai)',
  },
  {
    client: 'gemini',
    model: 'up-anthropic',
    body: { contents: [{ role: 'user', parts: [{ text: 'hello there' }] }], generationConfig: { seed: 7, presencePenalty: 0.5 } },
    header: 'generationConfig.presencePenalty: dropped (not supported by anthropic); generationConfig.seed: dropped (not supported by anthropic)',
  },
  {
    client: 'anthropic',
    model: 'up-openai',
    body: {
      max_tokens: 4000,
      service_tier: 'auto',
      top_k: 5,
      thinking: { type: 'enabled', budget_tokens: 2048 },
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hello there', cache_control: { type: 'ephemeral' } }] }],
    },
    header: 'service_tier: dropped (not supported by openai); cache_control: dropped (not supported by openai); top_k: dropped (not supported by openai); thinking: dropped (the model takes no reasoning effort)',
  },
  {
    client: 'anthropic',
    model: 'up-gemini',
    body: { max_tokens: 40000, metadata: { user_id: 'u-1' }, thinking: { type: 'enabled', budget_tokens: 30000 }, messages: [{ role: 'user', content: 'hello there' }] },
    header: 'thinking: budget clamped to 24576; metadata.user_id: dropped (not supported by gemini)',
  },
  {
    client: 'openai',
    model: 'up-anthropic',
    body: { max_tokens: 300, reasoning_effort: 'low', seed: 3, presence_penalty: 0.2, logprobs: true, messages: [{ role: 'user', content: 'hello there' }] },
    header: 'logprobs: dropped (not supported by anthropic); max_tokens: raised to 2348; presence_penalty: dropped (not supported by anthropic); seed: dropped (not supported by anthropic)',
  },
  {
    client: 'openai',
    model: 'up-gemini',
    body: { user: 'end-user-1', messages: [{ role: 'user', content: 'hello there' }] },
    header: 'user: dropped (not supported by gemini)',
  },
];

describe('x-modelgate-warnings and hook events, through each client', () => {
  describe.each(['sync', 'stream'] as const)('%s', (mode) => {
    it.each(CASES)('$client client -> $model', async ({ client, model, body, header }) => {
      const { res, text } = await send(client, model, body, mode === 'stream');
      expect(res.status).toBe(200);
      expect(res.headers.get('x-modelgate-warnings')).toBe(header);
      expect(requests).toHaveLength(1);
      expect(pairs(requests[0]?.warnings).join('; ')).toBe(header);
      expect(pairs(responses[0]?.warnings).join('; ')).toBe(header);
      expect(responses[0]?.warnings?.every((w) => w.message.length > 0)).toBe(true);
      if (mode === 'stream') expect(responses[0]?.streamCompleted).toBe(true);
      else expect(text).toContain('"traceId"');
    });
  });

  it('pass-through and fully expressible requests carry no warnings', async () => {
    const { res } = await send('gemini', 'up-gemini', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }], safetySettings: [] }, false);
    expect(res.headers.has('x-modelgate-warnings')).toBe(false);
    expect(responses[0]?.warnings).toBeUndefined();
    responses.length = 0;
    const plain = await send('openai', 'up-anthropic', { max_tokens: 50, temperature: 0.3, messages: [{ role: 'user', content: 'hi' }] }, true);
    expect(plain.res.headers.has('x-modelgate-warnings')).toBe(false);
  });

  it('the sync OpenAI body lists them too, in the same names', async () => {
    const { text } = await send('openai', 'up-gemini', { user: 'end-user-1', messages: [{ role: 'user', content: 'hi' }] }, false);
    expect((JSON.parse(text) as { warnings: SettingWarning[] }).warnings).toEqual([
      { setting: 'user', action: 'dropped (not supported by gemini)', message: 'Gemini has no end-user field; ignored.' },
    ]);
  });
});

describe('warning sources', () => {
  const base: IRChatRequest = { model: 'x', stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };

  it("reports another protocol's vendor-only fields, block options once, never content such as thought signatures", () => {
    const req: IRChatRequest = {
      ...base,
      providerOptions: { gemini: { safetySettings: [], generationConfig: { responseLogprobs: true } }, 'openai-chat': { store: true } },
      system: [{ type: 'text', text: 's', providerOptions: { 'anthropic-messages': { cache_control: { type: 'ephemeral' } } } }],
      messages: [
        { role: 'user', content: [{ type: 'text', text: 'a', providerOptions: { 'anthropic-messages': { cache_control: { type: 'ephemeral' } } } }] },
        { role: 'assistant', content: [{ type: 'text', text: 'b', providerOptions: { gemini: { thoughtSignature: 'c2ln' } } }] },
      ],
    };
    expect(droppedForeignOptions(req, 'gemini').map((w) => `${w.setting}: ${w.action}`)).toEqual([
      'store: dropped (not supported by gemini)',
      'cache_control: dropped (not supported by gemini)',
    ]);
    expect(droppedForeignOptions(req, 'openai-chat').map((w) => w.setting)).toEqual(['safetySettings', 'generationConfig.responseLogprobs', 'cache_control']);
  });

  it('adjusted thinking settings: clamped for Gemini, mapped to an effort for OpenAI, raised for Anthropic, LOW on Gemini 3', () => {
    const budget = (n: number): IRChatRequest => ({ ...base, reasoning: { budgetTokens: n } });
    expect(encodeGeminiRequest(budget(31_999), 'gemini-2.5-flash').warnings.map((w) => w.action)).toEqual(['budget clamped to 24576']);
    expect(encodeGeminiRequest(budget(31_999), 'gemini-2.5-pro').warnings).toEqual([]);
    const o3 = encodeOpenAIChatRequest(budget(8000), 'o3');
    expect(o3.body.reasoning_effort).toBe('medium');
    expect(o3.warnings.map((w) => w.action)).toEqual(['budget 8000 sent as reasoning_effort medium']);
    expect(encodeAnthropicRequest({ ...budget(500), maxTokens: 4096 }, 'claude').warnings.map((w) => w.action)).toEqual(['budget raised to 1024']);
    const g3 = encodeGeminiRequest({ ...base, reasoning: { effort: 'none' } }, 'gemini-3-pro-preview');
    expect((g3.body.generationConfig as { thinkingConfig: unknown }).thinkingConfig).toEqual({ thinkingLevel: 'LOW' });
    expect(g3.warnings.map((w) => w.action)).toEqual(['none sent as thinkingLevel LOW']);
  });

  it('names settings the way each client sends them, once each', () => {
    const ir = [
      { setting: 'topK', action: 'dropped (not supported by openai)', message: 'm' },
      { setting: 'topK', action: 'dropped (not supported by openai)', message: 'm again' },
      { setting: 'maxTokens', action: 'raised to 9', message: 'm' },
      { setting: 'safetySettings', action: 'dropped (not supported by openai)', message: 'm' },
    ];
    expect(pairs(settingWarnings(geminiProtocol.client, ir, {}))).toEqual([
      'generationConfig.topK: dropped (not supported by openai)',
      'generationConfig.maxOutputTokens: raised to 9',
      'safetySettings: dropped (not supported by openai)',
    ]);
    expect(pairs(settingWarnings(openAIChatProtocol.client, ir.slice(2, 3), { max_completion_tokens: 5 }))).toEqual(['max_completion_tokens: raised to 9']);
  });
});

describe('header value', () => {
  it('is ASCII, keeps ; as the separator only, and is bounded with a count of what was left out', () => {
    expect(warningsHeaderValue([])).toBeUndefined();
    expect(warningsHeaderValue([{ setting: 'größe;x', action: 'dropped (not supported by openai)', message: '' }])).toBe('gr??e?x: dropped (not supported by openai)');
    const many = Array.from({ length: 60 }, (_, i) => ({ setting: `field_${i}_${'x'.repeat(20)}`, action: 'dropped (not supported by openai)', message: '' }));
    const value = warningsHeaderValue(many) as string;
    expect(value.length).toBeLessThanOrEqual(MAX_WARNINGS_HEADER);
    const kept = value.split('; ').filter((e) => e.startsWith('field_')).length;
    expect(kept).toBeGreaterThan(10);
    expect(value.endsWith(`; +${60 - kept} more`)).toBe(true);
    expect(/^[\x20-\x7e]*$/.test(value)).toBe(true);
  });
});
