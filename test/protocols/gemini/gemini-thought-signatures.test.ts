/**
 * What a Gemini client gets in its base64 fields from other vendors' models: `thoughtSignature`
 * (another vendor's reasoning: OpenAI's encrypted reasoning item, Anthropic's thinking signature or
 * redacted thinking) and `inlineData.data` are standard, padded base64 that round-trips, and the
 * next turn gives the vendor exactly what it issued. Driven by the official @google/genai client
 * doing two tool turns against the strict mocks (the Responses mock verifies `encrypted_content`,
 * the Anthropic mock the thinking signature).
 */
import type { Content, GoogleGenAI, Part, Tool } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { GoogleGenAI as GenAI } from '@google/genai';
import type { Gateway } from '../../../src/index.js';
import { encodeGeminiResponse } from '../../../src/protocols/gemini/client/encode-response.js';
import { createGeminiStreamEncoder } from '../../../src/protocols/gemini/client/stream-encoder.js';
import { startMockAnthropic, type MockAnthropic } from '../../helpers/mock-anthropic.js';
import { mockSignature } from '../../helpers/mock-anthropic-validate.js';
import { startMockGemini, type MockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../../helpers/mock-openai-responses.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

type Json = Record<string, unknown>;

const KEY = 'mg-gemini-signatures-key-01';
const STANDARD_BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

let responses: MockOpenAIResponses;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;
let server: RunningServer;
let ai: GoogleGenAI;

beforeAll(async () => {
  [responses, anthropic, gemini] = await Promise.all([startMockOpenAIResponses(), startMockAnthropic(), startMockGemini()]);
  gateway = createShippedGateway({
    providers: [
      { id: 'openai', type: 'openai', baseURL: responses.baseURL, apiKey: responses.apiKey },
      { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
    ],
    models: [
      { id: 'codex', provider: 'openai', upstreamModel: 'gpt-5-codex', api: 'responses' },
      { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5' },
      { id: 'gemini-2.5-flash', provider: 'google' },
    ],
    keys: [{ id: 'all', key: KEY, models: ['*'] }],
    retry: { attempts: 1 },
  });
  server = await serve(gateway, { port: 0 });
  ai = new GenAI({ apiKey: KEY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await Promise.all([responses?.close(), anthropic?.close(), gemini?.close()]);
});

const tools: Tool[] = [
  {
    functionDeclarations: [
      { name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
      { name: 'get_time', parametersJsonSchema: { type: 'object', properties: { utc: { type: 'boolean' } } } },
    ],
  },
];

/** Standard, padded base64 that decodes and encodes back to the same text. */
function expectStandardBase64(value: string | undefined, field: string): void {
  expect(value, field).toBeTypeOf('string');
  const v = value as string;
  expect(v, field).toMatch(STANDARD_BASE64);
  expect(v.length % 4, `${field} length`).toBe(0);
  expect(Buffer.from(v, 'base64').toString('base64'), `${field} round trip`).toBe(v);
}

/** Every base64 field of Gemini parts. */
function expectBase64Fields(parts: Part[]): void {
  parts.forEach((p, i) => {
    if (p.thoughtSignature !== undefined) expectStandardBase64(p.thoughtSignature, `parts[${i}].thoughtSignature`);
    if (p.inlineData?.data !== undefined) expectStandardBase64(p.inlineData.data, `parts[${i}].inlineData.data`);
  });
}

/** The model turn as the client keeps it, and the function responses that answer its calls. */
function nextTurn(contents: Content[], parts: Part[], results: Record<string, string>): Content[] {
  const calls = parts.filter((p) => p.functionCall).map((p) => p.functionCall!);
  return [
    ...contents,
    { role: 'model', parts },
    { role: 'user', parts: calls.map((c) => ({ functionResponse: { id: c.id, name: c.name!, response: { result: results[c.name!] ?? '?' } } })) },
  ];
}

const lastBody = (m: { requests: Array<{ body: unknown }> }): Json => m.requests.at(-1)?.body as Json;

describe('OpenAI Responses model: the second tool turn works', () => {
  for (const mode of ['sync', 'stream'] as const) {
    it(`${mode}: the reasoning item comes back with the encrypted content OpenAI issued`, async () => {
      const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather and time?' }] }];
      const config = { tools, thinkingConfig: { includeThoughts: true } };
      let parts: Part[];
      if (mode === 'sync') {
        const first = await ai.models.generateContent({ model: 'codex', contents, config });
        parts = first.candidates?.[0]?.content?.parts ?? [];
      } else {
        parts = [];
        for await (const c of await ai.models.generateContentStream({ model: 'codex', contents, config })) parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
      }
      expect(lastBody(responses)).toMatchObject({ include: ['reasoning.encrypted_content'], store: false });
      const signed = parts.filter((p) => p.thoughtSignature);
      expect(signed).toHaveLength(1);
      expectBase64Fields(parts);
      expect(parts.filter((p) => p.functionCall).map((p) => p.functionCall!.name)).toEqual(['get_weather', 'get_time']);

      const next = await ai.models.generateContent({ model: 'codex', contents: nextTurn(contents, parts, { get_weather: '18C', get_time: 'noon' }), config });
      expect(next.text).toBe('[responses] tool results: 18C; noon');
      const input = lastBody(responses).input as Json[];
      expect(input.map((i) => i.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call', 'function_call_output', 'function_call_output']);
      const reasoning = input[1] as Json;
      // Exactly what the mock issued (it verifies it, like OpenAI), with the item id and the summary.
      expect(responses.issuedEncrypted.has(String(reasoning.encrypted_content))).toBe(true);
      expect(reasoning).toMatchObject({ id: expect.stringMatching(/^rs_mock\d+_0$/), summary: [{ type: 'summary_text', text: 'Planning the answer.' }] });
    });
  }

  it('the turn moves to a Gemini model: the OpenAI reasoning is not sent to Gemini as a thought signature', async () => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather and time?' }] }];
    const first = await ai.models.generateContent({ model: 'codex', contents, config: { tools } });
    const parts = first.candidates?.[0]?.content?.parts ?? [];
    expect(parts.some((p) => p.thoughtSignature)).toBe(true);
    const next = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: nextTurn(contents, parts, { get_weather: '18C', get_time: 'noon' }), config: { tools } });
    expect(next.text).toContain('18C');
    const sent = JSON.stringify(lastBody(gemini));
    expect(sent).not.toContain('bWcxLnsi');
    expect(sent).not.toContain('gAAAAAB');
  });
});

describe('Anthropic model with thinking', () => {
  it('stream: the signature is base64, and the exact thinking goes back signed', async () => {
    const config = { tools: [{ functionDeclarations: tools[0]!.functionDeclarations!.slice(0, 1) }], thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, maxOutputTokens: 4000 };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather?' }] }];
    const parts: Part[] = [];
    for await (const c of await ai.models.generateContentStream({ model: 'claude', contents, config })) parts.push(...(c.candidates?.[0]?.content?.parts ?? []));
    expectBase64Fields(parts);
    const next = await ai.models.generateContent({ model: 'claude', contents: nextTurn(contents, parts, { get_weather: 'sunny' }), config });
    expect(next.text).toBe('[anthropic] tool results: sunny');
    const sent = lastBody(anthropic) as { messages: Array<{ content: Json[] }> };
    expect(sent.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') });
  });

  it('without includeThoughts: no thought parts (as Gemini answers), the signature on the next part, and the thinking still goes back signed', async () => {
    const config = { tools: [{ functionDeclarations: tools[0]!.functionDeclarations!.slice(0, 1) }], thinkingConfig: { thinkingBudget: 2048 }, maxOutputTokens: 4000 };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather?' }] }];
    const streamed: Part[] = [];
    for await (const c of await ai.models.generateContentStream({ model: 'claude', contents, config })) streamed.push(...(c.candidates?.[0]?.content?.parts ?? []));
    const first = await ai.models.generateContent({ model: 'claude', contents, config });
    for (const parts of [streamed, first.candidates?.[0]?.content?.parts ?? []]) {
      expect(parts.filter((p) => p.thought)).toEqual([]);
      expect(JSON.stringify(parts)).not.toContain('Let me think about this.');
      expect(parts.find((p) => p.thoughtSignature)?.functionCall?.name).toBe('get_weather');
      expectBase64Fields(parts);
      const next = await ai.models.generateContent({ model: 'claude', contents: nextTurn(contents, parts, { get_weather: 'sunny' }), config });
      expect(next.text).toBe('[anthropic] tool results: sunny');
      const sent = lastBody(anthropic) as { messages: Array<{ content: Json[] }> };
      expect(sent.messages[1]!.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') });
    }
  });

  it('sync: redacted thinking travels in the thought signature and goes back as redacted_thinking', async () => {
    anthropic.scriptNext({
      content: [
        { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
        { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Paris' } },
      ],
    });
    const config = { tools: [{ functionDeclarations: tools[0]!.functionDeclarations!.slice(0, 1) }], thinkingConfig: { includeThoughts: true, thinkingBudget: 2048 }, maxOutputTokens: 4000 };
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather?' }] }];
    const first = await ai.models.generateContent({ model: 'claude', contents, config });
    const parts = first.candidates?.[0]?.content?.parts ?? [];
    expectBase64Fields(parts);
    // The mock thinks first (a signed block), then the scripted redacted block and the call.
    expect(parts.map((p) => (p.thought ? 'thought' : p.functionCall ? 'call' : 'other'))).toEqual(['thought', 'thought', 'call']);
    expect(parts.filter((p) => p.thoughtSignature)).toHaveLength(2);
    const next = await ai.models.generateContent({ model: 'claude', contents: nextTurn(contents, parts, { get_weather: 'sunny' }), config });
    expect(next.text).toBe('[anthropic] tool results: sunny');
    const sent = lastBody(anthropic) as { messages: Array<{ content: Json[] }> };
    expect(sent.messages[1]!.content).toEqual([
      { type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') },
      { type: 'redacted_thinking', data: 'EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP' },
      { type: 'tool_use', id: 'toolu_9', name: 'get_weather', input: { city: 'Paris' } },
    ]);
  });

  it("another vendor's signature is never sent to Anthropic as its own", async () => {
    const contents: Content[] = [{ role: 'user', parts: [{ text: 'weather and time?' }] }];
    const first = await ai.models.generateContent({ model: 'codex', contents, config: { tools } });
    const parts = first.candidates?.[0]?.content?.parts ?? [];
    const next = await ai.models.generateContent({ model: 'claude', contents: nextTurn(contents, parts, { get_weather: '18C', get_time: 'noon' }), config: { tools } });
    expect(next.text).toBe('[anthropic] tool results: 18C; noon');
    expect(JSON.stringify(lastBody(anthropic))).not.toContain('signature');
  });
});

describe('every base64 field a Gemini client gets is standard base64', () => {
  const meta = (upstream: 'openai-responses' | 'anthropic-messages') => ({ traceId: 't', upstreamModel: 'm', created: 0, newId: (p: string) => `${p}1`, upstream, options: { sse: true } });
  const signatures = ['openai-responses:rs_1:gAAAAABn-_x.y', 'EqMockTGV0', 'plain text signature: with ü', ''];

  it('sync: thought signatures (any vendor text) and inline bytes in the URL-safe alphabet', () => {
    for (const signature of signatures) {
      const res = encodeGeminiResponse(
        {
          id: 'r',
          model: 'm',
          content: [
            { type: 'reasoning', text: 'ünïcode thinking', ...(signature ? { signature } : {}), ...(signature ? {} : { redactedData: 'abc' }) },
            { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'iVBORw0K-_8' } },
          ],
          finishReason: { unified: 'stop' },
          usage: {},
        },
        meta('anthropic-messages'),
        [],
      ) as { candidates: Array<{ content: { parts: Part[] } }> };
      const parts = res.candidates[0]!.content.parts;
      expect(parts.map((p) => Object.keys(p).sort())).toEqual([['text', 'thought', 'thoughtSignature'], ['inlineData']]);
      expectBase64Fields(parts);
      expect(parts[1]!.inlineData!.data).toBe('iVBORw0K+/8=');
    }
  });

  it('stream: the signature of a streamed thought', () => {
    for (const signature of signatures.filter(Boolean)) {
      const enc = createGeminiStreamEncoder(meta('openai-responses'));
      let out = '';
      for (const ev of [
        { type: 'message-start', id: 'r', model: 'm' },
        { type: 'reasoning-start', id: 'r0' },
        { type: 'reasoning-delta', id: 'r0', delta: 'thinking…' },
        { type: 'reasoning-signature', id: 'r0', signature },
        { type: 'reasoning-end', id: 'r0' },
        { type: 'finish', finishReason: { unified: 'stop' }, usage: {} },
      ] as const) out += enc.encode(ev);
      const parts = out
        .split('\n')
        .filter((l) => l.startsWith('data: '))
        .flatMap((l) => (JSON.parse(l.slice(6)) as { candidates: Array<{ content: { parts: Part[] } }> }).candidates[0]!.content.parts);
      expect(parts.filter((p) => p.thoughtSignature)).toHaveLength(1);
      expectBase64Fields(parts);
    }
  });
});
