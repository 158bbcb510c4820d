import { GatewayError } from '../../core/errors.js';
import { findTopLevelValue, insertTopLevelField, replaceTopLevelString } from '../../wire/json-splice.js';
import { sseFrame, type SSEEvent } from '../../wire/sse.js';
import type { IRUsage } from '../../ir/types.js';
import type { PassthroughCodec, StreamRelay } from '../types.js';
import { openAIChunkError, openAIErrorFrame } from './errors.js';
import { fromOpenAIUsage } from './upstream/usage.js';
import { fromOpenAIFinishReason } from './upstream/map-finish-reason.js';
import type { UsageWire } from './openai-chat-api.js';
import { streamEndedEarly } from '../shared/stream-blocks.js';

/**
 * OpenAI chat in, OpenAI chat out. The body is forwarded as sent with `model` rewritten; for streams
 * the gateway also asks for the usage chunk (so it always knows usage) and drops it again when the
 * client did not ask for it.
 */
const FINISHED = /"finish_reason"\s*:\s*"/g;
/** Only the usage chunk carries a usage object (other chunks may say `"usage":null`). */
const USAGE_OBJECT = /"usage": ?\{/g;

/** The value of the first `"finish_reason": "…"` in `data` (a plain word: no escapes), or undefined. */
function finishReasonIn(data: string): string | undefined {
  if (searchFrom(FINISHED, data, 0) === -1) return undefined;
  const start = FINISHED.lastIndex;
  const end = data.indexOf('"', start);
  return end === -1 ? undefined : data.slice(start, end);
}

/** Index of `re`'s first match in `text` at or after `from`, or -1. */
function searchFrom(re: RegExp, text: string, from: number): number {
  re.lastIndex = from;
  return re.exec(text)?.index ?? -1;
}

/**
 * A finder of `token` that searches for it from its `lead`-th character: most JSON tokens start
 * with a quote, and a search that starts on a character this common is several times slower.
 */
function tokenFinder(token: string, lead: number): (text: string, from: number) => number {
  const tail = token.slice(lead);
  const head = token.slice(0, lead);
  return (text, from) => {
    for (let i = text.indexOf(tail, from + lead); i !== -1; i = text.indexOf(tail, i + 1)) if (text.startsWith(head, i - lead)) return i - lead;
    return -1;
  };
}

/** `find`, remembering its last match while the same text is searched further on (each event looked at asks again). */
function rememberedFinder(find: (text: string, from: number) => number): (text: string, from: number) => number {
  let last = '';
  let searchedFrom = 0;
  let at = -1;
  return (text, from) => {
    if (text !== last || from < searchedFrom || (at !== -1 && at < from)) {
      last = text;
      searchedFrom = from;
      at = find(text, from);
    }
    return at;
  };
}

const findDone = tokenFinder('[DONE]', 1);
const findErrorKey = tokenFinder('"error"', 2);

/** The smallest index that is not -1, or -1. */
function firstOf(...at: number[]): number {
  let min = -1;
  for (const i of at) if (i !== -1 && (min === -1 || i < min)) min = i;
  return min;
}

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
  isAnswer: (json) => Array.isArray(json.choices),
  finishSyncBody(json) {
    const usage = json.usage ? fromOpenAIUsage(json.usage as UsageWire) : undefined;
    const choice = Array.isArray(json.choices) ? (json.choices[0] as { finish_reason?: string | null } | undefined) : undefined;
    return { body: json, usage, asSent: true, ...(choice?.finish_reason ? { finishReason: fromOpenAIFinishReason(choice.finish_reason) } : {}) };
  },
  createRelay({ clientWantsUsage, traceId = '', target = {} }): StreamRelay {
    const doneRequired = target.streamTerminator === 'done-required';
    let usage: IRUsage | undefined;
    let sawDone = false;
    let sawFinish = false;
    let finishRaw: string | undefined;
    const done = rememberedFinder(findDone);
    const error = rememberedFinder(findErrorKey);
    const usageObject = rememberedFinder((text, from) => searchFrom(USAGE_OBJECT, text, from));
    const finish = rememberedFinder((text, from) => searchFrom(FINISHED, text, from));
    return {
      // Only events with one of these are parsed; the rest (most of a stream) go out as they came.
      nextLook: (events, from) => firstOf(done(events, from), error(events, from), usageObject(events, from), sawFinish ? -1 : finish(events, from)),
      relay(ev: SSEEvent, raw?: string): string {
        if (ev.data === '[DONE]') {
          // Done without any finish_reason: the answer was cut (errors.md), as on every other
          // path; the client gets the in-band error instead of a [DONE] that says it is complete.
          if (!sawFinish) throw streamEndedEarly('a finish_reason');
          sawDone = true;
        } else if (!sawFinish) {
          finishRaw = finishReasonIn(ev.data);
          sawFinish = finishRaw !== undefined;
        }
        // An in-band error chunk ends the relay as a failure, like the other relays: the pipeline
        // writes it (credentials scrubbed) and hooks see an incomplete stream.
        if (ev.data.includes('"error"')) {
          const failure = inBandError(ev.data);
          if (failure) throw failure;
        }
        if (searchFrom(USAGE_OBJECT, ev.data, 0) !== -1) {
          try {
            const chunk = JSON.parse(ev.data) as { usage?: UsageWire; choices?: unknown[] };
            if (chunk.usage) usage = fromOpenAIUsage(chunk.usage);
            if (!clientWantsUsage && Array.isArray(chunk.choices) && chunk.choices.length === 0) return '';
          } catch {
            // relay as is
          }
        }
        return raw ?? sseFrame(ev.data, ev.event);
      },
      // An upstream that closes without [DONE] after a finish_reason is tolerated when the provider
      // says so (some compatible servers omit it); OpenAI itself always sends it, so there the
      // stream was cut (before its usage chunk, maybe). Closing before finishing is always a failure.
      end(): string {
        if (sawDone) return '';
        if (sawFinish && !doneRequired) return sseFrame('[DONE]');
        throw streamEndedEarly(sawFinish ? 'data: [DONE]' : 'the answer was complete');
      },
      error(err: GatewayError): string {
        return openAIErrorFrame(err, traceId);
      },
      usage: () => usage,
      finishReason: () => (finishRaw === undefined ? undefined : fromOpenAIFinishReason(finishRaw)),
    };
  },
};
