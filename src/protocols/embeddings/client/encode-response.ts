/** IR embeddings answers -> OpenAI's list (floats or base64) and Gemini's `embedding` / `embeddings`. */
import type { IREmbeddingResponse } from '../../../ir/embeddings.js';
import { vectorToBase64 } from '../vector-base64.js';

export function encodeOpenAIEmbeddingsResponse(res: IREmbeddingResponse, encoding: 'float' | 'base64'): Record<string, unknown> {
  const tokens = res.usage?.inputTokens ?? res.usage?.totalTokens ?? 0;
  return {
    object: 'list',
    data: res.vectors.map((v, index) => ({ object: 'embedding', index, embedding: encoding === 'base64' ? vectorToBase64(v) : v })),
    model: res.model,
    usage: { prompt_tokens: tokens, total_tokens: res.usage?.totalTokens ?? tokens },
  };
}

/** `:embedContent` answers one vector; `:batchEmbedContents` a list, in request order. */
export function encodeGeminiEmbedResponse(res: IREmbeddingResponse, single: boolean): Record<string, unknown> {
  if (single) return { embedding: { values: res.vectors[0] ?? [] } };
  return { embeddings: res.vectors.map((values) => ({ values })) };
}
