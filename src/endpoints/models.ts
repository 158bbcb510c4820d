import { GatewayError } from '../core/errors.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, mayUseModel } from './common.js';
import { quoteInput } from '../core/quote-input.js';
import type { Reply } from '../reply/reply.js';
import { escapeControls } from '../routing/model-id.js';

function openAIModel(m: ResolvedModel): Record<string, unknown> {
  return { id: m.id, object: 'model', created: m.created, owned_by: m.ownedBy };
}

function anthropicModel(m: ResolvedModel): Record<string, unknown> {
  return { type: 'model', id: m.id, display_name: m.id, created_at: new Date(m.created * 1000).toISOString() };
}

/** Anthropic's list limits: 20 by default, 1 to 1000. */
const ANTHROPIC_DEFAULT_LIMIT = 20;
const ANTHROPIC_MAX_LIMIT = 1000;

/**
 * A page of Anthropic's model list (`limit`, `after_id` or `before_id`, as Anthropic's API and its
 * SDK's auto-pagination use them): `limit` ids after `after_id`, or the `limit` just before
 * `before_id`; `hasMore` when ids are left beyond the page in that direction.
 */
export function anthropicPage(ids: readonly string[], query: URLSearchParams): { ids: string[]; hasMore: boolean } {
  const rawLimit = query.get('limit');
  const limit = rawLimit === null ? ANTHROPIC_DEFAULT_LIMIT : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > ANTHROPIC_MAX_LIMIT) {
    throw new GatewayError('invalid_request', `limit: must be an integer from 1 to ${ANTHROPIC_MAX_LIMIT}, got '${quoteInput(escapeControls(rawLimit ?? ''))}'.`, { param: 'limit' });
  }
  const after = query.get('after_id');
  const before = query.get('before_id');
  if (after !== null && before !== null) throw new GatewayError('invalid_request', 'after_id and before_id cannot both be set.', { param: 'before_id' });
  const cursor = after ?? before;
  const name = after !== null ? 'after_id' : 'before_id';
  const at = cursor === null ? -1 : ids.indexOf(cursor);
  if (cursor !== null && at < 0) {
    throw new GatewayError('invalid_request', `${name}: '${quoteInput(escapeControls(cursor))}' is not a model in this list.`, { param: name });
  }
  if (before !== null) {
    const start = Math.max(0, at - limit);
    return { ids: ids.slice(start, at), hasMore: start > 0 };
  }
  const start = at + 1;
  return { ids: ids.slice(start, start + limit), hasMore: start + limit < ids.length };
}

/** GET /v1/models (OpenAI shape; Anthropic shape when the request carries anthropic-version). */
export async function listModels(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const all = ctx.url.searchParams.get('all') === 'true';
  const models = ctx.services.models.list();
  if (ctx.request.headers.has('anthropic-version')) {
    const data = anthropicPage(
      models.filter((m) => mayUseModel(principal, m.id)).map((m) => m.id),
      ctx.url.searchParams,
    );
    const byId = new Map(models.map((m) => [m.id, m]));
    const page = data.ids.map((id) => anthropicModel(byId.get(id) as ResolvedModel));
    return jsonResponse(ctx, { data: page, has_more: data.hasMore, first_id: data.ids[0] ?? null, last_id: data.ids[data.ids.length - 1] ?? null });
  }
  if (all) {
    return jsonResponse(ctx, {
      object: 'list',
      data: models.map((m) => ({
        ...openAIModel(m),
        allowed: mayUseModel(principal, m.id),
        capabilities: m.capabilities,
        input_modalities: m.inputModalities,
        provider: m.provider.id,
      })),
    });
  }
  return jsonResponse(ctx, { object: 'list', data: models.filter((m) => mayUseModel(principal, m.id)).map(openAIModel) });
}

/** GET /v1/models/{id} */
export async function getModel(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const principal = await authenticate(ctx);
  const id = params.id ?? '';
  const model = ctx.services.models.list().find((m) => m.id === id);
  if (!model || !mayUseModel(principal, model.id)) {
    throw new GatewayError('not_found', `The model '${quoteInput(escapeControls(id))}' does not exist or this key may not use it.`, { param: 'model', detail: 'model_not_found' });
  }
  if (ctx.request.headers.has('anthropic-version')) return jsonResponse(ctx, anthropicModel(model));
  return jsonResponse(ctx, { ...openAIModel(model), capabilities: model.capabilities, input_modalities: model.inputModalities });
}
