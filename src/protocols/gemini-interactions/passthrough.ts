/**
 * Interactions in, Interactions out (Gemini upstreams): the client's body goes to
 * `/v1beta/interactions` with `model` (or `agent`) rewritten, and the stream's bytes are relayed
 * with their `event:` names. Built per request, because the gateway answers with its own
 * interaction id (Gemini's is kept in the stored record): the sync body and the lifecycle events
 * (`interaction.*`) get that id, `previous_interaction_id` as the client sent it, and the traceId.
 * `model` stays as Gemini reports it: the concrete model that answered, not the caller's alias. A `previous_interaction_id` goes upstream as Gemini's own id
 * when this same upstream answered the previous turn; otherwise the stored conversation is sent as
 * steps ahead of the input. Thought steps carrying another vendor's signature (a gateway `mg1.`
 * token) are left out: Gemini cannot check them.
 */
import { GatewayError } from '../../core/errors.js';
import { replaceTopLevelString } from '../../wire/json-splice.js';
import { sseFrame, type SSEEvent } from '../../wire/sse.js';
import type { IRFinishReason, IRUsage } from '../../ir/types.js';
import { isGatewayReasoningToken } from '../shared/reasoning-token.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { inputAsSteps } from './client/decode-steps.js';
import { fromInteractionsUsage, isoTime, type InteractionsSink } from './client/interaction-object.js';
import { DONE_FRAME } from './client/stream-encoder.js';
import { interactionsError } from './errors.js';
import type { CreateInteractionRequest, Json } from './gemini-interactions-api.js';
import { createStepAccumulator } from './upstream/step-accumulator.js';
import { fromInteractionStatus } from './upstream/map-finish-reason.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

export interface InteractionsPassthroughPlan {
  /** The gateway's interaction id. */
  interactionId: string;
  /** `model` or `agent`: the field naming what runs (rewritten in the body sent upstream). */
  field: 'model' | 'agent';
  /** The id the client sent as previous_interaction_id (echoed back). */
  previousInteractionId?: string;
  /** Sent upstream instead of previousInteractionId: the same upstream answered the previous turn. */
  upstreamPreviousId?: string;
  /** The conversation so far as steps, when the upstream does not know it. */
  historySteps?: Json[];
  /** The body's input was changed (repeated function calls left out): it is sent as parsed, not as received. */
  rewritten?: boolean;
  /** Whether the final object and every event are kept (the relay then reads every event). */
  record: boolean;
  sink: InteractionsSink;
  /** Clock (epoch ms), for `updated` of a failure the gateway reports. */
  now: () => number;
}

const LIFECYCLE = new Set(['interaction.created', 'interaction.completed', 'interaction.status_update']);

function withoutForeignThoughts(steps: unknown[]): unknown[] {
  return steps.filter((s) => !(s && typeof s === 'object' && (s as Json).type === 'thought' && isGatewayReasoningToken((s as Json).signature as string)));
}

export function interactionsPassthrough(plan: InteractionsPassthroughPlan): PassthroughCodec {
  /** An interaction (or its lifecycle part) from the upstream -> what the client sees. */
  const rewrite = (interaction: Json): Json => {
    if (typeof interaction.id === 'string' && interaction.id !== plan.interactionId) plan.sink.upstreamId = interaction.id;
    interaction.id = plan.interactionId;
    if ('previous_interaction_id' in interaction || plan.previousInteractionId) {
      if (plan.previousInteractionId) interaction.previous_interaction_id = plan.previousInteractionId;
      else delete interaction.previous_interaction_id;
    }
    return interaction;
  };

  return {
    protocol: 'gemini-interactions',
    prepareBody(raw, parsed, upstreamModel, stream) {
      const simple = !plan.previousInteractionId && !plan.rewritten && !raw.includes('"mg1.') && stream === (parsed.stream === true);
      if (simple) return replaceTopLevelString(raw, plan.field, upstreamModel) ?? raw;
      const body: Json = { ...parsed, [plan.field]: upstreamModel };
      if (stream) body.stream = true;
      if (plan.upstreamPreviousId) body.previous_interaction_id = plan.upstreamPreviousId;
      else if (plan.previousInteractionId) {
        delete body.previous_interaction_id;
        body.input = [...(plan.historySteps ?? []), ...inputAsSteps(parsed.input as CreateInteractionRequest['input'])];
      }
      if (Array.isArray(body.input)) body.input = withoutForeignThoughts(body.input);
      return JSON.stringify(body);
    },
    finishSyncBody(json, traceId) {
      const body = rewrite(json);
      body.traceId = traceId;
      plan.sink.final = body;
      const finishReason = fromInteractionStatus(body.status);
      return { body, usage: fromInteractionsUsage(body.usage), ...(finishReason ? { finishReason } : {}) };
    },
    createRelay({ traceId = '' }): StreamRelay {
      const acc = createStepAccumulator();
      let usage: IRUsage | undefined;
      let finish: IRFinishReason | undefined;
      let terminal = false;
      let seq = 0;
      const finalObject = (extra: Json): Json => {
        const object: Json = { ...acc.lifecycle(), steps: acc.steps(), ...extra };
        const wire = acc.usage();
        if (wire !== undefined) object.usage = wire;
        rewrite(object);
        object.traceId = traceId;
        return object;
      };
      return {
        relay(ev: SSEEvent): string {
          let type = ev.event;
          let data = ev.data;
          if (data.trim() === '[DONE]') return sseFrame(data, type);
          const needsParse = plan.record || type === undefined || LIFECYCLE.has(type) || type === 'error';
          if (!needsParse) return sseFrame(data, type);
          let json: Json;
          try {
            json = JSON.parse(data) as Json;
          } catch {
            return sseFrame(data, type);
          }
          type ??= typeof json.event_type === 'string' ? json.event_type : undefined;
          acc.event(json);
          if (json.interaction && typeof json.interaction === 'object') {
            rewrite(json.interaction as Json);
            data = JSON.stringify(json);
          } else if (type === 'interaction.status_update') {
            if (typeof json.interaction_id === 'string' && json.interaction_id !== plan.interactionId) plan.sink.upstreamId = json.interaction_id;
            json.interaction_id = plan.interactionId;
            data = JSON.stringify(json);
          }
          if (type === 'interaction.completed') {
            terminal = true;
            const final = finalObject({});
            usage = fromInteractionsUsage(final.usage);
            finish = fromInteractionStatus(final.status);
            plan.sink.final = final;
          } else if (type === 'error') {
            terminal = true;
            const error = json.error && typeof json.error === 'object' ? (json.error as Json) : { code: 'UNKNOWN', message: 'The upstream reported an error.' };
            plan.sink.final = finalObject({ status: 'failed', errors: [error], updated: isoTime(plan.now()) });
            finish = fromInteractionStatus('failed');
          }
          if (type) plan.sink.onEvent?.(type, data);
          seq++;
          return sseFrame(data, type);
        },
        end(): string {
          if (terminal) return '';
          throw streamEndedEarly('the interaction was complete');
        },
        error(err: GatewayError): string {
          if (terminal) return '';
          terminal = true;
          const error = interactionsError(err);
          plan.sink.final = finalObject({ status: 'failed', errors: [error], updated: isoTime(plan.now()) });
          const data = JSON.stringify({ event_type: 'error', error, event_id: `gw-${seq}` });
          plan.sink.onEvent?.('error', data);
          return sseFrame(data, 'error') + DONE_FRAME;
        },
        usage: () => usage,
        finishReason: () => finish,
      };
    },
  };
}
