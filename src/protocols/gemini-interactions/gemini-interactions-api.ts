/**
 * Wire schemas of Gemini's Interactions API (`POST /v1beta/interactions`, the `steps` schema), checked
 * against the @google/genai SDK's `interactions` types. Objects are loose: unknown fields are
 * tolerated here (and forwarded to Gemini on pass-through); the translating decoder refuses the
 * top-level fields it cannot carry to another vendor. The top level is validated for every
 * request; contents and steps are validated one by one when translated, so a bad one is a 400
 * naming `input[i]…`. Fields are snake_case, unlike generateContent.
 */
import { z } from 'zod';
import type { Json } from '../shared/json.js';

export type { Json };

export const CONTENT_TYPES = ['text', 'image', 'audio', 'video', 'document'] as const;

const textContentSchema = z.looseObject({ type: z.literal('text'), text: z.string(), annotations: z.array(z.unknown()).optional() });

const mediaFields = { data: z.string().min(1).optional(), uri: z.string().min(1).optional(), mime_type: z.string().min(1).optional() };
const oneSource = (c: { data?: string | undefined; uri?: string | undefined }) => (c.data === undefined) !== (c.uri === undefined);
const SOURCE_MESSAGE = { message: 'exactly one of data or uri is required', path: ['data'] };

const imageContentSchema = z.looseObject({ type: z.literal('image'), ...mediaFields, resolution: z.string().optional() }).refine(oneSource, SOURCE_MESSAGE);
const documentContentSchema = z.looseObject({ type: z.literal('document'), ...mediaFields }).refine(oneSource, SOURCE_MESSAGE);
const audioContentSchema = z.looseObject({ type: z.literal('audio'), ...mediaFields }).refine(oneSource, SOURCE_MESSAGE);
const videoContentSchema = z.looseObject({ type: z.literal('video'), ...mediaFields }).refine(oneSource, SOURCE_MESSAGE);

export const contentSchema = z.discriminatedUnion('type', [textContentSchema, imageContentSchema, documentContentSchema, audioContentSchema, videoContentSchema]);
export type Content = z.output<typeof contentSchema>;

export const userInputStepSchema = z.looseObject({ type: z.literal('user_input'), content: z.array(contentSchema).optional() });
export const modelOutputStepSchema = z.looseObject({ type: z.literal('model_output'), content: z.array(contentSchema).optional(), error: z.unknown().optional() });
export const thoughtStepSchema = z.looseObject({
  type: z.literal('thought'),
  signature: z.string().optional(),
  summary: z.array(z.discriminatedUnion('type', [textContentSchema, imageContentSchema])).optional(),
});
export const functionCallStepSchema = z.looseObject({
  type: z.literal('function_call'),
  id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
});
export const functionResultStepSchema = z.looseObject({
  type: z.literal('function_result'),
  call_id: z.string().min(1),
  name: z.string().optional(),
  result: z.union([z.string(), z.array(contentSchema), z.record(z.string(), z.unknown())]),
  is_error: z.boolean().optional(),
});

const STEP_TYPES = ['user_input', 'model_output', 'thought', 'function_call', 'function_result'] as const;

/** Steps Gemini's own tools leave (google_search_call, code_execution_result, ...): only Gemini can take them back. */
export function isServerToolStep(type: string): boolean {
  return !(STEP_TYPES as readonly string[]).includes(type) && /_(call|result)$/.test(type);
}

const toolSchema = z.looseObject({ type: z.string().min(1) });
export const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: z.string().min(1),
  description: z.string().optional(),
  parameters: z.record(z.string(), z.unknown()).optional(),
});


const generationConfigSchema = z.looseObject({
  temperature: z.number().min(0).max(2).optional(),
  top_p: z.number().min(0).max(1).optional(),
  max_output_tokens: z.number().int().min(1).optional(),
  stop_sequences: z.array(z.string()).optional(),
  seed: z.number().int().optional(),
  presence_penalty: z.number().optional(),
  frequency_penalty: z.number().optional(),
  // Open-ended in the SDK (Gemini may add levels); the translating decoder checks the known ones.
  thinking_level: z.string().min(1).optional(),
  thinking_summaries: z.string().min(1).optional(),
  tool_choice: z
    .union([
      z.string().min(1),
      z.looseObject({ allowed_tools: z.looseObject({ mode: z.string().optional(), tools: z.array(z.string()).optional() }).optional() }),
    ])
    .optional(),
});
export type GenerationConfig = z.output<typeof generationConfigSchema>;

const responseFormatSchema = z.looseObject({ type: z.string().optional() });

/** POST /v1beta/interactions: a model interaction or an agent interaction. */
export const createInteractionSchema = z.looseObject({
  model: z.string().min(1).optional(),
  agent: z.string().min(1).optional(),
  agent_config: z.looseObject({}).optional(),
  input: z.union([z.string(), z.looseObject({ type: z.string() }), z.array(z.looseObject({ type: z.string() }))]).optional(),
  system_instruction: z.string().optional(),
  tools: z.array(toolSchema).optional(),
  generation_config: generationConfigSchema.optional(),
  response_format: z.union([responseFormatSchema, z.array(responseFormatSchema)]).optional(),
  response_modalities: z.array(z.string()).optional(),
  response_mime_type: z.string().optional(),
  previous_interaction_id: z.string().min(1).optional(),
  store: z.boolean().optional(),
  stream: z.boolean().optional(),
  background: z.boolean().optional(),
  safety_settings: z.array(z.looseObject({})).optional(),
  service_tier: z.string().optional(),
  webhook_config: z.looseObject({}).optional(),
  environment: z.union([z.string(), z.looseObject({})]).optional(),
  labels: z.record(z.string(), z.string()).optional(),
  cached_content: z.string().optional(),
  continuation_token: z.string().optional(),
});
export type CreateInteractionRequest = z.output<typeof createInteractionSchema>;

/** Statuses of an interaction (the SDK's InteractionStatus). */
export type InteractionStatus = 'in_progress' | 'requires_action' | 'completed' | 'failed' | 'cancelled' | 'incomplete';

/** Usage as the Interactions API reports it. */
export interface InteractionsUsageWire {
  total_input_tokens?: number;
  total_output_tokens?: number;
  total_thought_tokens?: number;
  total_cached_tokens?: number;
  total_tool_use_tokens?: number;
  total_tokens?: number;
  [k: string]: unknown;
}
