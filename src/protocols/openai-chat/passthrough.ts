import { GatewayError } from '../../errors.js';
import { findTopLevelValue, insertTopLevelField, replaceTopLevelString } from '../../http/json-splice.js';
import { sseFrame, type SSEEvent } from '../../http/sse.js';
import type { IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { openAIChunkError, openAIErrorFrame } from './errors.js';
import { fromOpenAIUsage } from './upstream/usage.js';
import type { UsageWire } from './openai-chat-api.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

/**
 * OpenAI chat in, OpenAI chat out. The body is forwarded as sent with `model` rewritten; for streams
 * the gateway also asks for the usage chunk (so it always knows usage) and drops it again when the
 * client did not ask for it.
 */
const FINISHED = /"finish_reason"\s*:\s*"/;

/** `data: {"error": {...}}` from an OpenAI-compatible upstream mid-stream, as a GatewayError. */
function inBandError(data: string): GatewayError | undefined {
  try {
    return openAIChunkError(JSON.parse(data));
  } catch {
    return undefined;
  }
}

export const openAIChatPassthrough: PassthroughCodec = {
  protocol: 'openai-chat',
  prepareBody(raw, parsed, upstreamModel, stream) {
    let body = replaceTopLevelString(raw, 'model', upstreamModel) ?? raw;
    if (stream) {
      const opts = parsed.stream_options as { include_usage?: boolean } | null | undefined;
      if (opts?.include_usage !== true) {
        if (findTopLevelValue(body, 'stream_options')) {
          const json = JSON.parse(body) as Record<string, unknown>;
          json.stream_options = { ...(opts ?? {}), include_usage: true };
          body = JSON.stringify(json);
        } else body = insertTopLevelField(body, 'stream_options', '{"include_usage":true}');
      }
    }
    return body;
  },
  finishSyncBody(json, traceId) {
    json.traceId = traceId;
    const usage = json.usage ? fromOpenAIUsage(json.usage as UsageWire) : undefined;
    return { body: json, usage };
  },
  createRelay({ clientWantsUsage, traceId = '' }): StreamRelay {
    let usage: IRUsage | undefined;
    let sawDone = false;
    let sawFinish = false;
    return {
      relay(ev: SSEEvent): string {
        if (ev.data === '[DONE]') sawDone = true;
        else if (!sawFinish && FINISHED.test(ev.data)) sawFinish = true;
        // An in-band error chunk ends the relay as a failure, like the other relays: the pipeline
        // writes it (credentials scrubbed) and hooks see an incomplete stream.
        if (ev.data.includes('"error"')) {
          const failure = inBandError(ev.data);
          if (failure) throw failure;
        }
        // Only the usage chunk carries a usage object; avoid parsing every chunk.
        if (ev.data.includes('"usage":{') || ev.data.includes('"usage": {')) {
          try {
            const chunk = JSON.parse(ev.data) as { usage?: UsageWire; choices?: unknown[] };
            if (chunk.usage) usage = fromOpenAIUsage(chunk.usage);
            if (!clientWantsUsage && Array.isArray(chunk.choices) && chunk.choices.length === 0) return '';
          } catch {
            // relay as is
          }
        }
        return sseFrame(ev.data, ev.event);
      },
      // An upstream that closes without [DONE] after a finish_reason is tolerated (some compatible
      // servers omit it); one that closes before finishing must not look like a complete answer.
      end(): string {
        if (sawDone) return '';
        if (sawFinish) return sseFrame('[DONE]');
        throw streamEndedEarly('the answer was complete');
      },
      error(err: GatewayError): string {
        return openAIErrorFrame(err, traceId);
      },
      usage: () => usage,
    };
  },
};
