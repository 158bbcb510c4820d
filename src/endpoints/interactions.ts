/**
 * POST /v1beta/interactions (Gemini's Interactions API; sync, `stream: true`, `background: true`)
 * in front of every vendor. `model` reaches any chat model; `agent` only Gemini upstreams (an agent
 * not declared as a model runs on the Gemini provider), and the key's model permissions apply to
 * agent names as to models. Every interaction is stored unless
 * `store: false`; a streamed one is stored (with its events, for resuming) before its last event
 * leaves, so a client that reacts to `interaction.completed` with a GET or a follow-up turn finds it.
 */
import type { Principal } from '../auth/principal.js';
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import type { Reply } from '../reply/reply.js';
import { validateInteractionRequest } from '../protocols/gemini-interactions/client/decode-request.js';
import type { CreateInteractionRequest } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { authenticate, requireCapability, resolveAgent, resolveModel } from './common.js';
import { INTERACTION_TURNS, inRequestTerms } from './interactions-encoding.js';
import { prepareInteractionTurn } from './interactions-turn.js';
import { runTurn } from './stateful-turn.js';

/** The model or agent the request names; 400 for an agent on a vendor that has none. */
function resolveTarget(ctx: EndpointContext, principal: Principal, req: CreateInteractionRequest): { model: ResolvedModel; field: 'model' | 'agent' } {
  if (req.model !== undefined && req.agent !== undefined) throw new GatewayError('invalid_request', 'Send either model or agent, not both.', { param: 'agent' });
  if (req.agent !== undefined) {
    const model = resolveAgent(ctx, principal, req.agent);
    if (!model.provider.interactionsApi) {
      throw new GatewayError('unsupported', `Agents run only on Gemini upstreams; '${req.agent}' is served by the provider '${model.provider.id}' (${model.provider.type}).`, { param: 'agent' });
    }
    return { model, field: 'agent' };
  }
  if (req.model === undefined) throw new GatewayError('invalid_request', 'model (or agent) is required.', { param: 'model' });
  const model = resolveModel(ctx, principal, req.model);
  // Gemini image models answer Interactions natively: pass-through.
  if (!(model.provider.interactionsApi && model.capabilities.includes('image'))) requireCapability(model, 'chat');
  return { model, field: 'model' };
}

/** POST /v1beta/interactions */
export async function createInteraction(ctx: EndpointContext): Promise<Reply> {
  try {
    return await create(ctx);
  } catch (err) {
    throw inRequestTerms(err);
  }
}

async function create(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = validateInteractionRequest(parsed);
  const { model, field } = resolveTarget(ctx, principal, req);
  return runTurn(ctx, await prepareInteractionTurn(ctx, principal, { raw, parsed, req, model, field }), INTERACTION_TURNS);
}
