import { z } from 'zod';
import { arrayOf, bySchema, nullish, num as isNumber, object, str } from '../shared/wire-check.js';

const num = (min: number, max: number) => z.number().min(min).max(max).nullish();

const textPart = z.looseObject({ type: z.literal('text'), text: z.string() });
const imagePart = z.looseObject({
  type: z.literal('image_url'),
  image_url: z.looseObject({ url: z.string().min(1), detail: z.enum(['auto', 'low', 'high']).optional() }),
});
const audioPart = z.looseObject({
  type: z.literal('input_audio'),
  input_audio: z.looseObject({ data: z.string(), format: z.string() }),
});
const filePart = z.looseObject({
  type: z.literal('file'),
  file: z.looseObject({ file_data: z.string().optional(), file_id: z.string().optional(), filename: z.string().optional() }),
});
const refusalPart = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });

const userPartSchema = z.discriminatedUnion('type', [textPart, imagePart, audioPart, filePart]);
const textContent = z.union([z.string(), z.array(textPart)]);

const toolCallSchema = z.looseObject({
  id: z.string(),
  type: z.literal('function').default('function'),
  function: z.looseObject({ name: z.string(), arguments: z.string().default('') }),
});

const messageSchema = z.discriminatedUnion('role', [
  z.looseObject({ role: z.literal('system'), content: textContent, name: z.string().optional() }),
  z.looseObject({ role: z.literal('developer'), content: textContent, name: z.string().optional() }),
  z.looseObject({ role: z.literal('user'), content: z.union([z.string(), z.array(userPartSchema)]), name: z.string().optional() }),
  z.looseObject({
    role: z.literal('assistant'),
    content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textPart, refusalPart]))]).nullish(),
    tool_calls: z.array(toolCallSchema).nullish(),
    refusal: z.string().nullish(),
    reasoning_content: z.string().nullish(),
    name: z.string().optional(),
  }),
  z.looseObject({ role: z.literal('tool'), content: textContent, tool_call_id: z.string().min(1) }),
]);

const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  function: z.looseObject({
    name: z.string().regex(/^[a-zA-Z0-9_-]{1,64}$/, 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -'),
    description: z.string().optional(),
    parameters: z.record(z.string(), z.unknown()).optional(),
    strict: z.boolean().nullish(),
  }),
});
// Other tool types (custom, vendor tools) pass through; a `function` tool must be a valid one.
const toolSchema = z.union([functionToolSchema, z.looseObject({ type: z.string().refine((t) => t !== 'function', 'function tools need a valid function') })]);

const toolChoiceSchema = z.union([
  z.enum(['none', 'auto', 'required']),
  z.looseObject({ type: z.literal('function'), function: z.looseObject({ name: z.string().min(1) }) }),
]);

const responseFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    json_schema: z.looseObject({
      name: z.string().min(1),
      description: z.string().optional(),
      schema: z.record(z.string(), z.unknown()).optional(),
      strict: z.boolean().nullish(),
    }),
  }),
]);

/**
 * Vendor extensions of the OpenAI-compatible endpoints of Gemini and Anthropic (sent by the OpenAI
 * SDKs as `extra_body`): Gemini's `google.thinking_config` (top level, or under a literal
 * `extra_body` key as the Python SDK's nested `extra_body` sends it) and Anthropic's `thinking`.
 */
const googleThinkingConfigSchema = z.looseObject({
  /** Tokens; 0 turns thinking off, -1 lets the model decide. */
  thinking_budget: z.number().int().min(-1).nullish(),
  include_thoughts: z.boolean().nullish(),
  /** Gemini 3's level instead of a budget. */
  thinking_level: z.enum(['minimal', 'low', 'medium', 'high']).nullish(),
});
export const googleExtensionSchema = z.looseObject({ thinking_config: googleThinkingConfigSchema.nullish() });
export type GoogleExtension = z.output<typeof googleExtensionSchema>;
const anthropicThinkingSchema = z.discriminatedUnion('type', [
  // Some OpenAI-compatible servers (GLM, Kimi) take `{"type": "enabled"}` without a budget.
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1).optional() }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive') }),
]);
export type AnthropicThinkingExtension = z.output<typeof anthropicThinkingSchema>;

export const DEFAULT_MAX_TOKENS = 4096;

/** POST /v1/chat/completions. Unknown fields pass through to the upstream. */
export const chatRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    messages: z.array(messageSchema).min(1, 'must contain at least one message'),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_usage: z.boolean().optional() }).nullish(),
    max_tokens: z.number().int().min(1).nullish(),
    max_completion_tokens: z.number().int().min(1).nullish(),
    temperature: num(0, 2),
    top_p: num(0, 1),
    n: z.number().int().min(1).nullish(),
    stop: z.union([z.string(), z.array(z.string()).max(4, 'at most 4 stop sequences')]).nullish(),
    presence_penalty: num(-2, 2),
    frequency_penalty: num(-2, 2),
    logit_bias: z.record(z.string().regex(/^\d+$/, 'keys must be token ids'), z.number().min(-100).max(100)).nullish(),
    logprobs: z.boolean().nullish(),
    top_logprobs: z.number().int().min(0).max(5).nullish(),
    seed: z.number().int().nullish(),
    response_format: responseFormatSchema.nullish(),
    tools: z.array(toolSchema).nullish(),
    tool_choice: toolChoiceSchema.nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    reasoning_effort: z.enum(['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max']).nullish(),
    user: z.string().nullish(),
    google: googleExtensionSchema.nullish(),
    extra_body: z.looseObject({ google: googleExtensionSchema.nullish() }).nullish(),
    thinking: anthropicThinkingSchema.nullish(),
  })
  .superRefine((req, ctx) => {
    if (req.top_logprobs !== undefined && req.top_logprobs !== null && req.logprobs !== true) {
      ctx.addIssue({ code: 'custom', path: ['top_logprobs'], message: 'requires logprobs to be true' });
    }
    if (req.stream_options && req.stream !== true) {
      ctx.addIssue({ code: 'custom', path: ['stream_options'], message: 'only allowed when stream is true' });
    }
    if (req.tool_choice && typeof req.tool_choice === 'object' && !(req.tools && req.tools.length > 0)) {
      ctx.addIssue({ code: 'custom', path: ['tool_choice'], message: 'names a function but no tools were given' });
    }
    if (req.google && req.extra_body?.google) {
      ctx.addIssue({ code: 'custom', path: ['extra_body', 'google'], message: 'send google either at the top level or under extra_body, not both' });
    }
  });

export type ChatRequest = z.output<typeof chatRequestSchema>;
export type ChatMessage = z.output<typeof messageSchema>;

const usageSchema = z.looseObject({
  prompt_tokens: z.number().optional(),
  completion_tokens: z.number().optional(),
  total_tokens: z.number().optional(),
  prompt_tokens_details: z.looseObject({ cached_tokens: z.number().nullish() }).nullish(),
  completion_tokens_details: z.looseObject({ reasoning_tokens: z.number().nullish() }).nullish(),
});

/** What an OpenAI-compatible upstream must send back (validated loosely: extra fields are fine). */
export const chatResponseSchema = z.looseObject({
  id: z.string().optional(),
  model: z.string().optional(),
  created: z.number().optional(),
  choices: z.array(
    z.looseObject({
      index: z.number().optional(),
      message: z.looseObject({
        content: z.string().nullish(),
        reasoning_content: z.string().nullish(),
        refusal: z.string().nullish(),
        tool_calls: z.array(toolCallSchema).nullish(),
      }),
      finish_reason: z.string().nullish(),
    }),
  ),
  usage: usageSchema.nullish(),
});

export type UsageWire = z.output<typeof usageSchema>;

/**
 * One `chat.completion.chunk` of an upstream stream (loose like the answer: extra fields are fine,
 * and compatible servers send null where OpenAI leaves a field out). Error chunks are read before.
 * The fields the decoder reads are checked, in place (a check per chunk, not a schema copy: see
 * shared/wire-check.ts).
 */
export const isChatChunk = object({
  id: nullish(str),
  model: nullish(str),
  usage: nullish(bySchema(usageSchema)),
  choices: nullish(
    arrayOf(
      object({
        index: nullish(isNumber),
        delta: nullish(
          object({
            content: nullish(str),
            reasoning_content: nullish(str),
            reasoning: nullish(str),
            refusal: nullish(str),
            tool_calls: nullish(arrayOf(object({ index: nullish(isNumber), id: nullish(str), function: nullish(object({ name: nullish(str), arguments: nullish(str) })) }))),
          }),
        ),
        finish_reason: nullish(str),
      }),
    ),
  ),
});
