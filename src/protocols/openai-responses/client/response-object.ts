/**
 * The response object as OpenAI returns it, built from the request's echo fields and the output so
 * far; shared by the sync encoder, the stream encoder and the stored-response paths. Also the
 * per-request options the endpoint hands the encoders (through ResponseMeta.options).
 */
import { GatewayError } from '../../../core/errors.js';
import { totalOf, type IRUsage, type IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import type { ResponsesRequest } from '../openai-responses-api.js';
import type { ResponsesEncodeOptions } from './encode-options.js';

import type { Json } from '../../shared/json.js';

export type { Json };
export type { ResponsesEncodeOptions, TurnSink } from './encode-options.js';

export type ResponseStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';


export function responsesOptions(meta: ResponseMeta): ResponsesEncodeOptions {
  const opts = meta.options?.responses;
  if (!opts || typeof opts.responseId !== 'string') throw new GatewayError('internal', 'The Responses encoder was called without its options.');
  return opts;
}

/** The request fields a response object repeats, with OpenAI's defaults. */
export function echoFields(req: ResponsesRequest, opts: { previousResponseId?: string; background: boolean; store: boolean }): Json {
  return {
    background: opts.background,
    instructions: req.instructions ?? null,
    max_output_tokens: req.max_output_tokens ?? null,
    max_tool_calls: req.max_tool_calls ?? null,
    metadata: req.metadata ?? {},
    parallel_tool_calls: req.parallel_tool_calls ?? true,
    previous_response_id: opts.previousResponseId ?? null,
    prompt_cache_key: req.prompt_cache_key ?? null,
    reasoning: { effort: req.reasoning?.effort ?? null, summary: req.reasoning?.summary ?? req.reasoning?.generate_summary ?? null },
    safety_identifier: req.safety_identifier ?? null,
    service_tier: req.service_tier ?? 'default',
    store: opts.store,
    temperature: req.temperature ?? 1,
    text: { format: req.text?.format ?? { type: 'text' }, verbosity: req.text?.verbosity ?? 'medium' },
    tool_choice: req.tool_choice ?? 'auto',
    tools: req.tools ?? [],
    top_logprobs: req.top_logprobs ?? 0,
    top_p: req.top_p ?? 1,
    truncation: req.truncation ?? 'disabled',
    user: req.user ?? null,
  };
}

export interface ResponseState {
  status: ResponseStatus;
  model: string;
  output: Json[];
  usage?: IRUsage;
  error?: { code: string; message: string } | null;
  incompleteReason?: string;
  completedAt?: number;
  warnings?: IRWarning[];
}

export function buildResponseObject(opts: Pick<ResponsesEncodeOptions, 'responseId' | 'createdAt' | 'echo'>, state: ResponseState, traceId: string): Json {
  const { echo } = opts;
  const out: Json = {
    id: opts.responseId,
    object: 'response',
    created_at: opts.createdAt,
    status: state.status,
    background: echo.background ?? false,
    completed_at: state.completedAt ?? null,
    error: state.error ?? null,
    incomplete_details: state.incompleteReason ? { reason: state.incompleteReason } : null,
    instructions: echo.instructions ?? null,
    max_output_tokens: echo.max_output_tokens ?? null,
    max_tool_calls: echo.max_tool_calls ?? null,
    model: state.model,
    output: state.output,
  };
  for (const [k, v] of Object.entries(echo)) if (!Object.hasOwn(out, k)) out[k] = v;
  const usage = state.usage ? toResponsesUsage(state.usage) : undefined;
  out.usage = usage ?? null;
  if (state.warnings?.length) out.warnings = state.warnings;
  out.traceId = traceId;
  return out;
}

/** IR usage -> Responses usage, exactly the upstream's counts; undefined when nothing is known. */
function toResponsesUsage(u: IRUsage): Json | undefined {
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  return {
    input_tokens: u.inputTokens ?? 0,
    input_tokens_details: { cached_tokens: u.cachedInputTokens ?? 0 },
    output_tokens: u.outputTokens ?? 0,
    output_tokens_details: { reasoning_tokens: u.reasoningTokens ?? 0 },
    total_tokens: totalOf(u) ?? 0,
  };
}

/** Responses usage -> IR (pass-through observes it). */
export function fromResponsesUsage(u: unknown): IRUsage | undefined {
  if (!u || typeof u !== 'object') return undefined;
  const w = u as { input_tokens?: unknown; output_tokens?: unknown; total_tokens?: unknown; input_tokens_details?: { cached_tokens?: unknown } | null; output_tokens_details?: { reasoning_tokens?: unknown } | null };
  const out: IRUsage = {};
  if (typeof w.input_tokens === 'number') out.inputTokens = w.input_tokens;
  if (typeof w.output_tokens === 'number') out.outputTokens = w.output_tokens;
  if (typeof w.total_tokens === 'number') out.totalTokens = w.total_tokens;
  if (typeof w.input_tokens_details?.cached_tokens === 'number') out.cachedInputTokens = w.input_tokens_details.cached_tokens;
  if (typeof w.output_tokens_details?.reasoning_tokens === 'number') out.reasoningTokens = w.output_tokens_details.reasoning_tokens;
  return out;
}

/** The finish reason -> status and incomplete reason. */
export function statusOfFinish(unified: string): { status: ResponseStatus; incompleteReason?: string } {
  if (unified === 'length') return { status: 'incomplete', incompleteReason: 'max_output_tokens' };
  if (unified === 'content-filter') return { status: 'incomplete', incompleteReason: 'content_filter' };
  return { status: 'completed' };
}
