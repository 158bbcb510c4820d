/**
 * POST /v1/responses (sync, `stream: true`, `background: true`) and POST /v1/responses/input_tokens
 * (OpenAI Responses protocol). Every response is stored unless `store: false`; a streamed one is
 * stored before its last event leaves, so a client that reacts to `response.completed` with a
 * retrieve or a follow-up turn finds it.
 */
import { irHistory } from '../conversations/history.js';
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { decodeResponsesRequest, validateResponsesRequest } from '../protocols/openai-responses/client/decode-request.js';
import { estimateResponsesInputTokens } from '../protocols/openai-responses/client/estimate-tokens.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, requireCapability, resolveModel } from './common.js';
import { runTurn } from './stateful-turn.js';
import { loadResponsesContext, prepareResponsesTurn, responsesUpstreamOf } from './responses-turn.js';
import { RESPONSES_TURNS } from './responses-encoding.js';
import { countUpstream } from './count-tokens.js';
import type { Principal } from '../auth/principal.js';
import type { Reply } from '../reply/reply.js';

async function readResponsesCall(ctx: EndpointContext) {
  const principal = await authenticate(ctx);
  const raw = await ctx.body.text();
  const parsed = parseJsonObject(raw);
  const req = validateResponsesRequest(parsed);
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'chat');
  return { principal, raw, parsed, req, model };
}

/** POST /v1/responses */
export async function createResponse(ctx: EndpointContext): Promise<Reply> {
  const { principal, ...body } = await readResponsesCall(ctx);
  return runTurn(ctx, await prepareResponsesTurn(ctx, principal, body), RESPONSES_TURNS);
}

/** POST /v1/responses/input_tokens: counted by OpenAI Responses upstreams (count-tokens.ts), estimated locally for others. */
export async function countResponseInputTokens(ctx: EndpointContext): Promise<Reply> {
  const { principal, raw, parsed, req, model } = await readResponsesCall(ctx);
  const counted = responsesUpstreamOf(model) ? await countAtUpstream(ctx, principal, { raw, parsed, req, model }) : undefined;
  if (counted !== undefined) return jsonResponse(ctx, { object: 'response.input_tokens', input_tokens: counted });
  const { chain, input } = await loadResponsesContext(ctx, principal, req, model);
  const history = chain.length ? irHistory(chain, model.id) : undefined;
  const validated = input ? { ...req, input: input.items } : req;
  const { ir } = decodeResponsesRequest(parsed, { model: model.id, stream: false, target: model.provider.chatProtocol, validated, ...(history ? { history } : {}) });
  return jsonResponse(ctx, { object: 'response.input_tokens', input_tokens: estimateResponsesInputTokens(ir) });
}

/** The pass-through turn's body (history, the upstream's own previous id) to each deployment's Responses API. */
async function countAtUpstream(ctx: EndpointContext, principal: Principal, body: Parameters<typeof prepareResponsesTurn>[2]): Promise<number | undefined> {
  const turn = await prepareResponsesTurn(ctx, principal, { ...body, req: { ...body.req, background: null } });
  const route = turn.call(false).passthroughRoute;
  if (!route) throw new GatewayError('internal', 'No pass-through route for a Responses upstream.');
  return countUpstream(ctx, body.model, {
    protocol: 'openai-responses',
    parsed: body.parsed,
    // Only a deployment the pass-through route would send the turn to (a continuation goes where its previous response is).
    counter: (target) => (route.target(target) ? responsesUpstreamOf(target) : undefined),
    body: (target) => route.codec.prepareBody(body.raw, body.parsed, target.upstreamModel, false),
    read(json, provider) {
      if (typeof json.input_tokens !== 'number') throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' answered input_tokens without input_tokens.`);
      return json.input_tokens;
    },
  });
}
