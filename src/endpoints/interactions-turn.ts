/**
 * One `POST /v1beta/interactions` turn, prepared: the gateway's interaction id, the earlier turns
 * it continues, and the route. Gemini upstreams are passed through (with Gemini's own
 * `previous_interaction_id` when it answered the previous turn, else with the stored conversation
 * as steps); other vendors are translated through the IR, the stored conversation rebuilt as IR
 * history. Also the record a turn leaves in the conversation store (the same store and records as
 * the Responses API, `api: "gemini-interactions"`).
 */
import type { Principal } from '../auth/principal.js';
import type { ConversationRecord, ConversationStatus } from '../conversations/conversation-store.js';
import { irHistory, loadChain } from '../conversations/history.js';
import { GatewayError } from '../core/errors.js';
import type { IRMessage, ProtocolName } from '../ir/types.js';
import { decodeInteractionRequest } from '../protocols/gemini-interactions/client/decode-request.js';
import { decodeSteps, GEMINI_INTERACTIONS, inputAsSteps } from '../protocols/gemini-interactions/client/decode-steps.js';
import { echoFields, type InteractionsEncodeOptions, type InteractionsSink } from '../protocols/gemini-interactions/client/interaction-object.js';
import { stepsFromIR } from '../protocols/gemini-interactions/client/ir-steps.js';
import { geminiInteractionsClient } from '../protocols/gemini-interactions/index.js';
import type { CreateInteractionRequest, Json } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import { interactionsPassthrough, type InteractionsPassthroughPlan } from '../protocols/gemini-interactions/passthrough.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import type { ChatCall } from './chat-pipeline.js';

export const INTERACTIONS_API = 'gemini-interactions';
const PARAM = 'previous_interaction_id';

export interface InteractionBody {
  raw: string;
  parsed: Record<string, unknown>;
  req: CreateInteractionRequest;
  model: ResolvedModel;
  /** Whether the request named a `model` or an `agent`. */
  field: 'model' | 'agent';
}

export interface InteractionTurn extends InteractionBody {
  id: string;
  /** Epoch ms. */
  createdAtMs: number;
  principal: Principal;
  stream: boolean;
  background: boolean;
  store: boolean;
  /** Earlier turns, oldest first. */
  chain: ConversationRecord[];
  /** This turn's input as steps. */
  inputSteps: Json[];
  echo: Json;
  sink: InteractionsSink;
  passthrough: boolean;
  /** The upstream protocol that answers (the origin of its thought signatures). */
  origin: ProtocolName;
  /** The chat call of this turn; background runs stream whatever the client asked. */
  call(stream: boolean): ChatCall;
  /** This turn's input as IR (translated turns). */
  inputIR?: IRMessage[];
}

/** The conversation `id` continues; records of another API or key are as unknown as missing ones. */
async function loadInteractionChain(ctx: EndpointContext, id: string, ownerId: string): Promise<ConversationRecord[]> {
  const chain = await loadChain(ctx.services.conversations.store, id, ownerId, PARAM, 'interaction');
  if (chain.some((r) => r.api !== INTERACTIONS_API)) throw new GatewayError('not_found', `Previous interaction with id '${id}' not found.`, { param: PARAM });
  return chain;
}

/** The output steps of a stored interaction object. */
function outputStepsOf(object: Json): Json[] {
  return Array.isArray(object.steps) ? (object.steps as Json[]) : [];
}

/** The stored conversation as steps for a Gemini upstream that does not know it. */
function historySteps(chain: ConversationRecord[], model: string): Json[] {
  return chain.flatMap((r) => {
    // Gemini's own turns are replayed exactly as they were (thought signatures, tool steps).
    if (r.origin === GEMINI_INTERACTIONS) return [...r.inputItems, ...outputStepsOf(r.object)];
    if (!r.turn) {
      throw new GatewayError('unsupported', `The earlier interaction '${r.id}' of this conversation cannot be continued with the model '${model}': ${r.untranslatable ?? 'it holds steps Gemini cannot take'}.`, { param: PARAM });
    }
    return stepsFromIR(r.turn.messages);
  });
}

/**
 * The input steps without the function calls the conversation already holds (by id), or undefined
 * when none repeats: a client that sends the model's calls again next to their results (Google's ADK
 * does) gets each call once in the history the upstream sees and in the stored turn.
 */
function withoutRepeatedCalls(steps: Json[], chain: ConversationRecord[]): Json[] | undefined {
  const calls = new Set<string>();
  for (const r of chain) {
    for (const s of [...r.inputItems, ...outputStepsOf(r.object)]) if (s.type === 'function_call' && typeof s.id === 'string') calls.add(s.id);
    for (const m of r.turn?.messages ?? []) for (const p of m.content) if (p.type === 'tool-call') calls.add(p.id);
  }
  let repeated = false;
  const kept = steps.filter((s) => {
    if (s.type !== 'function_call' || typeof s.id !== 'string') return true;
    if (calls.has(s.id)) return !(repeated = true);
    calls.add(s.id);
    return true;
  });
  return repeated ? kept : undefined;
}

export async function prepareInteractionTurn(ctx: EndpointContext, principal: Principal, sent: InteractionBody): Promise<InteractionTurn> {
  const rt = ctx.services;
  const { model, field } = sent;
  const id = rt.newId('v1_');
  const createdAtMs = rt.now();
  const background = sent.req.background === true;
  const store = sent.req.store !== false;
  if (background && !store) throw new GatewayError('invalid_request', 'background: true needs store: true (a background interaction is read back with GET).', { param: 'store' });
  const previousInteractionId = sent.req.previous_interaction_id;
  const chain = previousInteractionId ? await loadInteractionChain(ctx, previousInteractionId, principal.id) : [];
  const deduplicated = withoutRepeatedCalls(inputAsSteps(sent.req.input), chain);
  // The turn as sent upstream, stored and listed: each call once.
  const body: InteractionBody = deduplicated
    ? { ...sent, req: { ...sent.req, input: deduplicated as CreateInteractionRequest['input'] }, parsed: { ...sent.parsed, input: deduplicated } }
    : sent;
  const { raw, parsed, req } = body;
  const name = field === 'agent' ? (req.agent as string) : model.id;
  const echo = echoFields(req, { field, name, ...(previousInteractionId ? { previousInteractionId } : {}) });
  const inputSteps = deduplicated ?? inputAsSteps(req.input);
  const sink: InteractionsSink = {};
  const provider = model.provider;
  const base = { ...body, id, createdAtMs, principal, stream: req.stream === true, background, store, chain, inputSteps, echo, sink };

  const upstream = provider.interactionsApi;
  if (upstream) {
    const last = chain[chain.length - 1];
    const plan: InteractionsPassthroughPlan = { interactionId: id, field, record: store, sink, now: rt.now, ...(previousInteractionId ? { previousInteractionId } : {}), ...(deduplicated ? { rewritten: true } : {}) };
    // The previous turn was answered by one of this model's deployments: continue there by its own id.
    const holder = last?.upstream && model.deployments.some((d) => d.provider.id === last.upstream?.providerId) ? last.upstream.providerId : undefined;
    if (holder !== undefined && last?.upstream) plan.upstreamPreviousId = last.upstream.responseId;
    else if (chain.length) plan.historySteps = historySteps(chain, name);
    const codec = interactionsPassthrough(plan);
    return {
      ...base,
      passthrough: true,
      origin: GEMINI_INTERACTIONS,
      call: (stream) => {
        // Each deployment with an Interactions API can take the body; a continuation by the upstream's own id only the provider that holds it.
        const target = (m: ResolvedModel) => {
          if (plan.upstreamPreviousId !== undefined && m.provider.id !== holder) return undefined;
          return m.provider.interactionsApi?.chatRequest({ upstreamModel: m.upstreamModel, stream, inboundHeaders: ctx.request.headers });
        };
        return { client: geminiInteractionsClient, model, raw, parsed, stream, passthroughRoute: { codec, target } };
      },
    };
  }

  const history = chain.length ? irHistory(chain, model.id, PARAM, 'interaction') : undefined;
  const decoded = decodeInteractionRequest(parsed, { model: model.id, stream: base.stream, target: provider.chatProtocol, validated: req, ...(history ? { history } : {}) });
  const options: InteractionsEncodeOptions = {
    interactionId: id,
    createdAtMs,
    echo,
    origin: provider.chatProtocol,
    sink,
    now: rt.now,
    ...(req.generation_config?.thinking_summaries === 'none' ? { hideThoughtSummaries: true } : {}),
  };
  return {
    ...base,
    passthrough: false,
    origin: provider.chatProtocol,
    inputIR: decoded.turn,
    call: (stream) => ({ client: geminiInteractionsClient, model, raw, parsed, stream, ir: { ...decoded.ir, stream }, clientOptions: { interactions: options } }),
  };
}

/** The interaction status -> the store's lifecycle status (waiting for a function result is finished). */
function recordStatus(status: unknown): ConversationStatus {
  switch (status) {
    case 'queued':
    case 'in_progress':
    case 'incomplete':
    case 'failed':
    case 'cancelled':
      return status;
    case 'budget_exceeded':
      return 'failed';
    default:
      return 'completed';
  }
}

/** This turn as IR (its input, then the output of `final`), or why other vendors cannot take it. */
function irTurn(turn: InteractionTurn, final: Json): Pick<ConversationRecord, 'turn' | 'untranslatable'> {
  try {
    const callNames = new Map<string, string>();
    for (const r of turn.chain) for (const m of r.turn?.messages ?? []) for (const p of m.content) if (p.type === 'tool-call') callNames.set(p.id, p.name);
    const ctx = { model: turn.model.id, callNames };
    const input = turn.inputIR ?? decodeSteps(turn.inputSteps, ctx);
    const output = decodeSteps(outputStepsOf(final), ctx, 'steps');
    return { turn: { system: [], messages: [...input, ...output] } };
  } catch (err) {
    return { turn: null, untranslatable: err instanceof GatewayError ? err.message : 'it could not be read' };
  }
}

/** The record a finished (or, for background runs, a starting) turn leaves in the store. */
export function interactionRecord(ctx: EndpointContext, turn: InteractionTurn, object: Json): ConversationRecord {
  const status = recordStatus(object.status);
  const record: ConversationRecord = {
    id: turn.id,
    api: INTERACTIONS_API,
    ownerId: turn.principal.id,
    version: 0,
    createdAt: turn.createdAtMs,
    expiresAt: turn.createdAtMs + ctx.services.conversations.ttlMs,
    status,
    background: turn.background,
    object,
    inputItems: turn.inputSteps,
    turn: null,
    origin: turn.origin,
    ...(turn.chain.length ? { previousId: turn.chain[turn.chain.length - 1]?.id } : {}),
  };
  if (status !== 'queued' && status !== 'in_progress') Object.assign(record, irTurn(turn, object));
  // The deployment that answered holds the upstream's interaction id (routing/attempts.ts names it in the event).
  if (turn.passthrough && turn.sink.upstreamId) record.upstream = { providerId: ctx.event.provider ?? turn.model.provider.id, responseId: turn.sink.upstreamId };
  return record;
}
