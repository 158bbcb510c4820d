/** Anthropic request/response codecs: client decode, upstream encode (snapshots), response mapping. */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import type { IRChatRequest } from '../../../src/ir/types.js';
import { decodeAnthropicRequest } from '../../../src/protocols/anthropic-messages/client/decode-request.js';
import { decodeAnthropicResponse } from '../../../src/protocols/anthropic-messages/upstream/decode-response.js';
import { encodeAnthropicRequest } from '../../../src/protocols/anthropic-messages/upstream/encode-request.js';
import { encodeAnthropicResponse } from '../../../src/protocols/anthropic-messages/client/encode-response.js';
import { anthropicPassthrough } from '../../../src/protocols/anthropic-messages/passthrough.js';
import { decodeOpenAIChatRequest } from '../../../src/protocols/openai-chat/client/decode-request.js';
import type { ResponseMeta } from '../../../src/protocols/types.js';
import { PDF, PNG } from '../../helpers/samples.js';


function thrown(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('decode (Anthropic client -> IR)', () => {
  it('decodes what Claude Code sends (system blocks, many tools, thinking, cache_control, metadata)', () => {
    const capture = JSON.parse(readFileSync(new URL('../../fixtures/agents/claude-request.json', import.meta.url), 'utf8')) as { body: Record<string, unknown> };
    const ir = decodeAnthropicRequest(capture.body);
    expect(ir.tools).toHaveLength(24);
    expect(ir.tools?.every((t) => t.type === 'function')).toBe(true);
    expect(ir.maxTokens).toBe(32000);
    expect(ir.reasoning).toEqual({ budgetTokens: 31999, includeThoughts: true });
    expect(ir.system?.[1]).toMatchObject({ type: 'text', providerOptions: { 'anthropic-messages': { cache_control: { type: 'ephemeral' } } } });
    expect(ir.user).toContain('session_id');
    expect(ir.providerOptions?.['anthropic-messages']).toEqual({ context_management: { edits: [{ type: 'clear_thinking_20251015', keep: 'all' }] } });
    expect(ir.stream).toBe(true);
  });

  it('decodes every block type and splits tool results into a tool message', () => {
    const ir = decodeAnthropicRequest({
      model: 'claude-x',
      max_tokens: 100,
      system: 'Be terse.',
      stop_sequences: ['END'],
      temperature: 0.2,
      top_k: 5,
      tool_choice: { type: 'any', disable_parallel_tool_use: true },
      tools: [
        { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' } } }, cache_control: { type: 'ephemeral' } },
        { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
      ],
      messages: [
        {
          role: 'user',
          content: [
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
            { type: 'image', source: { type: 'url', url: 'https://example.com/cat.jpg' } },
            { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF }, title: 'Invoice' },
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'plain doc' } },
            { type: 'text', text: 'Weather?' },
          ],
        },
        {
          role: 'assistant',
          content: [
            { type: 'thinking', thinking: 'Need a tool.', signature: 'sig1' },
            { type: 'redacted_thinking', data: 'xyz' },
            { type: 'tool_use', id: 'toolu_1', name: 'get_weather', input: { city: 'Paris' } },
          ],
        },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: '18C', is_error: false }, { type: 'text', text: 'thanks' }] },
      ],
    });
    expect(ir.system).toEqual([{ type: 'text', text: 'Be terse.' }]);
    expect(ir).toMatchObject({ stop: ['END'], temperature: 0.2, topK: 5, toolChoice: { type: 'required' }, parallelToolCalls: false });
    expect(ir.tools?.[0]).toEqual({
      type: 'function',
      name: 'get_weather',
      description: 'Weather',
      parameters: { type: 'object', properties: { city: { type: 'string' } } },
      providerOptions: { 'anthropic-messages': { cache_control: { type: 'ephemeral' } } },
    });
    expect(ir.tools?.[1]).toMatchObject({ type: 'provider', protocol: 'anthropic-messages', name: 'tools[1] (type "web_search_20250305")' });
    expect(ir.messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool', 'user']);
    expect(ir.messages[0]?.content).toEqual([
      { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: PNG } },
      { type: 'image', source: { kind: 'url', url: 'https://example.com/cat.jpg' } },
      { type: 'file', source: { kind: 'base64', mediaType: 'application/pdf', data: PDF }, filename: 'Invoice' },
      { type: 'text', text: 'plain doc' },
      { type: 'text', text: 'Weather?' },
    ]);
    expect(ir.messages[1]?.content).toEqual([
      { type: 'reasoning', text: 'Need a tool.', signature: 'sig1' },
      { type: 'reasoning', text: '', redactedData: 'xyz' },
      { type: 'tool-call', id: 'toolu_1', name: 'get_weather', arguments: '{"city":"Paris"}' },
    ]);
    expect(ir.messages[2]?.content).toEqual([{ type: 'tool-result', toolCallId: 'toolu_1', toolName: 'get_weather', content: [{ type: 'text', text: '18C' }] }]);
  });

  it('folds mid-conversation system messages (Claude Code, non-Claude model ids) into the system prompt', () => {
    const capture = JSON.parse(readFileSync(new URL('../../fixtures/agents/claude-request-default-model.json', import.meta.url), 'utf8')) as { body: Record<string, unknown> };
    const ir = decodeAnthropicRequest(capture.body);
    expect(ir.messages.map((m) => m.role)).toEqual(['user']);
    expect(ir.system?.at(-1)?.text).toContain('Available agent types for the Agent tool');
    expect(ir.reasoning).toEqual({ includeThoughts: true, effort: 'high' });
    const simple = decodeAnthropicRequest({ model: 'm', max_tokens: 5, system: 'first', messages: [{ role: 'user', content: 'x' }, { role: 'system', content: [{ type: 'text', text: 'later' }] }] });
    expect(simple.system).toEqual([{ type: 'text', text: 'first' }, { type: 'text', text: 'later' }]);
  });

  it('rejects caller mistakes with 400s naming the field', () => {
    const noMax = thrown(() => decodeAnthropicRequest({ model: 'm', messages: [{ role: 'user', content: 'x' }] }));
    expect(noMax).toMatchObject({ status: 400, param: 'max_tokens' });
    const role = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'tool', content: 'x' }] }));
    expect(role).toMatchObject({ status: 400, param: 'messages[0].role' });
    expect(role.message).toContain("'user', 'assistant' or 'system'");
    const systemBlock = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'system', content: [{ type: 'image', source: {} }] }] }));
    expect(systemBlock).toMatchObject({ status: 400 });
    const temp = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 5, temperature: 1.5, messages: [{ role: 'user', content: 'x' }] }));
    expect(temp).toMatchObject({ status: 400, param: 'temperature' });
    const budget = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 2000, thinking: { type: 'enabled', budget_tokens: 4000 }, messages: [{ role: 'user', content: 'x' }] }));
    expect(budget).toMatchObject({ status: 400, param: 'thinking.budget_tokens' });
    const badImage = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/tiff', data: 'AA' } }] }] }));
    expect(badImage).toMatchObject({ status: 400, param: 'messages[0].content[0].source.media_type' });
    const server = thrown(() => decodeAnthropicRequest({ model: 'm', max_tokens: 5, messages: [{ role: 'assistant', content: [{ type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: {} }] }] }));
    expect(server).toMatchObject({ code: 'unsupported', param: 'messages[0].content[0].type' });
  });
});

describe('encode (IR -> Anthropic upstream)', () => {
  const fromOpenAI = (body: Record<string, unknown>): IRChatRequest => decodeOpenAIChatRequest({ model: 'gpt-x', ...body });

  it('builds a valid Anthropic body from an OpenAI conversation', () => {
    const ir = fromOpenAI({
      max_tokens: 300,
      temperature: 0.5,
      stop: ['END'],
      user: 'u-1',
      reasoning_effort: 'low',
      messages: [
        { role: 'system', content: 'Be terse.' },
        { role: 'developer', content: 'Use metric.' },
        { role: 'user', content: [{ type: 'text', text: 'Look' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'a.pdf' } }] },
        { role: 'user', content: 'and weather?' },
        { role: 'assistant', content: '', reasoning_content: 'unsigned thoughts', tool_calls: [{ id: 'call_1', type: 'function', function: { name: 'get_weather', arguments: '{"city":"Paris"}' } }, { id: 'call_2', type: 'function', function: { name: 'get_time', arguments: '{}' } }] },
        { role: 'tool', tool_call_id: 'call_1', content: '18C' },
        { role: 'tool', tool_call_id: 'call_2', content: 'noon' },
        { role: 'user', content: 'so?' },
      ],
      tools: [
        { type: 'function', function: { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } } },
        { type: 'function', function: { name: 'get_time' } },
      ],
      tool_choice: 'required',
      parallel_tool_calls: false,
    });
    const { body, warnings } = encodeAnthropicRequest(ir, 'claude-up');
    expect(body).toMatchSnapshot();
    expect(body.max_tokens).toBe(300);
    expect(body.messages).toHaveLength(3);
    expect((body.messages as Array<{ content: Array<{ type: string }> }>)[2]?.content.map((b) => b.type)).toEqual(['tool_result', 'tool_result', 'text']);
    // Unsigned reasoning is not replayed, and thinking cannot be on with a forced tool choice.
    expect(body.thinking).toBeUndefined();
    expect(warnings.map((w) => w.setting)).toEqual(['messages', 'reasoning']);
    expect(warnings[1]?.message).toContain('tool_choice forces a tool call');
  });

  it('turns a reasoning effort into a thinking budget below max_tokens', () => {
    const { body, warnings } = encodeAnthropicRequest(fromOpenAI({ max_tokens: 300, reasoning_effort: 'low', messages: [{ role: 'user', content: 'think' }] }), 'claude-up');
    expect(body).toMatchObject({ max_tokens: 2348, thinking: { type: 'enabled', budget_tokens: 2048 } });
    // The caller is told that max_tokens grew to make room for the thinking budget.
    expect(warnings.map(({ setting, action }) => ({ setting, action }))).toEqual([{ setting: 'maxTokens', action: 'raised to 2348' }]);
    const roomy = encodeAnthropicRequest(fromOpenAI({ max_tokens: 5000, reasoning_effort: 'low', messages: [{ role: 'user', content: 'think' }] }), 'claude-up');
    expect(roomy.body).toMatchObject({ max_tokens: 5000, thinking: { type: 'enabled', budget_tokens: 2048 } });
    expect(roomy.warnings).toEqual([]);
    const off = encodeAnthropicRequest(fromOpenAI({ reasoning_effort: 'none', messages: [{ role: 'user', content: 'x' }] }), 'c').body;
    expect(off.thinking).toEqual({ type: 'disabled' });
  });

  it('keeps Anthropic-only tools, rejects other vendors\' tools and what Anthropic cannot express', () => {
    const base: IRChatRequest = { model: 'x', stream: false, messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] };
    const raw = { type: 'web_search_20250305', name: 'web_search' };
    expect(encodeAnthropicRequest({ ...base, tools: [{ type: 'provider', protocol: 'anthropic-messages', name: 'web_search', raw }] }, 'c').body.tools).toEqual([raw]);
    const foreign = thrown(() => encodeAnthropicRequest({ ...base, tools: [{ type: 'provider', protocol: 'openai-chat', name: 'tools[0] (type "custom")', raw: {} }] }, 'c'));
    expect(foreign).toMatchObject({ code: 'unsupported', param: 'tools[0]' });
    expect(foreign.message).toContain('tools[0] (type "custom")');
    expect(thrown(() => encodeAnthropicRequest({ ...base, temperature: 1.5 }, 'c'))).toMatchObject({ code: 'unsupported', param: 'temperature' });
    expect(thrown(() => encodeAnthropicRequest({ ...base, responseFormat: { type: 'json' } }, 'c'))).toMatchObject({ code: 'unsupported', param: 'response_format' });
    expect(encodeAnthropicRequest({ ...base, responseFormat: { type: 'json_schema', schema: { type: 'object' } } }, 'c').body.output_config).toEqual({ format: { type: 'json_schema', schema: { type: 'object' } } });
    expect(encodeAnthropicRequest(base, 'c').body.max_tokens).toBe(4096);
  });
});

describe('responses', () => {
  const meta: ResponseMeta = { traceId: 't', upstreamModel: 'alias', created: 1, newId: (p) => `${p}new` };

  it('decodes an Anthropic message and re-encodes it unchanged in substance', () => {
    const wire = {
      id: 'msg_01AbCd',
      type: 'message',
      role: 'assistant',
      model: 'claude-sonnet-4-5-20250929',
      content: [
        { type: 'text', text: 'Checking.' },
        { type: 'tool_use', id: 'toolu_01Xy', name: 'get_weather', input: { city: 'Paris' } },
      ],
      stop_reason: 'tool_use',
      stop_sequence: null,
      usage: { input_tokens: 402, output_tokens: 48, cache_creation_input_tokens: 0, cache_read_input_tokens: 0, service_tier: 'standard' },
    };
    const ir = decodeAnthropicResponse(wire);
    expect(ir.finishReason).toEqual({ unified: 'tool-calls', raw: 'tool_use' });
    expect(ir.usage).toEqual({ inputTokens: 402, outputTokens: 48, cachedInputTokens: 0, cacheWriteTokens: 0, totalTokens: 450 });
    const { service_tier: _tier, ...usage } = wire.usage;
    expect(encodeAnthropicResponse(ir, meta, [])).toEqual({ ...wire, usage });
  });

  it('maps OpenAI finish reasons and usage (cached tokens split out of input_tokens)', () => {
    const out = encodeAnthropicResponse(
      { id: 'chatcmpl-9', model: 'gpt-4o', content: [{ type: 'text', text: 'cut' }], finishReason: { unified: 'length', raw: 'length' }, usage: { inputTokens: 100, outputTokens: 7, cachedInputTokens: 60 } },
      meta,
      [],
    );
    expect(out).toMatchObject({ id: 'msg_new', stop_reason: 'max_tokens', stop_sequence: null, usage: { input_tokens: 40, cache_read_input_tokens: 60, cache_creation_input_tokens: 0, output_tokens: 7 } });
  });

  it('rejects a malformed upstream message as 502', () => {
    expect(thrown(() => decodeAnthropicResponse({ type: 'message' }))).toMatchObject({ code: 'bad_gateway' });
  });
});

describe('pass-through body', () => {
  it('rewrites only the model, byte-for-byte', () => {
    const raw = '{ "max_tokens" : 10,\n  "model":"claude-alias", "messages":[{"role":"user","content":"model: \\"x\\""}], "future_field": {"a": [1, 2]} }';
    const out = anthropicPassthrough.prepareBody(raw, JSON.parse(raw) as Record<string, unknown>, 'claude-real-1', false);
    expect(out).toBe(raw.replace('"claude-alias"', '"claude-real-1"'));
  });
});
