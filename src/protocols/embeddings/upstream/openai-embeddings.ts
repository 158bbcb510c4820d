/** IR -> an OpenAI(-compatible) `/embeddings` body, and its answer -> IR. */
import { GatewayError } from '../../../core/errors.js';
import type { IREmbeddingRequest, IREmbeddingResponse } from '../../../ir/embeddings.js';
import type { IRWarning } from '../../../ir/types.js';
import { openAIEmbeddingsResponseSchema } from '../embeddings-api.js';
import { vectorFromBase64 } from '../vector-base64.js';

export function encodeOpenAIEmbeddingsRequest(req: IREmbeddingRequest, upstreamModel: string): { body: Record<string, unknown>; warnings: IRWarning[] } {
  const warnings: IRWarning[] = [];
  const texts = req.inputs.flatMap((i) => ('text' in i ? [i.text] : []));
  const input = texts.length === req.inputs.length ? texts : req.inputs.map((i) => ('tokens' in i ? i.tokens : i.text));
  if (req.taskTypes?.some((t) => t !== undefined)) warnings.push({ setting: 'taskType', action: 'dropped (not supported by openai)', message: 'OpenAI embeddings take no task type; it was not sent.' });
  if (req.titles?.some((t) => t !== undefined)) warnings.push({ setting: 'title', action: 'dropped (not supported by openai)', message: 'OpenAI embeddings take no title; it was not sent.' });
  return {
    body: {
      model: upstreamModel,
      input,
      encoding_format: 'float',
      ...(req.dimensions !== undefined ? { dimensions: req.dimensions } : {}),
      ...(req.user !== undefined ? { user: req.user } : {}),
    },
    warnings,
  };
}

export function decodeOpenAIEmbeddingsResponse(json: unknown, providerId: string, expected: number, fallbackModel: string): IREmbeddingResponse {
  const parsed = openAIEmbeddingsResponseSchema.safeParse(json);
  if (!parsed.success || parsed.data.data.length !== expected) {
    throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with an unexpected embeddings response.`);
  }
  const vectors: number[][] = new Array(expected);
  for (const d of parsed.data.data) {
    const v = typeof d.embedding === 'string' ? vectorFromBase64(d.embedding) : d.embedding;
    if (!v || d.index >= expected) throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with an unexpected embeddings response.`);
    vectors[d.index] = v;
  }
  const u = parsed.data.usage;
  const tokens = u?.prompt_tokens ?? u?.total_tokens;
  return { vectors, model: parsed.data.model ?? fallbackModel, ...(tokens !== undefined ? { usage: { inputTokens: tokens, totalTokens: u?.total_tokens ?? tokens } } : {}) };
}
