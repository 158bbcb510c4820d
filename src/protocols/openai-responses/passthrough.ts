/**
 * Responses in, Responses out (OpenAI upstreams): the client's body goes through with `model`
 * rewritten, and the stream's bytes are relayed. Built per request, because the gateway answers
 * with its own response id (the upstream's is kept in the stored record): the lifecycle events and
 * the sync body get that id, `previous_response_id` as the client sent it, and the traceId. Other
 * events pass untouched. A `previous_response_id` goes upstream as the upstream's own id when the
 * previous turn was answered by this same upstream; otherwise the stored history is prepended to
 * `input`. Reasoning items carrying another vendor's token (`mg1.`) are left out: OpenAI cannot
 * read them.
 */
import { GatewayError } from '../../core/errors.js';
import { replaceTopLevelString } from '../../wire/json-splice.js';
import { sseFrame, type SSEEvent } from '../../wire/sse.js';
import type { IRFinishReason, IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { isGatewayReasoningToken } from '../shared/reasoning-token.js';
import { fromResponsesUsage, type Json, type TurnSink } from './client/response-object.js';
import { responseErrorCode } from './errors.js';
import { finishOf } from './upstream/map-response.js';
import type { ResponseObjectWire } from './upstream/responses-wire.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

export interface ResponsesPassthroughPlan {
  /** The gateway's id for this response (absent: the upstream's ids are kept). */
  responseId?: string;
  /** The id the client sent as previous_response_id (echoed back). */
  previousResponseId?: string;
  /** Sent upstream instead of previousResponseId: the same upstream answered the previous turn. */
  upstreamPreviousId?: string;
  /** The conversation so far as input items, when the upstream does not know it. */
  historyItems?: Json[];
  /** The input to send instead of the client's (item references resolved, repeated calls left out). */
  input?: Json[];
  /** A background run: the upstream is streamed to, the echo says background, its `response.created` is not relayed. */
  background: boolean;
  sink: TurnSink;
}

const LIFECYCLE = new Set(['response.created', 'response.queued', 'response.in_progress', 'response.completed', 'response.incomplete', 'response.failed']);
const TERMINAL = new Set(['response.completed', 'response.incomplete', 'response.failed', 'error']);

const CALL_ITEMS = new Set(['function_call', 'custom_tool_call', 'tool_search_call']);

/** The finish of a final response object (`completed`, `incomplete` by its reason, `failed`). */
function finishOfResponse(response: Json): IRFinishReason | undefined {
  const status = response.status;
  if (status === 'failed' || status === 'cancelled') return { unified: 'error', raw: status };
  if (status !== 'completed' && status !== 'incomplete') return undefined;
  const called = Array.isArray(response.output) && response.output.some((item) => item && typeof item === 'object' && CALL_ITEMS.has((item as Json).type as string));
  return finishOf(response as Pick<ResponseObjectWire, 'status' | 'incomplete_details'>, called);
}

function withoutForeignReasoning(items: unknown[]): unknown[] {
  return items.filter((item) => !(item && typeof item === 'object' && (item as Json).type === 'reasoning' && isGatewayReasoningToken((item as Json).encrypted_content as string)));
}

export function responsesPassthrough(plan: ResponsesPassthroughPlan): PassthroughCodec {
  /** The upstream's response object -> the one the client sees. */
  const rewrite = (response: Json, traceId: string): Json => {
    if (plan.responseId !== undefined) {
      if (typeof response.id === 'string' && response.id !== plan.responseId) plan.sink.upstreamResponseId = response.id;
      response.id = plan.responseId;
      response.previous_response_id = plan.previousResponseId ?? null;
    }
    if (plan.background) response.background = true;
    response.traceId = traceId;
    return response;
  };

  return {
    protocol: 'openai-responses',
    prepareBody(raw, parsed, upstreamModel, stream) {
      const simple = !plan.background && !plan.previousResponseId && !plan.input && !raw.includes('"mg1.');
      if (simple) return replaceTopLevelString(raw, 'model', upstreamModel) ?? raw;
      const body: Json = { ...parsed, model: upstreamModel };
      if (plan.input) body.input = plan.input;
      delete body.background;
      if (stream) body.stream = true;
      if (plan.upstreamPreviousId) body.previous_response_id = plan.upstreamPreviousId;
      else if (plan.previousResponseId) {
        delete body.previous_response_id;
        const own = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : Array.isArray(body.input) ? body.input : [];
        body.input = [...(plan.historyItems ?? []), ...own];
      }
      if (Array.isArray(body.input)) body.input = withoutForeignReasoning(body.input);
      return JSON.stringify(body);
    },
    isAnswer: (json) => json.object === 'response',
    finishSyncBody(json, traceId) {
      const body = rewrite(json, traceId);
      plan.sink.final = body;
      const finishReason = finishOfResponse(body);
      return { body, usage: fromResponsesUsage(body.usage), ...(finishReason ? { finishReason } : {}) };
    },
    createRelay({ traceId = '' }): StreamRelay {
      let usage: IRUsage | undefined;
      let lastSeq = -1;
      let terminal = false;
      let last: Json | undefined;
      let finish: IRFinishReason | undefined;
      return {
        relay(ev: SSEEvent): string {
          let type = ev.event;
          let data = ev.data;
          const needsParse = type === undefined || LIFECYCLE.has(type) || plan.sink.onEvent !== undefined;
          if (needsParse) {
            let json: Json;
            try {
              json = JSON.parse(data) as Json;
            } catch {
              return sseFrame(data, type);
            }
            type ??= typeof json.type === 'string' ? json.type : undefined;
            if (typeof json.sequence_number === 'number') lastSeq = json.sequence_number;
            if (type && LIFECYCLE.has(type) && json.response && typeof json.response === 'object') {
              last = rewrite(json.response as Json, traceId);
              // A background run's own `response.created` (queued) was recorded at submission.
              if (plan.background && type === 'response.created') return '';
              data = JSON.stringify(json);
              if (TERMINAL.has(type)) {
                plan.sink.final = last;
                usage = fromResponsesUsage(last.usage);
                finish = finishOfResponse(last);
              }
            }
            if (type) plan.sink.onEvent?.(type, data);
          }
          else lastSeq = Math.max(lastSeq, sequenceIn(data));
          if (type && TERMINAL.has(type)) terminal = true;
          return sseFrame(data, type);
        },
        end(): string {
          if (terminal) return '';
          throw streamEndedEarly('the response was complete');
        },
        error(err: GatewayError): string {
          terminal = true;
          const code = responseErrorCode(err);
          if (last) {
            const response = { ...last, status: 'failed', error: { code, message: err.message } };
            plan.sink.final = response;
            const data = JSON.stringify({ type: 'response.failed', sequence_number: ++lastSeq, response });
            plan.sink.onEvent?.('response.failed', data);
            return sseFrame(data, 'response.failed');
          }
          const data = JSON.stringify({ type: 'error', sequence_number: ++lastSeq, code, message: err.message, param: err.param });
          plan.sink.onEvent?.('error', data);
          return sseFrame(data, 'error');
        },
        usage: () => usage,
        finishReason: () => finish,
      };
    },
  };
}

const SEQUENCE_KEY = '"sequence_number":';

/**
 * The `sequence_number` of an event relayed unparsed (-1: none), read from its text: the gateway's
 * own closing event (`response.failed`, `error`) must number after it. The key with its quotes can
 * only be a key (inside a JSON string the quotes are escaped).
 */
function sequenceIn(data: string): number {
  const at = data.lastIndexOf(SEQUENCE_KEY);
  if (at < 0) return -1;
  let i = at + SEQUENCE_KEY.length;
  while (data.charCodeAt(i) === 32) i++;
  let n = 0;
  let digits = 0;
  for (let c = data.charCodeAt(i); c >= 48 && c <= 57; c = data.charCodeAt(++i), digits++) n = n * 10 + (c - 48);
  return digits ? n : -1;
}
