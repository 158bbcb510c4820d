/**
 * Wire schemas of the embeddings APIs: OpenAI's `POST /v1/embeddings` (also Gemini's
 * OpenAI-compatible `/v1beta/openai/embeddings`) and Gemini's `:embedContent` and
 * `:batchEmbedContents`, for requests from clients and answers from upstreams.
 */
import { z } from 'zod';

/** OpenAI's own cap on inputs per request. */
export const OPENAI_MAX_INPUTS = 2048;
/** Gemini's cap on requests per batchEmbedContents call: larger batches are split and joined in order. */
export const GEMINI_BATCH_LIMIT = 100;

export const GEMINI_TASK_TYPES = [
  'TASK_TYPE_UNSPECIFIED',
  'RETRIEVAL_QUERY',
  'RETRIEVAL_DOCUMENT',
  'SEMANTIC_SIMILARITY',
  'CLASSIFICATION',
  'CLUSTERING',
  'QUESTION_ANSWERING',
  'FACT_VERIFICATION',
  'CODE_RETRIEVAL_QUERY',
] as const;

const tokenIds = z.array(z.number().int().nonnegative()).min(1, 'a token array may not be empty');
const text = z.string().min(1, 'an empty string cannot be embedded');

export const openAIEmbeddingsRequestSchema = z.looseObject({
  model: z.string().min(1),
  input: z.union([text, z.array(text).min(1).max(OPENAI_MAX_INPUTS), tokenIds, z.array(tokenIds).min(1).max(OPENAI_MAX_INPUTS)]),
  encoding_format: z.enum(['float', 'base64']).optional(),
  dimensions: z.number().int().positive().optional(),
  user: z.string().optional(),
});
export type OpenAIEmbeddingsRequest = z.output<typeof openAIEmbeddingsRequestSchema>;

/** An upstream's OpenAI answer: vectors as floats (the gateway asks for floats when it translates). */
export const openAIEmbeddingsResponseSchema = z.looseObject({
  data: z.array(z.looseObject({ index: z.number().int().nonnegative(), embedding: z.union([z.array(z.number()), z.string()]) })),
  model: z.string().optional(),
  usage: z.looseObject({ prompt_tokens: z.number().optional(), total_tokens: z.number().optional() }).optional(),
});
export type OpenAIEmbeddingsResponse = z.output<typeof openAIEmbeddingsResponseSchema>;

const part = z.looseObject({ text: z.string().optional() });
export const geminiEmbedContentSchema = z.looseObject({
  parts: z.array(part).min(1, 'a content needs at least one part'),
  role: z.string().optional(),
});

const embedFields = {
  taskType: z.enum(GEMINI_TASK_TYPES).optional(),
  title: z.string().optional(),
  outputDimensionality: z.number().int().positive().optional(),
};

/** `:embedContent` body (the model comes from the path; a `model` field may repeat it). */
export const geminiEmbedContentRequestSchema = z.looseObject({
  model: z.string().optional(),
  content: geminiEmbedContentSchema,
  ...embedFields,
});
export type GeminiEmbedContentRequest = z.output<typeof geminiEmbedContentRequestSchema>;

export const geminiBatchEmbedRequestSchema = z.looseObject({
  requests: z.array(z.looseObject({ model: z.string().optional(), content: geminiEmbedContentSchema, ...embedFields })).min(1, 'at least one request is needed'),
});
export type GeminiBatchEmbedRequest = z.output<typeof geminiBatchEmbedRequestSchema>;

const geminiEmbedding = z.looseObject({ values: z.array(z.number()) });
export const geminiEmbedContentResponseSchema = z.looseObject({ embedding: geminiEmbedding });
export const geminiBatchEmbedResponseSchema = z.looseObject({ embeddings: z.array(geminiEmbedding) });
