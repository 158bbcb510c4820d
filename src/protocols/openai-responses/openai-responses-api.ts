/**
 * Wire schemas of the OpenAI Responses API (`POST /v1/responses`), checked against the `openai`
 * SDK's types. Objects are loose: unknown fields are tolerated (and forwarded on pass-through).
 * The top level is validated for every request; input items and tools are validated one by one
 * when a request is translated for another vendor, so a bad item is a 400 naming `input[i]…`.
 */
import { z } from 'zod';

const num = (min: number, max: number) => z.number().min(min).max(max).nullish();

const REASONING_EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;

const textFormatSchema = z.discriminatedUnion('type', [
  z.looseObject({ type: z.literal('text') }),
  z.looseObject({ type: z.literal('json_object') }),
  z.looseObject({
    type: z.literal('json_schema'),
    name: z.string().min(1),
    schema: z.record(z.string(), z.unknown()),
    description: z.string().nullish(),
    strict: z.boolean().nullish(),
  }),
]);

/** POST /v1/responses (and the body of POST /v1/responses/input_tokens). */
export const responsesRequestSchema = z
  .looseObject({
    model: z.string().min(1),
    input: z.union([z.string(), z.array(z.looseObject({}))]).nullish(),
    instructions: z.string().nullish(),
    stream: z.boolean().nullish(),
    stream_options: z.looseObject({ include_obfuscation: z.boolean().optional() }).nullish(),
    background: z.boolean().nullish(),
    store: z.boolean().nullish(),
    previous_response_id: z.string().min(1).nullish(),
    conversation: z.union([z.string(), z.looseObject({ id: z.string() })]).nullish(),
    max_output_tokens: z.number().int().min(1).nullish(),
    max_tool_calls: z.number().int().min(1).nullish(),
    temperature: num(0, 2),
    top_p: num(0, 1),
    top_logprobs: z.number().int().min(0).max(20).nullish(),
    tools: z.array(z.looseObject({ type: z.string() })).nullish(),
    tool_choice: z.union([z.enum(['none', 'auto', 'required']), z.looseObject({ type: z.string() })]).nullish(),
    parallel_tool_calls: z.boolean().nullish(),
    text: z.looseObject({ format: textFormatSchema.optional(), verbosity: z.enum(['low', 'medium', 'high']).nullish() }).nullish(),
    reasoning: z
      .looseObject({
        effort: z.enum(REASONING_EFFORTS).nullish(),
        summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
        generate_summary: z.enum(['auto', 'concise', 'detailed']).nullish(),
      })
      .nullish(),
    metadata: z
      .record(z.string().max(64, 'keys are at most 64 characters'), z.string().max(512, 'values are at most 512 characters'))
      .refine((m) => Object.keys(m).length <= 16, 'at most 16 pairs')
      .nullish(),
    include: z.array(z.string()).nullish(),
    truncation: z.enum(['auto', 'disabled']).nullish(),
    prompt: z.looseObject({ id: z.string() }).nullish(),
    user: z.string().nullish(),
    safety_identifier: z.string().nullish(),
    prompt_cache_key: z.string().nullish(),
    service_tier: z.string().nullish(),
  })
  .superRefine((req, ctx) => {
    if (req.previous_response_id && req.conversation) {
      ctx.addIssue({ code: 'custom', path: ['previous_response_id'], message: 'cannot be combined with conversation' });
    }
    if (req.background && req.store === false) {
      ctx.addIssue({ code: 'custom', path: ['background'], message: 'background mode requires store to be true' });
    }
    if (req.stream_options && req.stream !== true) {
      ctx.addIssue({ code: 'custom', path: ['stream_options'], message: 'only allowed when stream is true' });
    }
  });

export type ResponsesRequest = z.output<typeof responsesRequestSchema>;

// ---- input content parts ----

const inputTextSchema = z.looseObject({ type: z.literal('input_text'), text: z.string() });
const inputImageSchema = z.looseObject({
  type: z.literal('input_image'),
  image_url: z.string().min(1).nullish(),
  file_id: z.string().min(1).nullish(),
  detail: z.enum(['auto', 'low', 'high', 'original']).nullish(),
});
const inputFileSchema = z.looseObject({
  type: z.literal('input_file'),
  file_data: z.string().min(1).nullish(),
  file_id: z.string().min(1).nullish(),
  file_url: z.string().min(1).nullish(),
  filename: z.string().nullish(),
});
const outputTextSchema = z.looseObject({ type: z.literal('output_text'), text: z.string(), annotations: z.array(z.unknown()).nullish() });
const refusalSchema = z.looseObject({ type: z.literal('refusal'), refusal: z.string() });
const inputAudioSchema = z.looseObject({ type: z.literal('input_audio') });

const contentPartSchema = z.discriminatedUnion('type', [inputTextSchema, inputImageSchema, inputFileSchema, outputTextSchema, refusalSchema, inputAudioSchema]);
export type ContentPart = z.output<typeof contentPartSchema>;

/** Parts a tool output may carry (function_call_output / custom_tool_call_output arrays). */
export const toolOutputPartSchema = z.discriminatedUnion('type', [inputTextSchema, inputImageSchema, inputFileSchema]);

// ---- input items ----

export const messageItemSchema = z.looseObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(contentPartSchema)]),
  id: z.string().nullish(),
  status: z.string().nullish(),
});

export const functionCallItemSchema = z.looseObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  namespace: z.string().nullish(),
  id: z.string().nullish(),
});

const toolOutputSchema = z.union([z.string(), z.array(toolOutputPartSchema)]);

export const functionCallOutputItemSchema = z.looseObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: toolOutputSchema,
});

export const customToolCallItemSchema = z.looseObject({
  type: z.literal('custom_tool_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  input: z.string(),
  namespace: z.string().nullish(),
});

export const customToolCallOutputItemSchema = z.looseObject({
  type: z.literal('custom_tool_call_output'),
  call_id: z.string().min(1),
  output: toolOutputSchema,
});

export const reasoningItemSchema = z.looseObject({
  type: z.literal('reasoning'),
  id: z.string().nullish(),
  summary: z.array(z.looseObject({ type: z.string(), text: z.string() })).default([]),
  content: z.array(z.looseObject({ type: z.string(), text: z.string() })).nullish(),
  encrypted_content: z.string().nullish(),
});

// ---- tools ----

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const toolName = z.string().regex(TOOL_NAME, 'must be 1-64 characters of a-z, A-Z, 0-9, _ and -');

export const functionToolSchema = z.looseObject({
  type: z.literal('function'),
  name: toolName,
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
  strict: z.boolean().nullish(),
});

export const customToolSchema = z.looseObject({
  type: z.literal('custom'),
  name: toolName,
  description: z.string().nullish(),
  format: z
    .union([
      z.looseObject({ type: z.literal('text') }),
      z.looseObject({ type: z.literal('grammar'), syntax: z.string(), definition: z.string() }),
    ])
    .nullish(),
});

export const namespaceToolSchema = z.looseObject({
  type: z.literal('namespace'),
  name: z.string().min(1),
  description: z.string().nullish(),
  tools: z.array(z.discriminatedUnion('type', [functionToolSchema, customToolSchema])),
});

/** Tool search the client runs itself (`execution: "client"`, as Codex declares it): a function in effect. */
export const clientToolSearchSchema = z.looseObject({
  type: z.literal('tool_search'),
  execution: z.literal('client'),
  description: z.string().nullish(),
  parameters: z.record(z.string(), z.unknown()).nullish(),
});

/** A tool search call the client ran, replayed; `arguments` is a JSON value, not a string. */
export const toolSearchCallItemSchema = z.looseObject({
  type: z.literal('tool_search_call'),
  call_id: z.string().min(1),
  arguments: z.unknown(),
});

/** What the client's tool search found: tools it makes available from now on. */
export const toolSearchOutputItemSchema = z.looseObject({
  type: z.literal('tool_search_output'),
  call_id: z.string().min(1),
  tools: z.array(z.looseObject({ type: z.string() })),
});

export type FunctionToolWire = z.output<typeof functionToolSchema>;
export type CustomToolWire = z.output<typeof customToolSchema>;
