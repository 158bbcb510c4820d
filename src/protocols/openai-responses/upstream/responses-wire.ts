/**
 * What an OpenAI Responses upstream sends back, as zod schemas: the `response` object and every
 * stream event the upstream codec reads (field names from the `openai` SDK's
 * resources/responses/responses.d.ts). Objects are loose: fields the gateway does not read may come
 * and go; what it reads must have the right type, or the answer is a 502.
 */
import { z } from 'zod';

const responsesUsageSchema = z.looseObject({
  input_tokens: z.number().int().nonnegative(),
  output_tokens: z.number().int().nonnegative(),
  total_tokens: z.number().int().nonnegative().optional(),
  input_tokens_details: z.looseObject({ cached_tokens: z.number().int().nullish(), cache_write_tokens: z.number().int().nullish() }).nullish(),
  output_tokens_details: z.looseObject({ reasoning_tokens: z.number().int().nullish() }).nullish(),
});
export type ResponsesUsageWire = z.output<typeof responsesUsageSchema>;

const outputTextSchema = z.looseObject({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()).optional() });
const refusalSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
/** Content parts of an assistant message; other part types are read as nothing. */
const contentPartSchema = z.union([outputTextSchema, refusalSchema, z.looseObject({ type: z.string().refine((t) => t !== 'output_text' && t !== 'refusal') })]);

const messageItemSchema = z.looseObject({
  type: z.literal('message'),
  id: z.string().optional(),
  role: z.literal('assistant').optional(),
  content: z.array(contentPartSchema),
});
const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().optional(),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().optional(),
});
const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string(),
  summary: z.array(z.looseObject({ text: z.string() })).optional(),
  content: z.array(z.looseObject({ text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

const KNOWN_ITEMS = new Set(['message', 'function_call', 'reasoning']);
/** One output item: the three the gateway reads are checked; built-in tool items are passed over. */
const outputItemSchema = z.union([
  z.discriminatedUnion('type', [messageItemSchema, functionCallItemSchema, reasoningItemSchema]),
  z.looseObject({ type: z.string().refine((t) => !KNOWN_ITEMS.has(t), 'malformed output item') }),
]);
export type OutputItemWire = z.output<typeof outputItemSchema>;
export type MessageItemWire = z.output<typeof messageItemSchema>;
export type ReasoningItemWire = z.output<typeof reasoningItemSchema>;

const RESPONSE_STATUSES = ['completed', 'incomplete', 'failed', 'in_progress', 'queued', 'cancelled'] as const;

export const responseObjectSchema = z.looseObject({
  id: z.string().min(1),
  object: z.literal('response').optional(),
  created_at: z.number().optional(),
  status: z.enum(RESPONSE_STATUSES).optional(),
  model: z.string().optional(),
  output: z.array(outputItemSchema),
  usage: responsesUsageSchema.nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string() }).nullish(),
  incomplete_details: z.looseObject({ reason: z.string().nullish() }).nullish(),
});
export type ResponseObjectWire = z.output<typeof responseObjectSchema>;

/** `response.created` / `in_progress` / `queued` carry the response before it has output. */
const responseHeadSchema = z.looseObject({ id: z.string().min(1), model: z.string().optional(), created_at: z.number().optional() });

const seq = { sequence_number: z.number().int().nonnegative().optional() };
const at = { ...seq, item_id: z.string(), output_index: z.number().int().nonnegative() };

/** The stream events the decoder reads, by `type`; other event types are passed over. */
export const streamEventSchemas = {
  'response.created': z.looseObject({ ...seq, response: responseHeadSchema }),
  'response.in_progress': z.looseObject({ ...seq, response: responseHeadSchema }),
  'response.queued': z.looseObject({ ...seq, response: responseHeadSchema }),
  'response.output_item.added': z.looseObject({ ...seq, output_index: z.number().int().nonnegative(), item: outputItemSchema }),
  'response.output_item.done': z.looseObject({ ...seq, output_index: z.number().int().nonnegative(), item: outputItemSchema }),
  'response.content_part.added': z.looseObject({ ...at, content_index: z.number().int().nonnegative(), part: z.looseObject({ type: z.string() }) }),
  'response.content_part.done': z.looseObject({ ...at, content_index: z.number().int().nonnegative(), part: z.looseObject({ type: z.string() }) }),
  'response.output_text.delta': z.looseObject({ ...at, content_index: z.number().int().nonnegative(), delta: z.string() }),
  'response.refusal.delta': z.looseObject({ ...at, content_index: z.number().int().nonnegative(), delta: z.string() }),
  'response.function_call_arguments.delta': z.looseObject({ ...at, delta: z.string() }),
  'response.function_call_arguments.done': z.looseObject({ ...at, arguments: z.string() }),
  'response.reasoning_summary_part.added': z.looseObject({ ...at, summary_index: z.number().int().nonnegative() }),
  'response.reasoning_summary_text.delta': z.looseObject({ ...at, summary_index: z.number().int().nonnegative(), delta: z.string() }),
  'response.reasoning_text.delta': z.looseObject({ ...at, delta: z.string() }),
  'response.completed': z.looseObject({ ...seq, response: responseObjectSchema }),
  'response.incomplete': z.looseObject({ ...seq, response: responseObjectSchema }),
  'response.failed': z.looseObject({ ...seq, response: responseObjectSchema }),
  error: z.looseObject({ ...seq, code: z.string().nullish(), message: z.string(), param: z.string().nullish() }),
} as const;

export type StreamEventType = keyof typeof streamEventSchemas;
export type StreamEventWire<T extends StreamEventType> = z.output<(typeof streamEventSchemas)[T]>;

export function isReadEvent(type: string): type is StreamEventType {
  return Object.prototype.hasOwnProperty.call(streamEventSchemas, type);
}
