/** Gemini `:embedContent` and `:batchEmbedContents` bodies -> IR (text parts only: what every vendor can embed). */
import { GatewayError } from '../../../core/errors.js';
import type { IREmbeddingRequest } from '../../../ir/embeddings.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { geminiBatchEmbedRequestSchema, geminiEmbedContentRequestSchema, type GeminiBatchEmbedRequest, type GeminiEmbedContentRequest } from '../embeddings-api.js';

type OneRequest = GeminiBatchEmbedRequest['requests'][number];

export function validateGeminiEmbedContent(body: Record<string, unknown>): GeminiEmbedContentRequest {
  return parseOrThrow(geminiEmbedContentRequestSchema, body);
}

export function validateGeminiBatchEmbed(body: Record<string, unknown>): GeminiBatchEmbedRequest {
  return parseOrThrow(geminiBatchEmbedRequestSchema, body);
}

/** The text of a content: its text parts, one after the other. Other parts cannot cross to another vendor. */
function textOf(content: OneRequest['content'], at: string, model: string): string {
  const texts: string[] = [];
  content.parts.forEach((p, i) => {
    if (typeof p.text !== 'string') {
      throw new GatewayError('unsupported', `Only text parts can be embedded with the model '${model}' (${at}.parts[${i}] has no text).`, { param: `${at}.parts[${i}]` });
    }
    texts.push(p.text);
  });
  const text = texts.join('\n');
  if (!text) throw new GatewayError('invalid_request', `Invalid value for '${at}': an empty text cannot be embedded.`, { param: `${at}.parts` });
  return text;
}

/** Requests (one for `:embedContent`) -> one IR request; `dimensions` must agree across a batch (OpenAI takes one). */
export function decodeGeminiEmbedRequests(requests: OneRequest[], model: string, single: boolean): IREmbeddingRequest {
  const at = (i: number) => (single ? 'content' : `requests[${i}].content`);
  const dims = new Set(requests.map((r) => r.outputDimensionality));
  const [dimensions] = dims;
  if (dims.size > 1) {
    throw new GatewayError('unsupported', `The requests of one batch must ask for the same outputDimensionality to be embedded with the model '${model}'.`, { param: 'requests' });
  }
  const hasTask = requests.some((r) => r.taskType !== undefined);
  const hasTitle = requests.some((r) => r.title !== undefined);
  return {
    model,
    inputs: requests.map((r, i) => ({ text: textOf(r.content, at(i), model) })),
    ...(dimensions !== undefined ? { dimensions } : {}),
    ...(hasTask ? { taskTypes: requests.map((r) => r.taskType) } : {}),
    ...(hasTitle ? { titles: requests.map((r) => r.title) } : {}),
  };
}
