/**
 * One `POST /v1/responses` turn, prepared: the gateway's response id, the earlier turns it
 * continues, and the route. OpenAI upstreams are passed through (with the upstream's own
 * `previous_response_id` when it answered the previous turn, else with the stored conversation as
 * input items); other vendors are translated through the IR, the stored conversation rebuilt as IR
 * history. Also the record a finished turn leaves in the conversation store.
 */
import type { Principal } from '../auth/principal.js';
import type { ConversationRecord } from '../conversations/conversation-store.js';
import { irHistory, loadChain } from '../conversations/history.js';
import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';
import type { ProtocolName } from '../ir/types.js';
import { decodeInputItems, type DecodedItems } from '../protocols/openai-responses/client/convert-input-items.js';
import { decodeResponsesRequest } from '../protocols/openai-responses/client/decode-request.js';
import { decodeTools, type ToolNames } from '../protocols/openai-responses/client/decode-tools.js';
import { echoFields, type Json, type ResponsesEncodeOptions, type ResponseStatus, type TurnSink } from '../protocols/openai-responses/client/response-object.js';
import { inputItemsForListing, replayableItems } from '../protocols/openai-responses/client/stored-items.js';
import { openAIResponsesClient } from '../protocols/openai-responses/index.js';
import { responsesPassthrough, type ResponsesPassthroughPlan } from '../protocols/openai-responses/passthrough.js';
import type { ResponsesRequest } from '../protocols/openai-responses/openai-responses-api.js';
import { codecFor } from '../protocols/registry.js';
import type { Provider } from '../providers/types.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import type { ChatCall } from './chat-pipeline.js';
import { resolveResponsesInput, RESPONSES_API, type ResponsesInput } from './responses-input.js';


/**
 * The provider view that reaches a model through OpenAI's Responses API, if there is one: models
 * configured with `"api": "responses"`, and every model of an `openai` provider (OpenAI serves all
 * its chat models there too). A Responses client is passed through to it.
 */
export function responsesUpstreamOf(model: ResolvedModel): Provider | undefined {
  const provider = model.provider;
  if (provider.chatProtocol === 'openai-responses') return provider;
  return provider.responsesForEveryModel ? provider.responsesApi : undefined;
}

export interface ResponsesTurn {
  id: string;
  /** Epoch ms. */
  createdAtMs: number;
  principal: Principal;
  model: ResolvedModel;
  req: ResponsesRequest;
  stream: boolean;
  background: boolean;
  store: boolean;
  /** Earlier turns, oldest first. */
  chain: ConversationRecord[];
  echo: Json;
  sink: TurnSink;
  passthrough: boolean;
  /** The chat call of this turn; background runs stream whatever the client asked. */
  call(stream: boolean): ChatCall;
  /** This turn's input as IR (translated turns; pass-through turns decode it when stored). */
  decoded?: { names: ToolNames; turn: DecodedItems };
  /** Ids of input items resolved from earlier responses (`item_reference`); those responses index them. */
  resolvedIds: ReadonlySet<string>;
}

interface Body {
  raw: string;
  parsed: Record<string, unknown>;
  req: ResponsesRequest;
  model: ResolvedModel;
}

/** The stored conversation (Responses records only: loadResponsesContext refuses others) as input items for an OpenAI upstream. */
function historyItems(chain: ConversationRecord[]): Json[] {
  return chain.flatMap((r) => replayableItems(r.inputItems, r.object.output));
}

/** The earlier turns a request continues, and its input resolved against the key's stored responses. */
export async function loadResponsesContext(ctx: EndpointContext, principal: Principal, req: ResponsesRequest, model: ResolvedModel): Promise<{ chain: ConversationRecord[]; input?: ResponsesInput }> {
  const store = ctx.services.conversations.store;
  const previousResponseId = req.previous_response_id ?? undefined;
  const chain = previousResponseId ? await loadChain(store, previousResponseId, principal.id) : [];
  // An interaction is no response (its own routes answer it): as unknown here as a missing one.
  if (chain.some((r) => r.api !== RESPONSES_API)) throw new GatewayError('not_found', `Previous response with id '${quoteInput(previousResponseId as string)}' not found.`, { param: 'previous_response_id' });
  // Providers that would answer through their own Responses API: an item one of them produced is theirs to resolve.
  const holders = new Set(responsesUpstreamOf(model) ? model.deployments.map((d) => d.provider.id) : []);
  const input = await resolveResponsesInput(store, principal.id, req.input, chain, holders);
  return { chain, ...(input ? { input } : {}) };
}

export async function prepareResponsesTurn(ctx: EndpointContext, principal: Principal, body: Body): Promise<ResponsesTurn> {
  const rt = ctx.services;
  const { raw, model } = body;
  const id = rt.newId('resp_');
  const createdAtMs = rt.now();
  const background = body.req.background === true;
  const store = body.req.store !== false;
  const previousResponseId = body.req.previous_response_id ?? undefined;
  const { chain, input } = await loadResponsesContext(ctx, principal, body.req, model);
  // The turn as decoded, stored and listed: references resolved, repeated calls left out.
  const req: ResponsesRequest = input ? { ...body.req, input: input.items } : body.req;
  const parsed = input ? { ...body.parsed, input: input.items } : body.parsed;
  const echo = echoFields(req, { ...(previousResponseId ? { previousResponseId } : {}), background, store });
  const sink: TurnSink = {};
  const provider = model.provider;
  const resolvedIds = input?.resolvedIds ?? new Set<string>();
  const base = { id, createdAtMs, principal, model, req, stream: req.stream === true, background, store, chain, echo, sink, resolvedIds };

  const responsesUpstream = responsesUpstreamOf(model);
  if (responsesUpstream) {
    const last = chain[chain.length - 1];
    // The previous turn was answered by one of this model's deployments: continue there by its own response id.
    const holder = last?.upstream && model.deployments.some((d) => d.provider.id === last.upstream?.providerId) ? last.upstream.providerId : undefined;
    const sameUpstream = holder !== undefined ? last?.upstream?.responseId : undefined;
    const plan: ResponsesPassthroughPlan = { responseId: id, background, sink, ...(previousResponseId ? { previousResponseId } : {}), ...(input ? { input: input.upstreamItems } : {}) };
    if (sameUpstream) plan.upstreamPreviousId = sameUpstream;
    else if (chain.length) plan.historyItems = historyItems(chain);
    const codec = responsesPassthrough(plan);
    // A response-cache hit on this turn is encoded here, with no upstream to relay: it needs the
    // encoder's options, as a translated turn has them (only worked out when the cache may answer).
    const cached = !store && !background && (principal.cache ?? model.cache) !== undefined;
    const names = cached ? toolNamesOrUndefined(req, model.id) : undefined;
    const hitOptions = (): ResponsesEncodeOptions | undefined =>
      names && { responseId: id, createdAt: Math.floor(createdAtMs / 1000), echo, names, origin: 'openai-responses', sink, webSearchSources: req.include?.includes('web_search_call.action.sources') === true, holdTextForSearch: false, background: false, now: rt.now };
    return {
      ...base,
      passthrough: true,
      call: (stream) => {
        // Each deployment with a Responses API can take the body; a continuation by the upstream's own response id only the provider that holds it.
        const target = (m: ResolvedModel) => {
          if (sameUpstream && m.provider.id !== holder) return undefined;
          return responsesUpstreamOf(m)?.chatRequest({ upstreamModel: m.upstreamModel, stream, inboundHeaders: ctx.request.headers });
        };
        const responses = hitOptions();
        return { client: openAIResponsesClient, model, raw, parsed, stream, passthroughRoute: { codec, target }, ...(responses ? { clientOptions: { responses } } : {}) };
      },
    };
  }

  const history = chain.length ? irHistory(chain, model.id) : undefined;
  const decoded = decodeResponsesRequest(parsed, { model: model.id, stream: base.stream, target: provider.chatProtocol, validated: req, ...(history ? { history } : {}) });
  const options = (stream: boolean): ResponsesEncodeOptions => ({
    responseId: id,
    createdAt: Math.floor(createdAtMs / 1000),
    echo,
    names: decoded.names,
    origin: provider.chatProtocol,
    sink,
    webSearchSources: req.include?.includes('web_search_call.action.sources') === true,
    holdTextForSearch: stream && codecFor(provider.chatProtocol).upstream.searchReportedAfterText === true && decoded.ir.tools?.some((t) => t.type === 'web-search') === true,
    background: background && stream,
    now: rt.now,
  });
  return {
    ...base,
    passthrough: false,
    decoded: { names: decoded.names, turn: decoded.turn },
    call: (stream) => ({ client: openAIResponsesClient, model, raw, parsed, stream, ir: { ...decoded.ir, stream }, clientOptions: { responses: options(stream) } }),
  };
}

/** The tool names of a request for the Responses encoder; undefined when its tools cannot be read as IR. */
function toolNamesOrUndefined(req: ResponsesRequest, model: string): ToolNames | undefined {
  try {
    return decodeTools(req, model, { skipHosted: true }).names;
  } catch {
    return undefined;
  }
}

/** This turn as IR (its input, then the output of `final`), or why it cannot be. */
function irTurn(turn: ResponsesTurn, final: Json): Pick<ConversationRecord, 'turn' | 'untranslatable'> {
  try {
    const names = turn.decoded?.names ?? decodeTools(turn.req, turn.model.id, { skipHosted: true }).names;
    const callNames = new Map<string, string>();
    for (const r of turn.chain) for (const m of r.turn?.messages ?? []) for (const p of m.content) if (p.type === 'tool-call') callNames.set(p.id, p.name);
    const ctx = { model: turn.model.id, names, callNames };
    const input = turn.decoded?.turn ?? decodeInputItems(turn.req.input ?? [], ctx);
    const output = decodeInputItems(Array.isArray(final.output) ? (final.output as Json[]) : [], ctx, 'output');
    return { turn: { system: input.system, messages: [...input.messages, ...output.messages] } };
  } catch (err) {
    return { turn: null, untranslatable: err instanceof GatewayError ? err.message : 'it could not be read' };
  }
}

/** The record a finished (or, for background runs, a queued) turn leaves in the store. */
export function turnRecord(ctx: EndpointContext, turn: ResponsesTurn, object: Json, inputItems?: Json[]): ConversationRecord {
  const status = (typeof object.status === 'string' ? object.status : 'completed') as ResponseStatus;
  const provider = turn.model.provider;
  const finished = status !== 'queued' && status !== 'in_progress';
  const origin: ProtocolName = turn.passthrough ? 'openai-responses' : provider.chatProtocol;
  const record: ConversationRecord = {
    id: turn.id,
    api: RESPONSES_API,
    ownerId: turn.principal.id,
    version: 0,
    createdAt: turn.createdAtMs,
    expiresAt: turn.createdAtMs + ctx.services.conversations.ttlMs,
    status,
    background: turn.background,
    object,
    inputItems: inputItems ?? inputItemsForListing(turn.req.input, (prefix) => ctx.services.newId(prefix)),
    turn: null,
    origin,
    ...(turn.chain.length ? { previousId: turn.chain[turn.chain.length - 1]?.id } : {}),
  };
  if (finished) Object.assign(record, irTurn(turn, object));
  // Output items and the turn's own input items; resolved references stay indexed with the response that holds them.
  const output = Array.isArray(object.output) ? (object.output as Json[]) : [];
  const itemIds = [...record.inputItems, ...output].flatMap((item) => (typeof item.id === 'string' && !turn.resolvedIds.has(item.id) ? [item.id] : []));
  if (itemIds.length) record.itemIds = [...new Set(itemIds)];
  // The deployment that answered holds the upstream's response id (routing/attempts.ts names it in the event).
  if (turn.passthrough && turn.sink.upstreamResponseId) record.upstream = { providerId: ctx.event.provider ?? provider.id, responseId: turn.sink.upstreamResponseId };
  return record;
}
