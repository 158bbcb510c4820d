/**
 * GET /v1beta/models and /v1beta/models/{model} in Gemini's shape, so `@google/genai`'s
 * models.list()/models.get() and Gemini CLI see the gateway's models (only those the key may use).
 */
import { GatewayError } from '../core/errors.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, mayUseModel } from './common.js';
import { modelFromPath } from './gemini.js';
import { quoteInput } from '../core/quote-input.js';
import type { Reply } from '../reply/reply.js';
import { escapeControls, modelIdProblem } from '../routing/model-id.js';

function limit(m: ResolvedModel, key: string, fallback: number): number {
  const v = m.options[key];
  return typeof v === 'number' && Number.isInteger(v) && v > 0 ? v : fallback;
}

function geminiModel(m: ResolvedModel): Record<string, unknown> {
  const limits = m.provider.defaultTokenLimits;
  const methods = m.capabilities.includes('chat')
    ? ['generateContent', 'streamGenerateContent', 'countTokens']
    : m.capabilities.includes('embedding')
      ? ['embedContent', 'batchEmbedContents']
      : ['predict'];
  return {
    name: `models/${m.id}`,
    version: '001',
    displayName: typeof m.options.displayName === 'string' ? m.options.displayName : m.id,
    description: `${m.upstreamModel} via ${m.provider.id}`,
    inputTokenLimit: limit(m, 'inputTokenLimit', limits.input),
    outputTokenLimit: limit(m, 'outputTokenLimit', limits.output),
    supportedGenerationMethods: methods,
  };
}

/** GET /v1beta/models?pageSize=&pageToken= */
export async function listGeminiModels(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const all = ctx.services.models.list().filter((m) => mayUseModel(principal, m.id));
  const sizeParam = ctx.url.searchParams.get('pageSize');
  const size = sizeParam === null ? 50 : Number(sizeParam);
  if (!Number.isInteger(size) || size < 0) throw new GatewayError('invalid_request', 'pageSize must be a non-negative integer.', { param: 'pageSize' });
  const pageSize = Math.min(1000, size === 0 ? 50 : size);
  const token = ctx.url.searchParams.get('pageToken');
  const start = token ? Number(token) : 0;
  if (!Number.isInteger(start) || start < 0) throw new GatewayError('invalid_request', 'Invalid pageToken.', { param: 'pageToken' });
  const page = all.slice(start, start + pageSize).map(geminiModel);
  const next = start + pageSize < all.length ? { nextPageToken: String(start + pageSize) } : {};
  return jsonResponse(ctx, { models: page, ...next });
}

/** GET /v1beta/models/{model} */
export async function getGeminiModel(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const principal = await authenticate(ctx);
  const id = modelFromPath(params.model);
  const model = ctx.services.models.resolve(id);
  if (!model || modelIdProblem(id, model.direct) || !mayUseModel(principal, model.id)) {
    throw new GatewayError('not_found', `models/${quoteInput(escapeControls(id))} is not found or this key may not use it.`, { param: 'model', detail: 'model_not_found' });
  }
  return jsonResponse(ctx, geminiModel(model));
}
