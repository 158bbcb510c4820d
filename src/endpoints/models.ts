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

/** GET /v1/models (OpenAI shape; Anthropic shape when the request carries anthropic-version). */
export async function listModels(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const all = ctx.url.searchParams.get('all') === 'true';
  const models = ctx.services.models.list();
  if (ctx.request.headers.has('anthropic-version')) {
    const data = models.filter((m) => mayUseModel(principal, m.id)).map(anthropicModel);
    return jsonResponse(ctx, { data, has_more: false, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null });
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
