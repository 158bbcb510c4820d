/**
 * POST /v1beta/interactions (Gemini's Interactions API; sync, `stream: true`, `background: true`)
 * in front of every vendor. `model` reaches any chat model; `agent` only Gemini upstreams (an agent
 * not declared as a model runs on the Gemini provider), and the key's model permissions apply to
 * agent names as to models. Every interaction is stored unless
 * `store: false`; a streamed one is stored (with its events, for resuming) before its last event
 * leaves, so a client that reacts to `interaction.completed` with a GET or a follow-up turn finds it.
 */
import type { Principal } from '../auth/principal.js';
import type { BackgroundJob } from '../conversations/background-runs.js';
import type { StoredEvent } from '../conversations/conversation-store.js';
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { validateInteractionRequest } from '../protocols/gemini-interactions/client/decode-request.js';
import { answeredBy, buildInteraction, isoTime } from '../protocols/gemini-interactions/client/interaction-object.js';
import { interactionsError } from '../protocols/gemini-interactions/errors.js';
import type { CreateInteractionRequest, Json } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import { codecFor } from '../protocols/registry.js';
import { upstreamTarget, type ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { NOT_STORED, withNotStoredWarning } from './setting-warnings.js';
import { requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import { admitChat, runChat, type ChatCall } from './chat-pipeline.js';
import { authenticate, jsonResponse, requireCapability, resolveAgent, resolveModel } from './common.js';
import { streamStoredInteraction } from './interactions-stored.js';
import { upstreamInteractionCall } from './interactions-upstream.js';
import { interactionRecord, prepareInteractionTurn, type InteractionTurn } from './interactions-turn.js';
import { beforeEachChunk, type Reply } from '../reply/reply.js';
import { ownValue } from '../core/own-key.js';

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

/** IR field names in errors of the upstream encoders -> the Interactions request's names. */
const PARAMS: Record<string, string> = {
  messages: 'input',
  system: 'system_instruction',
  stop: 'generation_config.stop_sequences',
  temperature: 'generation_config.temperature',
  top_p: 'generation_config.top_p',
  top_k: 'generation_config',
  seed: 'generation_config.seed',
  max_tokens: 'generation_config.max_output_tokens',
  reasoning: 'generation_config.thinking_level',
  tool_choice: 'generation_config.tool_choice',
};

/** The Gemini error shape has no `param`: the message names the request field instead. */
function inRequestTerms(err: unknown): unknown {
  if (!(err instanceof GatewayError) || !err.param || err.status >= 500) return err;
  const head = /^[a-z_]+/.exec(err.param)?.[0] ?? '';
  const mapped = ownValue(PARAMS, head) ?? err.param;
  if (err.message.includes(mapped)) return err;
  return new GatewayError(err.code, `${err.message} (field: ${mapped})`, {
    param: mapped,
    status: err.status,
    ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}),
    ...(err.detail !== undefined ? { detail: err.detail } : {}),
  });
}

/** runChat, with translation errors naming the Interactions fields. */
async function runInteraction(ctx: EndpointContext, call: ChatCall): Promise<Reply> {
  try {
    return await runChat(ctx, call);
  } catch (err) {
    throw inRequestTerms(err);
  }
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
  const turn = await prepareInteractionTurn(ctx, principal, { raw, parsed, req, model, field });
  if (turn.background) return startBackground(ctx, turn);
  const events: StoredEvent[] = [];
  if (turn.store && turn.stream) turn.sink.onEvent = (type, data) => events.push({ seq: events.length, type, data });
  const res = await runInteraction(ctx, turn.call(turn.stream));
  if (!turn.store) return res;
  const persist = (): Promise<boolean> => storeFinal(ctx, turn, events);
  if (!turn.stream) return (await persist()) ? res : withNotStoredWarning(ctx.event, res);
  return persistBeforeLastEvent(ctx, res, turn, persist);
}

/** Stores a finished turn (and a stream's events); false when the store failed. A store failure does not take the answer away. */
async function storeFinal(ctx: EndpointContext, turn: InteractionTurn, events: StoredEvent[]): Promise<boolean> {
  const final = turn.sink.final;
  if (!final) return true;
  try {
    const store = ctx.services.conversations.store;
    await store.create(interactionRecord(ctx, turn, final));
    if (events.length) await store.appendEvents(turn.id, events);
    return true;
  } catch {
    // Delivered with a warning: it cannot be read back or continued later.
    return false;
  }
}

/** The stream, with the record written before the chunk holding the terminal event goes out. */
function persistBeforeLastEvent(ctx: EndpointContext, res: Reply, turn: InteractionTurn, persist: () => Promise<boolean>): Reply {
  let persisted = false;
  return beforeEachChunk(res, async (chunk) => {
    if (!persisted && (chunk === undefined || turn.sink.final)) {
      persisted = true;
      // The headers are gone: the hook events (onResponse warnings) say it was not stored.
      if (!(await persist())) ctx.event.warnings = [...(ctx.event.warnings ?? []), NOT_STORED];
    }
  });
}

function backgroundJob(ctx: EndpointContext, turn: InteractionTurn, queued: Json): BackgroundJob<EndpointContext> {
  return {
    id: turn.id,
    queued: { ...interactionRecord(ctx, turn, queued), status: 'queued' },
    run(detached, record) {
      let seq = 0;
      turn.sink.onEvent = (type, data) => record({ seq: seq++, type, data });
      return runInteraction(detached, turn.call(true));
    },
    settled: () => settleRequest(requestLimits(ctx), turn.model.pricing, undefined),
    finished(r) {
      const final = turn.sink.final;
      return final ? { ...interactionRecord(ctx, turn, final), version: r.version } : undefined;
    },
    transition(r, status, why) {
      const object: Json = { ...r.object, status, updated: isoTime(ctx.services.now()) };
      if (status === 'failed' && why) object.errors = [interactionsError(why)];
      return { ...r, status, object };
    },
    async onCancel() {
      // A Gemini background interaction keeps running when its stream closes: cancel it there too.
      const upstreamId = turn.sink.upstreamId;
      if (!turn.passthrough || !upstreamId) return;
      await upstreamInteractionCall(ctx, turn.model.provider, upstreamId, 'cancel');
    },
  };
}

/** Stores the interaction as in progress, starts the detached run, answers at once (or streams the run). */
async function startBackground(ctx: EndpointContext, turn: InteractionTurn): Promise<Reply> {
  if (!turn.passthrough) {
    // What the upstream cannot express is the caller's 400 now, not a failed run later.
    const call = turn.call(true);
    try {
      if (call.ir) codecFor(turn.model.provider.chatProtocol).upstream.encodeRequest(call.ir, turn.model.upstreamModel, upstreamTarget(turn.model));
    } catch (err) {
      throw inRequestTerms(err);
    }
  }
  // Named by the model the upstream is asked for until the run's answer names the concrete version.
  const named = answeredBy({ interactionId: turn.id, createdAtMs: turn.createdAtMs, echo: turn.echo }, turn.model.upstreamModel);
  const queued = buildInteraction(named, { status: 'in_progress', steps: [], updatedMs: turn.createdAtMs }, ctx.traceId);
  // Limits are checked at submission; the run holds the request's lease until it ends.
  await admitChat(ctx, turn.call(true));
  try {
    await ctx.services.backgroundRuns.start(ctx, backgroundJob(ctx, turn, queued));
  } catch (err) {
    await settleRequest(requestLimits(ctx), turn.model.pricing, { totalTokens: 0 });
    throw err;
  }
  if (!turn.stream) return jsonResponse(ctx, queued);
  const record = await ctx.services.conversations.store.get(turn.id);
  if (!record) throw new GatewayError('internal', 'The background interaction vanished from the store.');
  return streamStoredInteraction(ctx, record);
}
