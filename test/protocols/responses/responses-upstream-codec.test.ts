/**
 * The OpenAI Responses upstream codec on its own: IR -> request body, `response` object -> IR, and
 * Responses streams (recorded-shape fixtures in test/fixtures/openai-responses/ and streams the
 * strict mock generates) -> IR stream events, split at arbitrary network boundaries.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { readSSE } from '../../../src/wire/sse.js';
import type { IRChatRequest, IRStreamEvent } from '../../../src/ir/types.js';
import { decodeResponsesResponse } from '../../../src/protocols/openai-responses/upstream/decode-response.js';
import { encodeResponsesRequest } from '../../../src/protocols/openai-responses/upstream/encode-request.js';
import { openAIReasoningOf, toReasoningSignature } from '../../../src/protocols/openai-responses/upstream/reasoning-signature.js';
import { createResponsesStreamDecoder } from '../../../src/protocols/openai-responses/upstream/stream-decoder.js';
import { responseObject, streamEvents, usageJson } from '../../helpers/mock-openai-responses-reply.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/openai-responses/${name}`, import.meta.url), 'utf8');
const PNG = 'iVBORw0KGgo=';
const PDF = 'JVBERi0xLjQ=';
const ENC = 'gAAAAABoFixtureEncryptedReasoningState==';

function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function decode(text: string, size = 7): Promise<IRStreamEvent[]> {
  const decoder = createResponsesStreamDecoder();
  const out: IRStreamEvent[] = [];
  for await (const ev of readSSE(body(text, size))) out.push(...decoder.event(ev));
  out.push(...decoder.end());
  return out;
}

/** SSE text of the events the strict mock would stream for this final response. */
function sse(events: Array<Record<string, unknown>>): string {
  return events.map((e) => `event: ${String(e.type)}\ndata: ${JSON.stringify(e)}\n\n`).join('');
}

const req = (over: Partial<IRChatRequest>): IRChatRequest => ({ model: 'public-id', messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }], stream: false, ...over });

describe('encodeResponsesRequest', () => {
  it('builds a stateless request: instructions, input items, flattened tools, format, limits, reasoning', () => {
    const sig = toReasoningSignature('rs_9', ENC);
    const { body: out, warnings } = encodeResponsesRequest(
      req({
        system: [{ type: 'text', text: 'be brief' }, { type: 'text', text: 'be kind' }],
        messages: [
          {
            role: 'user',
            content: [
              { type: 'text', text: 'look' },
              { type: 'image', source: { kind: 'url', url: 'https://x.test/cat.png' }, detail: 'low' },
              { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
              { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: PDF }, filename: 'a.pdf' },
            ],
          },
          {
            role: 'assistant',
            content: [
              { type: 'reasoning', text: 'Planning.', signature: sig },
              { type: 'reasoning', text: 'foreign thought', signature: 'EqAnthropicSig' },
              { type: 'text', text: 'Let me check.' },
              { type: 'tool-call', id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
              { type: 'tool-call', id: 'call_2', name: 'get_time', arguments: '' },
            ],
          },
          {
            role: 'tool',
            content: [
              { type: 'tool-result', toolCallId: 'call_1', content: [{ type: 'text', text: '18C' }] },
              { type: 'tool-result', toolCallId: 'call_2', content: [{ type: 'text', text: 'see' }, { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } }], isError: true },
            ],
          },
        ],
        tools: [
          { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } },
          { type: 'function', name: 'get_time', strict: true, parameters: { type: 'object', properties: {}, additionalProperties: false, required: [] } },
        ],
        toolChoice: { type: 'tool', name: 'get_weather' },
        parallelToolCalls: true,
        responseFormat: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true },
        maxTokens: 1000,
        reasoning: { budgetTokens: 2048, includeThoughts: true },
        temperature: 0.5,
        user: 'u-1',
        stream: true,
      }),
      'gpt-5-codex',
    );
    expect(out).toEqual({
      model: 'gpt-5-codex',
      instructions: 'be brief\n\nbe kind',
      input: [
        {
          type: 'message',
          role: 'user',
          content: [
            { type: 'input_text', text: 'look' },
            { type: 'input_image', image_url: 'https://x.test/cat.png', detail: 'low' },
            { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
            { type: 'input_file', filename: 'a.pdf', file_data: `data:application/pdf;base64,${PDF}` },
          ],
        },
        { type: 'reasoning', id: 'rs_9', summary: [{ type: 'summary_text', text: 'Planning.' }], encrypted_content: ENC },
        { type: 'message', role: 'assistant', content: 'Let me check.' },
        { type: 'function_call', call_id: 'call_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
        { type: 'function_call', call_id: 'call_2', name: 'get_time', arguments: '{}' },
        { type: 'function_call_output', call_id: 'call_1', output: '18C' },
        {
          type: 'function_call_output',
          call_id: 'call_2',
          output: [{ type: 'input_text', text: 'Error:' }, { type: 'input_text', text: 'see' }, { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' }],
        },
      ],
      store: false,
      stream: true,
      max_output_tokens: 1000,
      user: 'u-1',
      reasoning: { effort: 'low', summary: 'auto' },
      include: ['reasoning.encrypted_content'],
      tools: [
        { type: 'function', name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } }, strict: false },
        { type: 'function', name: 'get_time', parameters: { type: 'object', properties: {}, additionalProperties: false, required: [] }, strict: true },
      ],
      parallel_tool_calls: true,
      tool_choice: { type: 'function', name: 'get_weather' },
      text: { format: { type: 'json_schema', name: 'answer', schema: { type: 'object' }, strict: true } },
    });
    expect(warnings.map((w) => w.setting)).toEqual(['messages', 'temperature']);
  });

  it('keeps sampling settings for non-reasoning models and warns about reasoning there', () => {
    const { body: out, warnings } = encodeResponsesRequest(req({ temperature: 0.2, topP: 0.9, reasoning: { effort: 'high' }, maxTokens: 5, responseFormat: { type: 'json' }, seed: 7 }), 'gpt-4.1');
    expect(out).toMatchObject({ temperature: 0.2, top_p: 0.9, max_output_tokens: 16, text: { format: { type: 'json_object' } } });
    expect(out).not.toHaveProperty('reasoning');
    expect(out).not.toHaveProperty('include');
    expect(warnings.map((w) => w.setting).sort()).toEqual(['maxTokens', 'reasoning', 'seed']);
  });

  it('passes chat fields that mean the same, and names the ones it drops', () => {
    const { body: out, warnings } = encodeResponsesRequest(req({ providerOptions: { 'openai-chat': { metadata: { a: '1' }, service_tier: 'flex', verbosity: 'low', logprobs: true, store: true } } }), 'gpt-4.1');
    expect(out).toMatchObject({ metadata: { a: '1' }, service_tier: 'flex', text: { verbosity: 'low' }, store: false });
    expect(warnings.map((w) => w.setting)).toEqual(['logprobs', 'store']);
  });

  it("keeps a Responses client's own extra fields, but never the state and transport fields the gateway owns", () => {
    const own = { truncation: 'auto', previous_response_id: 'resp_old', background: true, store: true, conversation: 'conv_1' };
    const { body: out } = encodeResponsesRequest(req({ providerOptions: { 'openai-responses': own } }), 'gpt-4.1');
    expect(out).toMatchObject({ truncation: 'auto', store: false });
    for (const k of ['previous_response_id', 'background', 'conversation']) expect(out).not.toHaveProperty(k);
  });

  it('rejects what the Responses API cannot express, naming the field', () => {
    const cases: Array<[Partial<IRChatRequest>, string]> = [
      [{ stop: ['END'] }, 'stop'],
      [{ n: 2 }, 'n'],
      [{ tools: [{ type: 'provider', protocol: 'anthropic-messages', name: 'web_search_20250305', raw: {} }] }, 'tools'],
    ];
    for (const [over, param] of cases) {
      let err: unknown;
      try {
        encodeResponsesRequest(req(over), 'gpt-5-codex');
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(GatewayError);
      expect((err as GatewayError).status).toBe(400);
      expect((err as GatewayError).param).toBe(param);
    }
  });

  it('recognizes OpenAI reasoning by signature prefix or by a Responses client providerOption', () => {
    expect(openAIReasoningOf({ type: 'reasoning', text: '', signature: toReasoningSignature('rs_1', 'gAAA') })).toEqual({ id: 'rs_1', encryptedContent: 'gAAA' });
    expect(openAIReasoningOf({ type: 'reasoning', text: '', signature: 'gAAA', providerOptions: { 'openai-responses': { encryptedContent: 'gAAA' } } })).toEqual({ encryptedContent: 'gAAA' });
    expect(openAIReasoningOf({ type: 'reasoning', text: 'x', signature: 'EqAnthropic' })).toBeUndefined();
  });
});

describe('decodeResponsesResponse', () => {
  const base = { model: 'gpt-5-codex', tools: [] };
  it('maps text with annotations, reasoning (summary + encrypted content as signature), calls and usage', () => {
    const annotations = [{ type: 'url_citation', url: 'https://a.test', title: 'A', start_index: 0, end_index: 2 }];
    const json = responseObject(base, {
      id: 'resp_1',
      model: 'gpt-5-codex-2025-08-07',
      status: 'completed',
      output: [
        { id: 'rs_1', type: 'reasoning', summary: [{ type: 'summary_text', text: 'One.' }, { type: 'summary_text', text: 'Two.' }], encrypted_content: ENC },
        { id: 'msg_1', type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'output_text', text: 'Hi', annotations }] },
        { id: 'fc_1', type: 'function_call', status: 'completed', call_id: 'call_1', name: 'f', arguments: '{"a":1}' },
        { id: 'ws_1', type: 'web_search_call', status: 'completed' },
      ],
      usage: usageJson({ input_tokens: 120, cached_tokens: 64, output_tokens: 30, reasoning_tokens: 12, total_tokens: 150 }),
    });
    expect(decodeResponsesResponse(json)).toEqual({
      id: 'resp_1',
      model: 'gpt-5-codex-2025-08-07',
      created: 1767225600,
      content: [
        { type: 'reasoning', text: 'One.\n\nTwo.', signature: `openai-responses:rs_1:${ENC}`, providerOptions: { 'openai-responses': { itemId: 'rs_1', encryptedContent: ENC } } },
        { type: 'text', text: 'Hi', providerOptions: { 'openai-responses': { annotations } } },
        { type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"a":1}' },
      ],
      finishReason: { unified: 'tool-calls', raw: 'completed' },
      usage: { inputTokens: 120, cachedInputTokens: 64, outputTokens: 30, reasoningTokens: 12, totalTokens: 150 },
    });
  });

  it('maps incomplete to length / content-filter, and failed or unfinished answers to errors', () => {
    const mk = (status: string, extra: Record<string, unknown> = {}) => ({ ...responseObject(base, { id: 'r', model: 'm', status, output: [], usage: null }), ...extra });
    expect(decodeResponsesResponse(mk('incomplete', { incomplete_details: { reason: 'max_output_tokens' } })).finishReason).toEqual({ unified: 'length', raw: 'max_output_tokens' });
    expect(decodeResponsesResponse(mk('incomplete', { incomplete_details: { reason: 'content_filter' } })).finishReason).toEqual({ unified: 'content-filter', raw: 'content_filter' });
    expect(decodeResponsesResponse(mk('incomplete')).usage).toEqual({});
    expect(() => decodeResponsesResponse(mk('failed', { error: { code: 'server_error', message: 'boom' } }))).toThrow(/failed: boom \(server_error\)/);
    expect(() => decodeResponsesResponse(mk('queued'))).toThrow(GatewayError);
    const malformed = [{ id: 'r', output: [{ type: 'function_call', name: 'f' }] }, { id: 'r', output: [], usage: { input_tokens: 'x' } }, { output: [] }];
    for (const bad of malformed) expect(() => decodeResponsesResponse(bad)).toThrow(/malformed Responses API response/);
  });
});

describe('Responses stream decoder', () => {
  it('decodes a text stream at any chunk size (obfuscation padding ignored)', async () => {
    for (const size of [1, 7, 4096]) {
      const events = await decode(fixture('text.sse.txt'), size);
      expect(events).toEqual([
        { type: 'message-start', id: 'resp_1', model: 'gpt-4.1-2025-04-14' },
        { type: 'text-start', id: 'msg_1:0' },
        { type: 'text-delta', id: 'msg_1:0', delta: 'Hi' },
        { type: 'text-delta', id: 'msg_1:0', delta: ' there!' },
        { type: 'text-end', id: 'msg_1:0' },
        { type: 'finish', finishReason: { unified: 'stop', raw: 'completed' }, usage: { inputTokens: 9, outputTokens: 3, totalTokens: 12, cachedInputTokens: 0, reasoningTokens: 0 } },
      ]);
    }
  });

  it('decodes reasoning (encrypted content -> signature) and a function call with argument deltas', async () => {
    const events = await decode(fixture('reasoning-tool.sse.txt'), 5);
    expect(events).toEqual([
      { type: 'message-start', id: 'resp_2', model: 'o3-mini-2025-01-31' },
      { type: 'reasoning-start', id: 'rs_2' },
      { type: 'reasoning-signature', id: 'rs_2', signature: `openai-responses:rs_2:${ENC}` },
      { type: 'reasoning-end', id: 'rs_2' },
      { type: 'tool-call-start', id: 'call_2', index: 0, name: 'get_weather' },
      { type: 'tool-call-delta', id: 'call_2', index: 0, delta: '{"city":' },
      { type: 'tool-call-delta', id: 'call_2', index: 0, delta: '"Paris"}' },
      { type: 'tool-call-end', id: 'call_2', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'completed' }, usage: { inputTokens: 78, cachedInputTokens: 64, outputTokens: 719, reasoningTokens: 704, totalTokens: 797 } },
    ]);
  });

  it('streams reasoning summaries, two parallel calls with their own indexes, and a token cut-off', async () => {
    const final = responseObject({ model: 'gpt-5' }, {
      id: 'resp_3',
      model: 'gpt-5',
      status: 'incomplete',
      incompleteReason: 'max_output_tokens',
      output: [
        { id: 'rs_3', type: 'reasoning', summary: [{ type: 'summary_text', text: 'A b' }, { type: 'summary_text', text: 'C' }], encrypted_content: 'gAAAx' },
        { id: 'fc_a', type: 'function_call', status: 'completed', call_id: 'call_a', name: 'f', arguments: '{"x":1}' },
        { id: 'fc_b', type: 'function_call', status: 'completed', call_id: 'call_b', name: 'g', arguments: '{}' },
        { id: 'msg_3', type: 'message', status: 'incomplete', role: 'assistant', content: [{ type: 'output_text', text: 'cut here', annotations: [] }] },
      ],
      usage: usageJson({ input_tokens: 10, cached_tokens: 0, output_tokens: 16, reasoning_tokens: 8, total_tokens: 26 }),
    });
    const events = await decode(sse(streamEvents(final, { obfuscate: true })), 3);
    const reasoning = events.filter((e) => e.type.startsWith('reasoning')).map((e) => ('delta' in e ? e.delta : 'signature' in e ? e.signature : e.type));
    expect(reasoning).toEqual(['reasoning-start', 'A', ' b', '\n\n', 'C', 'openai-responses:rs_3:gAAAx', 'reasoning-end']);
    const calls = events.filter((e) => e.type.startsWith('tool-call'));
    expect(calls.filter((e) => e.type === 'tool-call-start')).toEqual([
      { type: 'tool-call-start', id: 'call_a', index: 0, name: 'f' },
      { type: 'tool-call-start', id: 'call_b', index: 1, name: 'g' },
    ]);
    // Each call is closed before the next one starts.
    expect(calls.map((e) => `${e.type}:${'index' in e ? e.index : ''}`).filter((s) => !s.startsWith('tool-call-delta'))).toEqual(['tool-call-start:0', 'tool-call-end:0', 'tool-call-start:1', 'tool-call-end:1']);
    expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe('cut here');
    expect(events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'length', raw: 'max_output_tokens' }, usage: { inputTokens: 10, cachedInputTokens: 0, outputTokens: 16, reasoningTokens: 8, totalTokens: 26 } });
  });

  it('fills in items whose deltas never came, and trusts item events over an empty final output', async () => {
    const lines = [
      { type: 'response.created', response: { id: 'r', model: 'm', output: [] } },
      { type: 'response.output_item.added', output_index: 0, item: { id: 'msg', type: 'message', content: [] } },
      { type: 'response.output_item.done', output_index: 0, item: { id: 'msg', type: 'message', content: [{ type: 'output_text', text: 'whole' }] } },
      { type: 'response.output_item.done', output_index: 1, item: { id: 'fc', type: 'function_call', call_id: 'c1', name: 'f', arguments: '{"a":2}' } },
      { type: 'response.completed', response: { id: 'r', model: 'm', status: 'completed', output: [], usage: { input_tokens: 1, output_tokens: 2 } } },
    ];
    const events = await decode(sse(lines));
    expect(events.map((e) => e.type)).toEqual(['message-start', 'text-start', 'text-delta', 'text-end', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'finish']);
    expect(events.at(-1)).toMatchObject({ finishReason: { unified: 'tool-calls' }, usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } });
  });

  it('ends with an error event for response.failed, an error event, a malformed event or a cut stream', async () => {
    const created = { type: 'response.created', response: { id: 'r', model: 'm' } };
    const cases: Array<[Array<Record<string, unknown>>, RegExp, number]> = [
      [[created, { type: 'response.failed', response: { id: 'r', status: 'failed', output: [], error: { code: 'server_error', message: 'boom' } } }], /failed: boom/, 502],
      [[created, { type: 'error', code: 'rate_limit_exceeded', message: 'slow down', param: null }], /slow down \(rate_limit_exceeded\)/, 502],
      [[created, { type: 'response.output_text.delta', item_id: 'm', output_index: 0, content_index: 0, delta: 5 }], /malformed Responses stream event/, 502],
      [[created, { type: 'response.function_call_arguments.delta', item_id: 'x', output_index: 3, delta: '{' }], /never announced/, 502],
      [[created, { type: 'response.output_item.added', output_index: 0, item: { id: 'msg', type: 'message', content: [] } }], /ended before response.completed/, 502],
    ];
    for (const [lines, message, status] of cases) {
      const events = await decode(sse(lines));
      const last = events.at(-1);
      expect(last?.type).toBe('error');
      const err = (last as { error: GatewayError }).error;
      expect(err.message).toMatch(message);
      expect(err.status).toBe(status);
      expect(events.filter((e) => e.type === 'error')).toHaveLength(1);
    }
    // Not JSON at all.
    expect((await decode('data: {oops\n\n')).map((e) => e.type)).toEqual(['error']);
  });
});
