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
import { buildResponseObject } from '../protocols/openai-responses/client/response-object.js';
import { responsesPassthrough } from '../protocols/openai-responses/passthrough.js';
import type { EndpointContext } from './services.js';
import { NOT_STORED, withNotStoredWarning } from './setting-warnings.js';
import { admitChat, runChat } from './chat-pipeline.js';
import { requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import { authenticate, jsonResponse, requireCapability, resolveModel } from './common.js';
import { backgroundResponses } from './responses-background.js';
import { streamStoredResponse } from './responses-stored.js';
import { loadResponsesContext, prepareResponsesTurn, responsesUpstreamOf, turnRecord, type ResponsesTurn } from './responses-turn.js';
import { countUpstream } from './count-tokens.js';
import type { Principal } from '../auth/principal.js';
import { beforeEachChunk, type Reply } from '../reply/reply.js';

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
  const turn = await prepareResponsesTurn(ctx, principal, body);
  if (turn.background) {
    // Limits are checked at submission; the run holds the request's lease until it ends.
    await admitChat(ctx, turn.call(true));
    return startBackground(ctx, turn).catch(async (err: unknown) => {
      await settleRequest(requestLimits(ctx), turn.model.pricing, { totalTokens: 0 });
      throw err;
    });
  }
  const res = await runChat(ctx, turn.call(turn.stream));
  if (!turn.store) return res;
  const persist = (): Promise<boolean> => storeFinal(ctx, turn);
  if (!turn.stream) return (await persist()) ? res : withNotStoredWarning(ctx.event, res);
  return persistBeforeLastEvent(ctx, res, turn, persist);
}

/**
 * Stores a finished turn; false when the store failed. A store failure does not take the answer
 * away from the client: it is delivered with a warning that it was not stored.
 */
async function storeFinal(ctx: EndpointContext, turn: ResponsesTurn): Promise<boolean> {
  const final = turn.sink.final;
  if (!final) return true;
  try {
    await ctx.services.conversations.store.create(turnRecord(ctx, turn, final));
    return true;
  } catch {
    return false;
  }
}

/** The stream, with the record written before the chunk holding the terminal event goes out. */
function persistBeforeLastEvent(ctx: EndpointContext, res: Reply, turn: ResponsesTurn, persist: () => Promise<boolean>): Reply {
  let persisted = false;
  return beforeEachChunk(res, async (chunk) => {
    if (!persisted && (chunk === undefined || turn.sink.final)) {
      persisted = true;
      // The headers are gone: the hook events (onResponse warnings) say it was not stored.
      if (!(await persist())) ctx.event.warnings = [...(ctx.event.warnings ?? []), NOT_STORED];
    }
  });
}

/** Stores the response as queued, starts the detached run, answers at once (or streams the run). */
async function startBackground(ctx: EndpointContext, turn: ResponsesTurn): Promise<Reply> {
  const queued = buildResponseObject(
    { responseId: turn.id, createdAt: Math.floor(turn.createdAtMs / 1000), echo: turn.echo },
    { status: 'queued', model: turn.model.upstreamModel, output: [] },
    ctx.traceId,
  );
  await backgroundResponses(ctx.services).start(ctx, turn, queued);
  if (!turn.stream) return jsonResponse(ctx, queued);
  const record = await ctx.services.conversations.store.get(turn.id);
  if (!record) throw new GatewayError('internal', 'The background response vanished from the store.');
  return streamStoredResponse(ctx, record);
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
