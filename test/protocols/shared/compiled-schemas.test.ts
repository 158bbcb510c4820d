/**
 * The request validators run zod's compiled fast path (z.compile); it must give exactly what the
 * interpreter gives: the same value (same keys in the same order, defaults filled the same way) for
 * a valid body, and the same 400 (message and param) for an invalid one. Random mutations of rich
 * valid bodies: values swapped for near-misses, keys dropped or added (also `__proto__`), at every depth.
 */
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { GatewayError } from '../../../src/core/errors.js';
import { chatRequestSchema } from '../../../src/protocols/openai-chat/openai-chat-api.js';
import { validateChatRequest } from '../../../src/protocols/openai-chat/client/decode-request.js';
import { contentBlockSchema, countTokensRequestSchema, customToolSchema, messagesRequestSchema } from '../../../src/protocols/anthropic-messages/anthropic-messages-api.js';
import { validateCountTokensRequest, validateMessagesRequest } from '../../../src/protocols/anthropic-messages/client/decode-request.js';
import { functionCallItemSchema, functionCallOutputItemSchema, messageItemSchema, responsesRequestSchema } from '../../../src/protocols/openai-responses/openai-responses-api.js';
import { validateResponsesRequest } from '../../../src/protocols/openai-responses/client/decode-request.js';
import { parseOrThrow } from '../../../src/protocols/shared/zod-error.js';
import { seededRandom } from '../../helpers/seeded-random.js';

const schemaWords = [
  'function', 'text', 'user', 'assistant', 'system', 'tool', 'developer', 'auto', 'none', 'required', 'any', 'custom',
  'json_schema', 'json_object', 'image_url', 'input_audio', 'file', 'refusal', 'ephemeral', 'enabled', 'disabled', 'adaptive',
  'low', 'medium', 'high', 'xhigh', '5m', '1h', 'input_text', 'message', 'web_search', 'get_weather', 'bad name!', '12', 'x'.repeat(70),
];
const values: unknown[] = [
  null, true, false, 0, 1, -1, 2, 3, 0.5, 1.5, 5, 20, 100, 101, 1023, 1024, 4096, 2 ** 53, -2.5, '', 'x', ...schemaWords,
  [], {}, [{}], ['a', 'b'], ['a', 'b', 'c', 'd', 'e'], { type: 'text', text: 'hi' }, { name: 'f' }, [{ type: 'function', function: { name: 'f' } }],
];
const extraKeys = ['__proto__', 'extra', 'type', 'name', 'content', 'text', 'function', 'arguments', 'id', 'logprobs', 'stream', 'store', 'background'];

function containers(v: unknown, out: Array<Record<string, unknown> | unknown[]>): typeof out {
  if (v && typeof v === 'object') {
    out.push(v as Record<string, unknown> | unknown[]);
    for (const child of Object.values(v)) containers(child, out);
  }
  return out;
}

/** One random change somewhere in `body` (in place). */
function mutate(body: Record<string, unknown>, rand: () => number): void {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T;
  const target = pick(containers(body, []));
  const keys = Object.keys(target);
  const r = rand();
  const value = structuredClone(pick(values));
  if (Array.isArray(target)) {
    if (r < 0.2 && target.length) target.splice(Math.floor(rand() * target.length), 1);
    else if (r < 0.4) target.push(value);
    else if (target.length) target[Math.floor(rand() * target.length)] = value;
    return;
  }
  if (r < 0.25 && keys.length) delete target[pick(keys)];
  else if (r < 0.45) Object.defineProperty(target, pick(extraKeys), { value, enumerable: true, writable: true, configurable: true });
  else if (r < 0.55) {
    // Same keys, another order.
    const entries = Object.entries(target).sort(() => rand() - 0.5);
    for (const k of keys) delete target[k];
    for (const [k, v] of entries) Object.defineProperty(target, k, { value: v, enumerable: true, writable: true, configurable: true });
  } else if (keys.length) target[pick(keys)] = value;
}

function outcome(run: () => unknown): { value: unknown } | { error: string } {
  try {
    return { value: run() };
  } catch (err) {
    if (!(err instanceof GatewayError)) throw err;
    return { error: `${err.message} | ${String(err.param)}` };
  }
}

/** `prefix`: the param prefix `fast` passes to parseOrThrow (item schemas are checked under their item's path). */
function compareOnMutations(seed: number, template: Record<string, unknown>, schema: z.ZodType, fast: (body: Record<string, unknown>) => unknown, runs = 2500, prefix?: string) {
  const rand = seededRandom(seed);
  let accepted = 0;
  let refused = 0;
  for (let i = 0; i < runs; i++) {
    const body = structuredClone(template);
    const changes = i === 0 ? 0 : 1 + Math.floor(rand() * 3);
    for (let c = 0; c < changes; c++) mutate(body, rand);
    // As the endpoints get it: parsed from the wire, one fresh copy per validator.
    const text = JSON.stringify(body);
    const slow = outcome(() => parseOrThrow(schema, JSON.parse(text) as Record<string, unknown>, prefix));
    const quick = outcome(() => fast(JSON.parse(text) as Record<string, unknown>));
    if ('value' in slow && 'value' in quick) {
      accepted++;
      // Same keys in the same order (JSON text), same own properties (undefined-valued keys too).
      if (JSON.stringify(quick.value) !== JSON.stringify(slow.value) || !isDeepStrictEqual(quick.value, slow.value)) {
        expect.fail(`different value for ${text}:\n${JSON.stringify(quick.value)}\n${JSON.stringify(slow.value)}`);
      }
    } else {
      refused++;
      expect(quick, text).toEqual(slow);
    }
  }
  // Both sides of the fast path are exercised.
  expect(accepted).toBeGreaterThan(runs / 10);
  expect(refused).toBeGreaterThan(runs / 10);
}

const chatTemplate = {
  model: 'gpt-x',
  messages: [
    { role: 'system', content: 'Be brief.', name: 'sys' },
    { role: 'developer', content: [{ type: 'text', text: 'dev' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'look' },
        { type: 'image_url', image_url: { url: 'https://e.x/a.png', detail: 'low' } },
        { type: 'file', file: { file_id: 'f1', filename: 'a.pdf' } },
        { type: 'input_audio', input_audio: { data: 'AAA', format: 'wav' } },
      ],
    },
    { role: 'assistant', content: null, tool_calls: [{ id: 'c1', function: { name: 'get_weather' } }, { id: 'c2', type: 'function', function: { name: 'f', arguments: '{}' } }], reasoning_content: 'hm' },
    { role: 'tool', content: 'sunny', tool_call_id: 'c1' },
    { role: 'assistant', content: [{ type: 'text', text: 'a' }, { type: 'refusal', refusal: 'no' }], refusal: null },
  ],
  stream: true,
  stream_options: { include_usage: true },
  max_tokens: 100,
  max_completion_tokens: 50,
  temperature: 0.5,
  top_p: 1,
  n: 1,
  stop: ['a', 'b'],
  presence_penalty: 0,
  frequency_penalty: -1,
  logit_bias: { '12': 5 },
  logprobs: true,
  top_logprobs: 2,
  seed: 7,
  response_format: { type: 'json_schema', json_schema: { name: 'out', schema: { type: 'object' }, strict: true } },
  tools: [{ type: 'function', function: { name: 'get_weather', parameters: { type: 'object', properties: {} }, strict: null } }, { type: 'web_search', extra: 1 }],
  tool_choice: { type: 'function', function: { name: 'get_weather' } },
  parallel_tool_calls: false,
  reasoning_effort: 'low',
  user: 'u1',
  metadata: { a: 'b' },
};

const anthropicShared = {
  model: 'claude-x',
  messages: [
    { role: 'user', content: 'hi' },
    { role: 'assistant', content: [{ type: 'text', text: 'yo' }, { type: 'tool_use', id: 't1', name: 'get_weather', input: {} }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'sunny' }] },
    { role: 'system', content: [{ type: 'text', text: 'mid' }] },
  ],
  system: [{ type: 'text', text: 'Be brief.', cache_control: { type: 'ephemeral' } }],
  tools: [
    { name: 'get_weather', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral', ttl: '5m' }, strict: true },
    { type: 'web_search_20250305', name: 'web_search', max_uses: 2 },
  ],
  tool_choice: { type: 'tool', name: 'get_weather', disable_parallel_tool_use: true },
  thinking: { type: 'enabled', budget_tokens: 1024, display: 'summarized' },
  output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
};
const messagesTemplate = {
  ...anthropicShared,
  max_tokens: 4096,
  temperature: 0.5,
  top_p: 1,
  top_k: 5,
  stop_sequences: ['x'],
  stream: false,
  metadata: { user_id: null },
};

const responsesTemplate = {
  model: 'gpt-x',
  input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }, { type: 'function_call_output', call_id: 'c', output: 'ok' }],
  instructions: 'Be brief.',
  stream: true,
  stream_options: { include_obfuscation: false },
  background: false,
  store: true,
  previous_response_id: 'resp_1',
  max_output_tokens: 100,
  max_tool_calls: 2,
  temperature: 1,
  top_p: 0.5,
  top_logprobs: 3,
  tools: [{ type: 'function', name: 'f', parameters: {} }],
  tool_choice: { type: 'function', name: 'f' },
  parallel_tool_calls: true,
  text: { format: { type: 'json_schema', name: 'out', schema: { type: 'object' }, strict: true }, verbosity: 'low' },
  reasoning: { effort: 'low', summary: 'auto', generate_summary: null },
  metadata: { a: 'b' },
  include: ['reasoning.encrypted_content'],
  truncation: 'auto',
  prompt: { id: 'p' },
  user: 'u',
  safety_identifier: 's',
  prompt_cache_key: 'k',
  service_tier: 'auto',
};

describe('compiled request validators give what the zod interpreter gives', { timeout: 120_000 }, () => {
  it('OpenAI chat', () => compareOnMutations(1, chatTemplate, chatRequestSchema, validateChatRequest));
  it('Anthropic messages', () => compareOnMutations(2, messagesTemplate, messagesRequestSchema, validateMessagesRequest));
  it('Anthropic count_tokens', () => compareOnMutations(3, anthropicShared, countTokensRequestSchema, validateCountTokensRequest));
  it('OpenAI responses', () => compareOnMutations(4, responsesTemplate, responsesRequestSchema, validateResponsesRequest));
  // The per-item schemas of translated requests (compiled where the decoders call them).
  const compiledAgainst = (schema: z.ZodType) => {
    const compiled = z.compile(schema);
    return (body: Record<string, unknown>) => parseOrThrow(compiled, body, 'item');
  };
  const blocks: Array<Record<string, unknown>> = [
    { type: 'text', text: 'hi', cache_control: { type: 'ephemeral', ttl: '1h' } },
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    { type: 'document', source: { type: 'content', content: [{ type: 'text', text: 'x' }] }, title: null, context: 'c' },
    { type: 'tool_use', id: 't1', name: 'f', input: { a: 1 } },
    { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }, { type: 'image', source: { type: 'url', url: 'https://e.x/a.png' } }], is_error: false },
    { type: 'thinking', thinking: 'hm', signature: 's' },
    { type: 'redacted_thinking', data: 'd' },
  ];
  blocks.forEach((block, i) => {
    it(`Anthropic content block '${String(block.type)}'`, () => compareOnMutations(10 + i, block, contentBlockSchema, compiledAgainst(contentBlockSchema), 800, 'item'));
  });
  it('Anthropic custom tool', () =>
    compareOnMutations(20, { name: 'get_weather', description: 'd', input_schema: { type: 'object' }, cache_control: { type: 'ephemeral' }, strict: true }, customToolSchema, compiledAgainst(customToolSchema), 800, 'item'));
  it('Responses message item', () =>
    compareOnMutations(21, { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }, { type: 'input_image', image_url: 'https://e.x/a.png', detail: 'low' }], id: null }, messageItemSchema, compiledAgainst(messageItemSchema), 800, 'item'));
  it('Responses function call item', () =>
    compareOnMutations(22, { type: 'function_call', call_id: 'c', name: 'f', arguments: '{}', namespace: null, id: 'fc_1' }, functionCallItemSchema, compiledAgainst(functionCallItemSchema), 800, 'item'));
  it('Responses function call output item', () =>
    compareOnMutations(23, { type: 'function_call_output', call_id: 'c', output: [{ type: 'input_text', text: 'ok' }] }, functionCallOutputItemSchema, compiledAgainst(functionCallOutputItemSchema), 800, 'item'));

  it('fills defaults like the interpreter (tool call type and arguments)', () => {
    const req = validateChatRequest({ model: 'm', messages: [{ role: 'assistant', tool_calls: [{ function: { name: 'f' }, id: 'c' }] }] });
    expect(JSON.stringify(req.messages[0])).toBe('{"role":"assistant","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":""}}]}');
  });
});
