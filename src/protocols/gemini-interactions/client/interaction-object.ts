/**
 * The interaction object as Gemini returns it, built from the request's echo fields and the output
 * so far; shared by the sync encoder, the stream encoder, the pass-through and the stored-interaction
 * paths. Also the per-request options the endpoint hands the encoders (ResponseMeta.options).
 */
import { GatewayError } from '../../../core/errors.js';
import { totalOf, type IRFinishReason, type IRUsage, type IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import type { CreateInteractionRequest, InteractionStatus, InteractionsUsageWire, Json } from '../gemini-interactions-api.js';

export type { InteractionsEncodeOptions, InteractionsSink } from './encode-options.js';
import type { InteractionsEncodeOptions } from './encode-options.js';

export function interactionsOptions(meta: ResponseMeta): InteractionsEncodeOptions {
  const opts = meta.options?.interactions;
  if (!opts || typeof opts.interactionId !== 'string') throw new GatewayError('internal', 'The Interactions encoder was called without its options.');
  return opts;
}

const ECHOED = ['agent', 'agent_config', 'system_instruction', 'tools', 'generation_config', 'response_format', 'response_modalities', 'labels', 'service_tier'] as const;

/** The request fields an interaction object repeats; `model`/`agent` names what the caller asked for (see answeredBy). */
export function echoFields(req: CreateInteractionRequest, opts: { field: 'model' | 'agent'; name: string; previousInteractionId?: string }): Json {
  const out: Json = { [opts.field]: opts.name };
  if (opts.previousInteractionId) out.previous_interaction_id = opts.previousInteractionId;
  for (const k of ECHOED) if (req[k] !== undefined && k !== opts.field) out[k] = req[k];
  return out;
}

/**
 * The options with `model` naming the concrete model that answered (the upstream's report, else the
 * model it was asked for), never the caller's alias; an agent keeps its name.
 */
export function answeredBy<T extends Pick<InteractionsEncodeOptions, 'echo'>>(opts: T, model: string): T {
  return typeof opts.echo.model === 'string' ? { ...opts, echo: { ...opts.echo, model } } : opts;
}

/** `2026-08-20T10:00:02Z` */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export interface InteractionState {
  status: InteractionStatus;
  steps: Json[];
  usage?: Json;
  errors?: Array<{ code: string; message: string }>;
  updatedMs: number;
  warnings?: IRWarning[];
}

/** The lifecycle part of an interaction (what `interaction.created`/`.completed` events carry). */
export function lifecycleOf(opts: Pick<InteractionsEncodeOptions, 'interactionId' | 'createdAtMs' | 'echo'>, status: InteractionStatus, updatedMs: number, usage?: Json): Json {
  const out: Json = { id: opts.interactionId, object: 'interaction', status };
  if (typeof opts.echo.model === 'string') out.model = opts.echo.model;
  if (typeof opts.echo.agent === 'string') out.agent = opts.echo.agent;
  out.created = isoTime(opts.createdAtMs);
  out.updated = isoTime(updatedMs);
  if (usage) out.usage = usage;
  return out;
}

export function buildInteraction(opts: Pick<InteractionsEncodeOptions, 'interactionId' | 'createdAtMs' | 'echo'>, state: InteractionState, traceId: string): Json {
  const out: Json = { ...lifecycleOf(opts, state.status, state.updatedMs) };
  for (const [k, v] of Object.entries(opts.echo)) if (!Object.hasOwn(out, k)) out[k] = v;
  out.steps = state.steps;
  if (state.usage) out.usage = state.usage;
  if (state.errors?.length) out.errors = state.errors;
  if (state.warnings?.length) out.warnings = state.warnings;
  out.traceId = traceId;
  return out;
}

/** IR usage -> Interactions usage, exactly the upstream's counts (thought tokens are not output tokens there). */
export function toInteractionsUsage(u: IRUsage): Json | undefined {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  const out: Json = { total_input_tokens: u.inputTokens ?? 0, total_output_tokens: Math.max(0, (u.outputTokens ?? 0) - (u.reasoningTokens ?? 0)) };
  if (u.reasoningTokens !== undefined) out.total_thought_tokens = u.reasoningTokens;
  if (u.cachedInputTokens !== undefined) out.total_cached_tokens = u.cachedInputTokens;
  out.total_tokens = totalOf(u) ?? 0;
  return out;
}

/** Interactions usage -> IR (hooks observe pass-through usage this way). */
export function fromInteractionsUsage(u: unknown): IRUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const w = u as InteractionsUsageWire;
  const num = (v: unknown): number | undefined => (typeof v === 'number' ? v : undefined);
  const input = num(w.total_input_tokens);
  const output = num(w.total_output_tokens);
  const thought = num(w.total_thought_tokens);
  const out: IRUsage = {};
  if (input !== undefined) out.inputTokens = input;
  if (output !== undefined || thought !== undefined) out.outputTokens = (output ?? 0) + (thought ?? 0);
  if (thought !== undefined) out.reasoningTokens = thought;
  const cached = num(w.total_cached_tokens);
  if (cached !== undefined) out.cachedInputTokens = cached;
  const total = num(w.total_tokens);
  if (total !== undefined) out.totalTokens = total;
  return out;
}

/** The finish reason -> status: a function call waits for its result, a token cut-off is incomplete. */
export function statusOfFinish(reason: IRFinishReason, calledFunctions: boolean): { status: InteractionStatus; errors?: Array<{ code: string; message: string }> } {
  if (calledFunctions) return { status: 'requires_action' };
  switch (reason.unified) {
    case 'length':
      return { status: 'incomplete' };
    case 'content-filter':
      return { status: 'incomplete', errors: [{ code: 'content_filter', message: `The upstream stopped the answer for safety reasons (${reason.raw ?? 'content filter'}).` }] };
    case 'error':
      return { status: 'failed', errors: [{ code: 'upstream_error', message: `The upstream reported an error (${reason.raw ?? 'error'}).` }] };
    default:
      return { status: 'completed' };
  }
}
