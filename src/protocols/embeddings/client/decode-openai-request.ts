/** An OpenAI embeddings request (`/v1/embeddings`, `/v1beta/openai/embeddings`) -> IR. */
import type { IREmbeddingInput, IREmbeddingRequest } from '../../../ir/embeddings.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { openAIEmbeddingsRequestSchema, type OpenAIEmbeddingsRequest } from '../embeddings-api.js';

export function validateOpenAIEmbeddingsRequest(body: Record<string, unknown>): OpenAIEmbeddingsRequest {
  return parseOrThrow(openAIEmbeddingsRequestSchema, body);
}

/** A string, a list of strings, a token array or a list of token arrays, as one list of inputs. */
function inputsOf(input: OpenAIEmbeddingsRequest['input']): IREmbeddingInput[] {
  if (typeof input === 'string') return [{ text: input }];
  if (input.every((x): x is number => typeof x === 'number')) return [{ tokens: input }];
  return (input as Array<string | number[]>).map((x) => (typeof x === 'string' ? { text: x } : { tokens: x }));
}

export function decodeOpenAIEmbeddingsRequest(req: OpenAIEmbeddingsRequest, model: string): IREmbeddingRequest {
  return {
    model,
    inputs: inputsOf(req.input),
    ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
    ...(req.user !== undefined ? { user: req.user } : {}),
  };
}
