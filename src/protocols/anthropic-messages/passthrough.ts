/**
 * Anthropic in, Anthropic out. The body goes upstream byte-for-byte with only `model` rewritten;
 * stream events are relayed with their `event:` names while usage is observed from message_start
 * and message_delta. An upstream `event: error`, or a stream that closes before `message_stop` (a
 * truncated body), ends the relay as a failure: the pipeline writes the error frame, so the client
 * never takes half an answer for a whole one and usage hooks see an incomplete stream.
 */
import { GatewayError } from '../../core/errors.js';
import { replaceTopLevelString } from '../../wire/json-splice.js';
import { sseFrame, type SSEEvent } from '../../wire/sse.js';
import type { IRFinishReason, IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import type { AnthropicUsage } from './anthropic-messages-api.js';
import { anthropicErrorFrame, errorFromAnthropicEvent } from './errors.js';
import { fromAnthropicUsage, mergeAnthropicUsage } from './upstream/usage.js';
import { fromAnthropicStopReason } from './upstream/map-finish-reason.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

export const anthropicPassthrough: PassthroughCodec = {
  protocol: 'anthropic-messages',
  prepareBody(raw, _parsed, upstreamModel) {
    return replaceTopLevelString(raw, 'model', upstreamModel) ?? raw;
  },
  isAnswer: (json) => json.type === 'message',
  finishSyncBody(json) {
    const usage = json.usage && typeof json.usage === 'object' ? fromAnthropicUsage(json.usage as AnthropicUsage) : undefined;
    const stop = typeof json.stop_reason === 'string' ? fromAnthropicStopReason(json.stop_reason, json.stop_sequence as string | null | undefined) : undefined;
    return { body: json, usage, asSent: true, ...(stop ? { finishReason: stop } : {}) };
  },
  createRelay({ traceId }): StreamRelay {
    let wire: AnthropicUsage | undefined;
    let stopped = false;
    let finish: IRFinishReason | undefined;
    const observe = (u: unknown): void => {
      wire = mergeAnthropicUsage(wire, u);
    };
    return {
      relay(ev: SSEEvent): string {
        let name = ev.event;
        const needsParse = !name || name === 'message_start' || name === 'message_delta' || name === 'error';
        if (needsParse) {
          try {
            const data = JSON.parse(ev.data) as { type?: string; message?: { usage?: unknown }; usage?: unknown; delta?: { stop_reason?: string | null; stop_sequence?: string | null } };
            name ??= data.type;
            if (name === 'message_start') observe(data.message?.usage);
            else if (name === 'message_delta') {
              observe(data.usage);
              if (data.delta?.stop_reason) finish = fromAnthropicStopReason(data.delta.stop_reason, data.delta.stop_sequence);
            }
            else if (name === 'error') throw errorFromAnthropicEvent(data);
          } catch (err) {
            if (!(err instanceof SyntaxError)) throw err;
          }
        }
        if (name === 'message_stop') stopped = true;
        return sseFrame(ev.data, name);
      },
      end(): string {
        if (!stopped) throw streamEndedEarly('message_stop');
        return '';
      },
      error: (err: GatewayError): string => anthropicErrorFrame(err, traceId),
      usage: (): IRUsage | undefined => (wire ? fromAnthropicUsage(wire) : undefined),
      finishReason: () => finish,
    };
  },
};
