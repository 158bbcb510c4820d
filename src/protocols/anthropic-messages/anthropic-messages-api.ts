/**
 * zod schemas of the Anthropic Messages wire format (POST /v1/messages, count_tokens, responses).
 * The request schema is split in two: `messagesRequestSchema` checks the envelope every entry
 * point needs (also before a pass-through, where Anthropic itself checks the rest), and
 * `contentBlockSchema` etc. check each block strictly when the request is translated.
 */
import { z } from 'zod';
import { bySchema, num, nullish, object, optional, str } from '../shared/wire-check.js';

export const DEFAULT_ANTHROPIC_MAX_TOKENS = 4096;

const cacheControlSchema = z.looseObject({ type: z.literal('ephemeral'), ttl: z.enum(['5m', '1h']).optional() });

const looseBlock = z.looseObject({ type: z.string() });

const systemBlocks = z.array(z.looseObject({ type: z.literal('text'), text: z.string() }));

/**
 * Envelope of a message: roles and content shape only. `system` inside messages is a newer beta
 * (`mid-conversation-system-2026-04-07`, sent by Claude Code for non-Claude model ids).
 */
const messageEnvelope = z.discriminatedUnion(
  'role',
  [
    z.looseObject({ role: z.enum(['user', 'assistant']), content: z.union([z.string(), z.array(looseBlock)]) }),
    z.looseObject({ role: z.literal('system'), content: z.union([z.string(), systemBlocks]) }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? "role must be 'user', 'assistant' or 'system'" : undefined) },
);

const systemSchema = z.union([z.string(), systemBlocks]);

const toolChoiceSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('auto'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('any'), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('tool'), name: z.string().min(1), disable_parallel_tool_use: z.boolean().optional() }),
  z.looseObject({ type: z.literal('none') }),
]);

const thinkingSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('enabled'), budget_tokens: z.number().int().min(1024), display: z.string().optional() }),
  z.looseObject({ type: z.literal('disabled') }),
  z.looseObject({ type: z.literal('adaptive'), display: z.string().optional() }),
]);

/** A custom tool (no `type` or `type: "custom"`) or a server tool with a versioned type. */
export const customToolSchema = z.looseObject({
  type: z.literal('custom').optional(),
  name: z.string().regex(/^[a-zA-Z0-9_-]{1,128}$/, 'must be 1-128 characters of a-z, A-Z, 0-9, _ and -'),
  description: z.string().optional(),
  input_schema: z.record(z.string(), z.unknown()),
  cache_control: cacheControlSchema.nullish(),
  strict: z.boolean().optional(),
});
const toolSchema = z.union([customToolSchema, z.looseObject({ type: z.string(), name: z.string() })]);

const outputConfigSchema = z.looseObject({
  effort: z.enum(['low', 'medium', 'high', 'xhigh', 'max']).optional(),
  format: z.looseObject({ type: z.literal('json_schema'), schema: z.record(z.string(), z.unknown()) }).nullish(),
});

const sharedFields = {
  model: z.string().min(1),
  messages: z.array(messageEnvelope),
  system: systemSchema.optional(),
  tools: z.array(toolSchema).optional(),
  tool_choice: toolChoiceSchema.optional(),
  thinking: thinkingSchema.optional(),
  output_config: outputConfigSchema.optional(),
};

export const messagesRequestSchema = z
  .looseObject({
    ...sharedFields,
    max_tokens: z.number({ message: 'is required (an integer)' }).int().min(0),
    temperature: z.number().min(0).max(1).optional(),
    top_p: z.number().min(0).max(1).optional(),
    top_k: z.number().int().min(0).optional(),
    stop_sequences: z.array(z.string()).optional(),
    stream: z.boolean().optional(),
    metadata: z.looseObject({ user_id: z.string().nullish() }).optional(),
  })
  .superRefine((req, ctx) => {
    if (req.thinking?.type === 'enabled' && req.thinking.budget_tokens >= req.max_tokens) {
      ctx.addIssue({ code: 'custom', path: ['thinking', 'budget_tokens'], message: 'must be less than max_tokens' });
    }
  });

export const countTokensRequestSchema = z.looseObject(sharedFields);

export type MessagesRequest = z.output<typeof messagesRequestSchema>;
export type CountTokensRequest = z.output<typeof countTokensRequestSchema>;

// ---- content blocks (checked strictly when translating) ----

const base64Source = z.looseObject({ type: z.literal('base64'), media_type: z.string().min(1), data: z.string().min(1) });
const urlSource = z.looseObject({ type: z.literal('url'), url: z.string().min(1) });
const fileSource = z.looseObject({ type: z.literal('file'), file_id: z.string().min(1) });

const textBlockSchema = z.looseObject({ type: z.literal('text'), text: z.string(), cache_control: cacheControlSchema.nullish() });
const imageBlockSchema = z.looseObject({
  type: z.literal('image'),
  source: z.discriminatedUnion('type', [
    base64Source.extend({ media_type: z.enum(['image/jpeg', 'image/png', 'image/gif', 'image/webp']) }),
    urlSource,
    fileSource,
  ]),
  cache_control: cacheControlSchema.nullish(),
});
const documentBlockSchema = z.looseObject({
  type: z.literal('document'),
  source: z.discriminatedUnion('type', [
    base64Source,
    urlSource,
    fileSource,
    z.looseObject({ type: z.literal('text'), media_type: z.string().optional(), data: z.string() }),
    z.looseObject({ type: z.literal('content'), content: z.union([z.string(), z.array(looseBlock)]) }),
  ]),
  title: z.string().nullish(),
  context: z.string().nullish(),
  cache_control: cacheControlSchema.nullish(),
});
const toolResultBlockSchema = z.looseObject({
  type: z.literal('tool_result'),
  tool_use_id: z.string().min(1),
  content: z.union([z.string(), z.array(z.discriminatedUnion('type', [textBlockSchema, imageBlockSchema, documentBlockSchema]))]).optional(),
  is_error: z.boolean().optional(),
  cache_control: cacheControlSchema.nullish(),
});
const toolUseBlockSchema = z.looseObject({
  type: z.literal('tool_use'),
  id: z.string().min(1),
  name: z.string().min(1),
  input: z.record(z.string(), z.unknown()),
  cache_control: cacheControlSchema.nullish(),
});
const thinkingBlockSchema = z.looseObject({ type: z.literal('thinking'), thinking: z.string(), signature: z.string() });
const redactedThinkingBlockSchema = z.looseObject({ type: z.literal('redacted_thinking'), data: z.string() });

export const contentBlockSchema = z.discriminatedUnion('type', [
  textBlockSchema,
  imageBlockSchema,
  documentBlockSchema,
  toolUseBlockSchema,
  toolResultBlockSchema,
  thinkingBlockSchema,
  redactedThinkingBlockSchema,
]);
export type ContentBlock = z.output<typeof contentBlockSchema>;
export type ImageBlock = z.output<typeof imageBlockSchema>;
export type DocumentBlock = z.output<typeof documentBlockSchema>;

// ---- responses ----

const anthropicUsageSchema = z.looseObject({
  input_tokens: z.number().nullish(),
  output_tokens: z.number().nullish(),
  cache_creation_input_tokens: z.number().nullish(),
  cache_read_input_tokens: z.number().nullish(),
  output_tokens_details: z.looseObject({ thinking_tokens: z.number().nullish() }).nullish(),
});
export type AnthropicUsage = z.output<typeof anthropicUsageSchema>;

export const messageResponseSchema = z.looseObject({
  id: z.string(),
  type: z.literal('message').optional(),
  role: z.literal('assistant').optional(),
  model: z.string().optional(),
  content: z.array(looseBlock),
  stop_reason: z.string().nullish(),
  stop_sequence: z.string().nullish(),
  usage: anthropicUsageSchema.nullish(),
});

/**
 * One event of an upstream Messages stream (loose: event types added later pass, and are ignored).
 * The fields the decoder reads are checked, in place (a check per event, not a schema copy: see
 * shared/wire-check.ts); `error` events are read whatever their shape.
 */
export const isStreamEvent = object({
  type: optional(str),
  index: optional(num),
  message: optional(object({ id: optional(str), model: optional(str), usage: nullish(bySchema(anthropicUsageSchema)) })),
  content_block: optional(object({ type: str, id: optional(str), name: optional(str), text: optional(str), thinking: optional(str) })),
  delta: optional(
    object({
      type: optional(str),
      text: optional(str),
      thinking: optional(str),
      signature: optional(str),
      partial_json: optional(str),
      stop_reason: nullish(str),
      stop_sequence: nullish(str),
    }),
  ),
  usage: nullish(bySchema(anthropicUsageSchema)),
});
