/**
 * Embeddings entry points: POST /v1/embeddings (OpenAI; also /v1beta/openai/embeddings, for clients
 * set up for Gemini's OpenAI-compatible endpoint) and POST /v1beta/models/{model}:embedContent |
 * :batchEmbedContents (Gemini). Each decodes its body to the IR and runs the one pipeline.
 */
import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';
import { parseJsonObject } from '../request/body.js';
import { OPENAI_MAX_INPUTS } from '../protocols/embeddings/embeddings-api.js';
import type { Reply } from '../reply/reply.js';
import { decodeGeminiEmbedRequests, decodeOpenAIEmbeddingsRequest, validateGeminiBatchEmbed, validateGeminiEmbedContent, validateOpenAIEmbeddingsRequest } from '../protocols/embeddings/index.js';
import type { EndpointContext } from './services.js';
import { authenticate, resolveModel } from './common.js';
import { runEmbeddings } from './embeddings-pipeline.js';
import { modelFromPath } from './gemini.js';

/** POST /v1/embeddings */
export async function createEmbeddings(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  // Named in the ledger row even when the body is refused below.
  if (typeof parsed.model === 'string') ctx.event.requestedModel = parsed.model;
  // Said plainly (zod's union would report the first member's mismatch, input[0]).
  if (Array.isArray(parsed.input) && parsed.input.length > OPENAI_MAX_INPUTS) {
    throw new GatewayError('invalid_request', `Invalid value for 'input': at most ${OPENAI_MAX_INPUTS} inputs per request, got ${parsed.input.length}.`, { param: 'input' });
  }
  const req = validateOpenAIEmbeddingsRequest(parsed);
  const model = resolveModel(ctx, principal, req.model);
  return runEmbeddings(ctx, { model, ir: decodeOpenAIEmbeddingsRequest(req, model.id), raw, parsed, client: { kind: 'openai', encoding: req.encoding_format ?? 'float' } });
}

/** POST /v1beta/models/{model}:embedContent and :batchEmbedContents */
export async function geminiEmbed(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const principal = await authenticate(ctx);
  const model = resolveModel(ctx, principal, modelFromPath(params.model));
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const single = params.action === 'embedContent';
  const requests = single ? [validateGeminiEmbedContent(parsed)] : validateGeminiBatchEmbed(parsed).requests;
  // As Gemini: each request of a batch names the batch's model (`models/{model}`), or none.
  requests.forEach((r, i) => {
    const named = r.model?.replace(/^models\//, '');
    if (named !== undefined && named !== modelFromPath(params.model)) {
      throw new GatewayError('invalid_request', `Invalid value for '${single ? 'model' : `requests[${i}].model`}': it must name the model of the call ('models/${quoteInput(modelFromPath(params.model))}').`, { param: single ? 'model' : `requests[${i}].model` });
    }
  });
  return runEmbeddings(ctx, { model, ir: decodeGeminiEmbedRequests(requests, model.id, single), raw, parsed, client: { kind: 'gemini', single } });
}
