/**
 * IR -> Gemini `:batchEmbedContents` bodies, split to the vendor's per-call limit (joined back in
 * order by the caller), and their answers -> vectors. Gemini embeds text only and reports no usage.
 */
import { GatewayError } from '../../../core/errors.js';
import type { IREmbeddingRequest } from '../../../ir/embeddings.js';
import { GEMINI_BATCH_LIMIT, geminiBatchEmbedResponseSchema } from '../embeddings-api.js';

/** `gemini-embedding-001` or `models/gemini-embedding-001` -> `models/gemini-embedding-001`. */
export function geminiModelName(upstreamModel: string): string {
  return upstreamModel.startsWith('models/') ? upstreamModel : `models/${upstreamModel}`;
}

/** Splits a list into runs of at most `size`, in order. */
export function chunked<T>(items: readonly T[], size = GEMINI_BATCH_LIMIT): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function encodeGeminiBatchEmbedRequests(req: IREmbeddingRequest, upstreamModel: string): Array<Record<string, unknown>> {
  const model = geminiModelName(upstreamModel);
  const requests = req.inputs.map((input, i) => {
    if (!('text' in input)) {
      throw new GatewayError('unsupported', `The model '${req.model}' embeds text only: token arrays (input[${i}]) cannot be sent to it.`, { param: 'input' });
    }
    const taskType = req.taskTypes?.[i];
    const title = req.titles?.[i];
    return {
      model,
      content: { parts: [{ text: input.text }] },
      ...(taskType !== undefined ? { taskType } : {}),
      ...(title !== undefined ? { title } : {}),
      ...(req.dimensions !== undefined ? { outputDimensionality: req.dimensions } : {}),
    };
  });
  return chunked(requests).map((batch) => ({ requests: batch }));
}

export function decodeGeminiBatchEmbedResponse(json: unknown, providerId: string, expected: number): number[][] {
  const parsed = geminiBatchEmbedResponseSchema.safeParse(json);
  if (!parsed.success || parsed.data.embeddings.length !== expected) {
    throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with an unexpected batchEmbedContents response.`);
  }
  return parsed.data.embeddings.map((e) => e.values);
}
