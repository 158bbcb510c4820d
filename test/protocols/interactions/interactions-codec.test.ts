/**
 * Units of the Interactions codec: request decoding to IR (every translated field, the input forms,
 * thought signatures and their origin, what is refused), the stream encoder (event order and ids,
 * steps that never interleave, signatures as gateway tokens, failures), the pass-through body and
 * step accumulator, the replay of a stored interaction, usage mapping.
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import type { IRStreamEvent } from '../../../src/ir/types.js';
import { decodeInteractionRequest } from '../../../src/protocols/gemini-interactions/client/decode-request.js';
import { fromInteractionsUsage, toInteractionsUsage, type InteractionsEncodeOptions } from '../../../src/protocols/gemini-interactions/client/interaction-object.js';
import { replayInteractionEvents } from '../../../src/protocols/gemini-interactions/client/replay-events.js';
import { createInteractionsStreamEncoder } from '../../../src/protocols/gemini-interactions/client/stream-encoder.js';
import { interactionsPassthrough } from '../../../src/protocols/gemini-interactions/passthrough.js';
import { createStepAccumulator } from '../../../src/protocols/gemini-interactions/upstream/step-accumulator.js';
import { decodeReasoningToken, encodeReasoningToken } from '../../../src/protocols/shared/reasoning-token.js';

type Json = Record<string, unknown>;

const decode = (body: Json, target: Parameters<typeof decodeInteractionRequest>[1]['target'] = 'openai-chat', history?: Parameters<typeof decodeInteractionRequest>[1]['history']) =>
  decodeInteractionRequest(body, { model: 'm', stream: false, target, ...(history ? { history } : {}) });

function refusal(fn: () => unknown): GatewayError {
  try {
    fn();
  } catch (err) {
    expect(err).toBeInstanceOf(GatewayError);
    return err as GatewayError;
  }
  throw new Error('expected a GatewayError');
}

describe('decodeInteractionRequest', () => {
  it('translates every generation setting, the system instruction, tools and a JSON schema', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const { ir, turn } = decode({
      model: 'm',
      input: 'hi',
      system_instruction: 'be kind',
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
      generation_config: { temperature: 0.3, top_p: 0.9, max_output_tokens: 77, stop_sequences: ['X'], seed: 5, thinking_level: 'high', thinking_summaries: 'auto', tool_choice: 'any' },
      response_format: { type: 'text', mime_type: 'application/json', schema },
      labels: { team: 'a' },
      service_tier: 'standard',
    });
    expect(ir).toEqual({
      model: 'm',
      stream: false,
      system: [{ type: 'text', text: 'be kind' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }],
      tools: [{ type: 'function', name: 'f', description: 'd', parameters: { type: 'object' } }],
      toolChoice: { type: 'required' },
      maxTokens: 77,
      temperature: 0.3,
      topP: 0.9,
      stop: ['X'],
      seed: 5,
      reasoning: { effort: 'high', includeThoughts: true },
      responseFormat: { type: 'json_schema', name: 'response', schema },
    });
    expect(turn).toEqual(ir.messages);
  });

  it('tool_choice allowed_tools: one tool forced, several restricted, none', () => {
    const tools = ['a', 'b', 'c'].map((name) => ({ type: 'function', name }));
    const one = decode({ input: 'x', tools, generation_config: { tool_choice: { allowed_tools: { mode: 'any', tools: ['b'] } } } }).ir;
    expect(one.toolChoice).toEqual({ type: 'tool', name: 'b' });
    expect(one.tools?.map((t) => ('name' in t ? t.name : t.type))).toEqual(['b']);
    const two = decode({ input: 'x', tools, generation_config: { tool_choice: { allowed_tools: { mode: 'auto', tools: ['a', 'c'] } } } }).ir;
    expect(two.toolChoice).toEqual({ type: 'auto' });
    expect(two.tools?.map((t) => ('name' in t ? t.name : t.type))).toEqual(['a', 'c']);
    expect(decode({ input: 'x', tools, generation_config: { tool_choice: 'none' } }).ir.toolChoice).toEqual({ type: 'none' });
    const unknown = refusal(() => decode({ input: 'x', tools, generation_config: { tool_choice: { allowed_tools: { tools: ['zzz'] } } } }));
    expect(unknown.param).toBe('generation_config.tool_choice.allowed_tools.tools[0]');
  });

  it('input as one content, a content list (image by data, PDF by URI) and steps', () => {
    expect(decode({ input: { type: 'text', text: 'one' } }).ir.messages).toEqual([{ role: 'user', content: [{ type: 'text', text: 'one' }] }]);
    const list = decode({
      input: [
        { type: 'text', text: 'look' },
        { type: 'image', data: 'AAAA', mime_type: 'image/png' },
        { type: 'document', uri: 'https://example.com/a.pdf', mime_type: 'application/pdf' },
      ],
    }).ir.messages;
    expect(list).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'look' },
          { type: 'image', source: { kind: 'base64', mediaType: 'image/png', data: 'AAAA' } },
          { type: 'file', source: { kind: 'url', url: 'https://example.com/a.pdf', mediaType: 'application/pdf' } },
        ],
      },
    ]);
    const steps = decode({
      input: [
        { type: 'user_input', content: [{ type: 'text', text: 'q' }] },
        { type: 'thought', signature: 'gemini-sig', summary: [{ type: 'text', text: 'hmm' }] },
        { type: 'function_call', id: 'c1', name: 'f', arguments: { a: 1 } },
        { type: 'function_result', call_id: 'c1', result: { ok: true } },
        { type: 'function_result', call_id: 'c1', name: 'g', result: [{ type: 'text', text: 'r' }], is_error: true },
      ],
    }).ir.messages;
    expect(steps).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'q' }] },
      {
        role: 'assistant',
        content: [
          // Gemini's signature is not for an OpenAI upstream: the text stays, the signature goes.
          { type: 'reasoning', text: 'hmm', providerOptions: { 'gemini-interactions': { origin: 'gemini-interactions' } } },
          { type: 'tool-call', id: 'c1', name: 'f', arguments: '{"a":1}' },
        ],
      },
      {
        role: 'tool',
        content: [
          { type: 'tool-result', toolCallId: 'c1', toolName: 'f', content: [{ type: 'text', text: '{"ok":true}' }] },
          { type: 'tool-result', toolCallId: 'c1', toolName: 'g', content: [{ type: 'text', text: 'r' }], isError: true },
        ],
      },
    ]);
  });

  it("a gateway token in a thought signature carries its vendor's signature; other vendors' signatures are not sent to the target", () => {
    const token = encodeReasoningToken({ type: 'reasoning', text: 'deep', signature: 'anthropic-sig' }, 'anthropic-messages')!;
    const body = { input: [{ type: 'user_input', content: [{ type: 'text', text: 'q' }] }, { type: 'thought', signature: token }, { type: 'model_output', content: [{ type: 'text', text: 'a' }] }, { type: 'user_input', content: [{ type: 'text', text: 'q2' }] }] };
    const toAnthropic = decode(body, 'anthropic-messages').ir.messages[1]!.content[0];
    expect(toAnthropic).toEqual({ type: 'reasoning', text: 'deep', signature: 'anthropic-sig', providerOptions: { 'gemini-interactions': { origin: 'anthropic-messages' } } });
    const toOpenAI = decode(body, 'openai-chat').ir.messages[1]!.content[0];
    expect(toOpenAI).toEqual({ type: 'reasoning', text: 'deep', providerOptions: { 'gemini-interactions': { origin: 'anthropic-messages' } } });
  });

  it('history comes first; a function_result must answer a call of the history or the input', () => {
    const history = { system: [], messages: [{ role: 'assistant' as const, content: [{ type: 'tool-call' as const, id: 'h1', name: 'weather', arguments: '{}' }] }] };
    const { ir, turn } = decode({ input: [{ type: 'function_result', call_id: 'h1', result: 'sun' }] }, 'openai-chat', history);
    expect(ir.messages).toHaveLength(2);
    expect(turn).toEqual([{ role: 'tool', content: [{ type: 'tool-result', toolCallId: 'h1', toolName: 'weather', content: [{ type: 'text', text: 'sun' }] }] }]);
    expect(refusal(() => decode({ input: [{ type: 'function_result', call_id: 'nope', result: 'x' }] })).param).toBe('input[0].call_id');
  });

  it('the deprecated response_mime_type with a bare schema is a JSON schema; plain JSON without one is json', () => {
    const schema = { type: 'object', properties: {} };
    expect(decode({ input: 'x', response_mime_type: 'application/json', response_format: schema }).ir.responseFormat).toEqual({ type: 'json_schema', name: 'response', schema });
    expect(decode({ input: 'x', response_mime_type: 'application/json' }).ir.responseFormat).toEqual({ type: 'json' });
    expect(decode({ input: 'x', response_format: { type: 'text', mime_type: 'text/plain' } }).ir.responseFormat).toEqual({ type: 'text' });
  });

  it.each([
    [{ input: 'x', agent_config: { type: 'deep-research' } }, 'agent_config'],
    [{ input: 'x', webhook_config: { uris: ['https://h'] } }, 'webhook_config'],
    [{ input: 'x', environment: 'env-1' }, 'environment'],
    [{ input: 'x', cached_content: 'cachedContents/1' }, 'cached_content'],
    [{ input: 'x', service_tier: 'flex' }, 'service_tier'],
    [{ input: 'x', something_new: 1 }, 'something_new'],
    [{ input: 'x', response_mime_type: 'text/x.enum' }, 'response_mime_type'],
    [{ input: 'x', response_format: [{ type: 'text' }, { type: 'text', mime_type: 'application/json' }] }, 'response_format'],
    [{ input: 'x', generation_config: { image_config: {} } }, 'generation_config.image_config'],
    [{ input: [{ type: 'text', text: 'a' }, { type: 'audio', data: 'AA', mime_type: 'audio/wav' }] }, 'input[0].content[1].type'],
    [{ input: [{ type: 'user_input', content: [{ type: 'video', uri: 'gs://v' }] }] }, 'input[0].content[0].type'],
    [{ input: [{ type: 'code_execution_call', id: 'x' }] }, 'input[0].type'],
  ])('refuses %j naming %s', (body, param) => {
    const err = refusal(() => decode(body as Json));
    expect(err.status).toBe(400);
    expect(err.param).toBe(param);
  });

  it('bad values are 400s naming the field', () => {
    expect(refusal(() => decode({ input: 'x', generation_config: { thinking_level: 'max' } })).param).toBe('generation_config.thinking_level');
    expect(refusal(() => decode({ input: 'x', generation_config: { temperature: 5 } })).param).toBe('generation_config.temperature');
    expect(refusal(() => decode({ input: [{ type: 'image', data: 'AA' }] })).param).toBe('input[0].content[0].mime_type');
    expect(refusal(() => decode({ input: [{ type: 'image', data: 'AA', uri: 'x', mime_type: 'image/png' }] })).param).toBe('input[0].content[0].data');
    expect(refusal(() => decode({ input: [{ type: 'user_input' }, { type: 'text', text: 'a' }] })).param).toBe('input[1].type');
    expect(refusal(() => decode({ input: '' })).param).toBe('input');
  });
});

function encoderFor(origin: InteractionsEncodeOptions['origin'] = 'openai-chat') {
  const events: Array<{ type: string; data: Json }> = [];
  const opts: InteractionsEncodeOptions = {
    interactionId: 'v1_x',
    createdAtMs: Date.UTC(2026, 0, 2, 3, 4, 5),
    echo: { model: 'pub' },
    origin,
    sink: { onEvent: (type, data) => events.push({ type, data: JSON.parse(data) as Json }) },
    now: () => Date.UTC(2026, 0, 2, 3, 4, 9),
  };
  const enc = createInteractionsStreamEncoder({ traceId: 't', upstreamModel: 'pub-2026', created: 0, newId: (p) => `${p}1`, options: { interactions: opts } });
  return { enc, events, opts };
}

function run(enc: ReturnType<typeof encoderFor>['enc'], evs: IRStreamEvent[]): string {
  return evs.map((e) => enc.encode(e)).join('') + enc.end();
}

describe('stream encoder', () => {
  it('parallel tool calls that stream side by side become sequential steps; ids count up; done ends it', () => {
    const { enc, events, opts } = encoderFor();
    const wire = run(enc, [
      { type: 'message-start', id: 'm', model: 'up', usage: { inputTokens: 4 } },
      { type: 'tool-call-start', id: 'c0', index: 0, name: 'a' },
      { type: 'tool-call-start', id: 'c1', index: 1, name: 'b' },
      { type: 'tool-call-delta', id: 'c1', index: 1, delta: '{"y":' },
      { type: 'tool-call-delta', id: 'c0', index: 0, delta: '{"x":1}' },
      { type: 'tool-call-delta', id: 'c1', index: 1, delta: '2}' },
      { type: 'tool-call-end', id: 'c0', index: 0 },
      { type: 'tool-call-end', id: 'c1', index: 1 },
      { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_calls' }, usage: { inputTokens: 4, outputTokens: 6 } },
    ]);
    expect(events.map((e) => `${e.type}${e.data.index ?? ''}`)).toEqual([
      'interaction.created', 'step.start0', 'step.delta0', 'step.stop0', 'step.start1', 'step.delta1', 'step.stop1', 'interaction.completed',
    ]);
    expect(events.map((e) => e.data.event_id)).toEqual(['0', '1', '2', '3', '4', '5', '6', '7']);
    expect(events[4]!.data.step).toEqual({ type: 'function_call', id: 'c1', name: 'b', arguments: {} });
    expect(events[5]!.data.delta).toEqual({ type: 'arguments_delta', arguments: '{"y":2}' });
    expect(events[7]!.data.interaction).toEqual({
      id: 'v1_x', object: 'interaction', status: 'requires_action', model: 'up', created: '2026-01-02T03:04:05Z', updated: '2026-01-02T03:04:09Z',
      usage: { total_input_tokens: 4, total_output_tokens: 6, total_tokens: 10 },
    });
    expect(wire.endsWith('event: done\ndata: [DONE]\n\n')).toBe(true);
    expect(opts.sink.final?.steps).toEqual([
      { type: 'function_call', id: 'c0', name: 'a', arguments: { x: 1 } },
      { type: 'function_call', id: 'c1', name: 'b', arguments: { y: 2 } },
    ]);
    expect(opts.sink.final?.status).toBe('requires_action');
  });

  it("thinking becomes a thought step whose signature is a token carrying the vendor's signature; empty text makes no step", () => {
    const { enc, events, opts } = encoderFor('anthropic-messages');
    run(enc, [
      { type: 'message-start', id: 'm', model: 'up' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'let me ' },
      { type: 'reasoning-delta', id: 'r', delta: 'think' },
      { type: 'reasoning-signature', id: 'r', signature: 'SIG' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'text-start', id: 'e' },
      { type: 'text-end', id: 'e' },
      { type: 'text-start', id: 't' },
      { type: 'text-delta', id: 't', delta: 'answer' },
      { type: 'text-end', id: 't' },
      { type: 'finish', finishReason: { unified: 'length' }, usage: { inputTokens: 1, outputTokens: 9, reasoningTokens: 4 } },
    ]);
    const sig = events.find((e) => (e.data.delta as Json | undefined)?.type === 'thought_signature')!.data.delta as { signature: string };
    expect(decodeReasoningToken(sig.signature)).toEqual({ origin: 'anthropic-messages', text: 'let me think', signature: 'SIG' });
    expect(opts.sink.final?.steps).toEqual([
      { type: 'thought', signature: sig.signature, summary: [{ type: 'text', text: 'let me think' }] },
      { type: 'model_output', content: [{ type: 'text', text: 'answer' }] },
    ]);
    expect(opts.sink.final?.status).toBe('incomplete');
    expect(opts.sink.final?.usage).toEqual({ total_input_tokens: 1, total_output_tokens: 5, total_thought_tokens: 4, total_tokens: 10 });
  });

  it('thinking_summaries none: the thought step carries only its signature (the token still holds the text)', () => {
    const { enc, events, opts } = encoderFor('anthropic-messages');
    opts.hideThoughtSummaries = true;
    run(enc, [
      { type: 'message-start', id: 'm', model: 'up' },
      { type: 'reasoning-start', id: 'r' },
      { type: 'reasoning-delta', id: 'r', delta: 'secret plan' },
      { type: 'reasoning-signature', id: 'r', signature: 'SIG' },
      { type: 'reasoning-end', id: 'r' },
      { type: 'finish', finishReason: { unified: 'stop' }, usage: {} },
    ]);
    expect(events.some((e) => (e.data.delta as Json | undefined)?.type === 'thought_summary')).toBe(false);
    expect(JSON.stringify(events)).not.toContain('secret plan');
    const step = (opts.sink.final?.steps as Json[])[0]!;
    expect(step.summary).toBeUndefined();
    expect(decodeReasoningToken(step.signature as string)).toEqual({ origin: 'anthropic-messages', text: 'secret plan', signature: 'SIG' });
  });

  it('a failure announces the interaction, then sends the error event and [DONE]; the final object is failed', () => {
    const { enc, events, opts } = encoderFor();
    const out = enc.error(new GatewayError('bad_gateway', 'broke'));
    expect(events.map((e) => e.type)).toEqual(['interaction.created', 'error']);
    expect(events[1]!.data.error).toEqual({ code: 'UNAVAILABLE', message: 'broke' });
    expect(out.endsWith('data: [DONE]\n\n')).toBe(true);
    expect(opts.sink.final).toMatchObject({ status: 'failed', errors: [{ code: 'UNAVAILABLE', message: 'broke' }] });
  });
});

describe('pass-through', () => {
  const plan = (extra: Partial<Parameters<typeof interactionsPassthrough>[0]> = {}) =>
    interactionsPassthrough({ interactionId: 'v1_gw', field: 'model', record: true, sink: {}, now: () => 0, ...extra });

  it('forwards the body with only the model rewritten', () => {
    const raw = '{ "model" : "gemini",  "input":"hi", "tools":[{"type":"google_search"}] }';
    expect(plan().prepareBody(raw, JSON.parse(raw) as Json, 'gemini-2.5-flash', false)).toBe('{ "model" : "gemini-2.5-flash",  "input":"hi", "tools":[{"type":"google_search"}] }');
  });

  it("sends the stored conversation ahead of the input, without another vendor's thoughts, or Gemini's own previous id", () => {
    const token = encodeReasoningToken({ type: 'reasoning', text: 't', signature: 's' }, 'anthropic-messages');
    const history = [{ type: 'user_input', content: [{ type: 'text', text: 'a' }] }, { type: 'thought', signature: token }, { type: 'model_output', content: [{ type: 'text', text: 'b' }] }];
    const parsed = { model: 'gemini', input: 'c', previous_interaction_id: 'v1_prev' };
    const stateless = JSON.parse(plan({ previousInteractionId: 'v1_prev', historySteps: history }).prepareBody(JSON.stringify(parsed), parsed, 'up', true)) as Json;
    expect(stateless).toEqual({ model: 'up', stream: true, input: [history[0], history[2], { type: 'user_input', content: [{ type: 'text', text: 'c' }] }] });
    const stateful = JSON.parse(plan({ previousInteractionId: 'v1_prev', upstreamPreviousId: 'v1_google' }).prepareBody(JSON.stringify(parsed), parsed, 'up', false)) as Json;
    expect(stateful).toEqual({ model: 'up', input: 'c', previous_interaction_id: 'v1_google' });
  });

  it('the relay rewrites lifecycle events and rebuilds the final interaction from the step events', () => {
    const sink: { onEvent?: (t: string, d: string) => void; final?: Json; upstreamId?: string } = {};
    const recorded: string[] = [];
    sink.onEvent = (t) => recorded.push(t);
    const relay = plan({ sink, previousInteractionId: 'v1_prev' }).createRelay({ clientWantsUsage: true, traceId: 'tr' });
    const ev = (type: string, data: Json) => relay.relay({ event: type, data: JSON.stringify({ ...data, event_type: type }) });
    const out = [
      ev('interaction.created', { interaction: { id: 'v1_g', status: 'in_progress', model: 'gemini-2.5-flash' } }),
      ev('interaction.status_update', { interaction_id: 'v1_g', status: 'in_progress' }),
      ev('step.start', { index: 0, step: { type: 'thought', signature: '', summary: [{ type: 'text', text: 'hm' }] } }),
      ev('step.delta', { index: 0, delta: { type: 'thought_signature', signature: 'S' } }),
      ev('step.stop', { index: 0 }),
      ev('step.start', { index: 1, step: { type: 'model_output', content: [{ type: 'text', text: 'Hel' }] } }),
      ev('step.delta', { index: 1, delta: { type: 'text', text: 'lo' } }),
      ev('step.stop', { index: 1 }),
      ev('step.start', { index: 2, step: { type: 'function_call', id: 'f', name: 'n', arguments: {} } }),
      ev('step.delta', { index: 2, delta: { type: 'arguments_delta', arguments: '{"a"' } }),
      ev('step.delta', { index: 2, delta: { type: 'arguments_delta', arguments: ':1}' } }),
      ev('step.stop', { index: 2 }),
      ev('interaction.completed', { interaction: { id: 'v1_g', status: 'requires_action', model: 'gemini-2.5-flash', usage: { total_input_tokens: 3, total_output_tokens: 2, total_thought_tokens: 1, total_tokens: 6 } } }),
      relay.relay({ event: 'done', data: '[DONE]' }),
    ].join('') + relay.end();
    // The model the upstream reported (the concrete version), not the caller's alias.
    expect(out).toContain('"interaction":{"id":"v1_gw","status":"in_progress","model":"gemini-2.5-flash","previous_interaction_id":"v1_prev"}');
    expect(out).toContain('"interaction_id":"v1_gw"');
    expect(out).not.toContain('v1_g"');
    expect(out.endsWith('event: done\ndata: [DONE]\n\n')).toBe(true);
    expect(sink.upstreamId).toBe('v1_g');
    expect(sink.final).toEqual({
      id: 'v1_gw',
      status: 'requires_action',
      model: 'gemini-2.5-flash',
      previous_interaction_id: 'v1_prev',
      steps: [
        { type: 'thought', signature: 'S', summary: [{ type: 'text', text: 'hm' }] },
        { type: 'model_output', content: [{ type: 'text', text: 'Hello' }] },
        { type: 'function_call', id: 'f', name: 'n', arguments: { a: 1 } },
      ],
      usage: { total_input_tokens: 3, total_output_tokens: 2, total_thought_tokens: 1, total_tokens: 6 },
      traceId: 'tr',
    });
    expect(relay.usage()).toEqual({ inputTokens: 3, outputTokens: 3, reasoningTokens: 1, totalTokens: 6 });
    expect(recorded).toHaveLength(13);
  });

  it('a stream that ends before interaction.completed is a failure', () => {
    const relay = plan().createRelay({ clientWantsUsage: true });
    relay.relay({ event: 'interaction.created', data: JSON.stringify({ event_type: 'interaction.created', interaction: { id: 'g', status: 'in_progress' } }) });
    expect(() => relay.end()).toThrow(GatewayError);
  });
});

describe('replay and usage', () => {
  it('replayed events rebuild the stored steps', () => {
    const object = {
      id: 'v1_r',
      status: 'completed',
      model: 'm',
      steps: [
        { type: 'thought', signature: 'S', summary: [{ type: 'text', text: 'why' }] },
        { type: 'model_output', content: [{ type: 'text', text: 'because' }] },
        { type: 'function_call', id: 'c', name: 'f', arguments: { k: [1, 2] } },
      ],
      usage: { total_input_tokens: 1, total_output_tokens: 2, total_tokens: 3 },
    };
    const events = replayInteractionEvents(object);
    expect(events.map((e) => e.type)[0]).toBe('interaction.created');
    expect(events.at(-1)!.type).toBe('interaction.completed');
    expect(events.map((e) => (JSON.parse(e.data) as Json).event_id)).toEqual(events.map((_, i) => String(i)));
    const acc = createStepAccumulator();
    for (const e of events) acc.event(JSON.parse(e.data) as Json);
    expect(acc.steps()).toEqual(object.steps);
    expect(acc.usage()).toEqual(object.usage);
  });

  it('IR usage <-> Interactions usage keeps the upstream counts (thought tokens are not output tokens)', () => {
    const ir = { inputTokens: 10, outputTokens: 7, reasoningTokens: 3, cachedInputTokens: 4, totalTokens: 17 };
    const wire = toInteractionsUsage(ir);
    expect(wire).toEqual({ total_input_tokens: 10, total_output_tokens: 4, total_thought_tokens: 3, total_cached_tokens: 4, total_tokens: 17 });
    expect(fromInteractionsUsage(wire)).toEqual(ir);
    expect(toInteractionsUsage({})).toBeUndefined();
  });
});
