/**
 * OpenAI chat chunks -> IR events (upstream side). Every chunk is checked against the chunk schema:
 * a malformed one (or one that is not JSON) ends the stream with an in-band error. Tool-call
 * fragments are keyed strictly by `index`.
 */
import { GatewayError } from '../../../core/errors.js';
import type { SSEEvent } from '../../../wire/sse.js';
import type { IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import { createOpenBlocks, REASONING_BLOCK, REFUSAL_BLOCK, streamEndedEarly, TEXT_BLOCK } from '../../shared/stream-blocks.js';
import type { StreamDecoder, UpstreamTarget } from '../../types.js';
import { isChatChunk } from '../openai-chat-api.js';
import { openAIChunkError } from '../errors.js';
import { fromOpenAIFinishReason } from './map-finish-reason.js';
import { fromOpenAIUsage } from './usage.js';
import { NOT_JSON, parseJsonOr } from '../../shared/json.js';
import { readContentDelta } from './text-delta.js';

/** For a chunk without choices or tool calls: one shared empty list instead of one per chunk. */
const NONE: never[] = [];
const malformed = (): GatewayError => new GatewayError('bad_gateway', 'The upstream sent a malformed OpenAI chat stream chunk.');

export function createOpenAIChatStreamDecoder(target: UpstreamTarget = {}): StreamDecoder {
  const doneRequired = target.streamTerminator === 'done-required';
  let started = false;
  const blocks = createOpenBlocks<string | number>();
  let finishReason: IRFinishReason | undefined;
  let usage: IRUsage = {};
  let done = false;

  const finish = (): IRStreamEvent[] => {
    if (done) return [];
    done = true;
    const out: IRStreamEvent[] = [];
    blocks.closeAll(out);
    out.push({ type: 'finish', finishReason: finishReason ?? { unified: 'stop' }, usage });
    return out;
  };
  const fail = (error: GatewayError): IRStreamEvent[] => {
    done = true;
    return [{ type: 'error', error }];
  };
  const textDelta = (out: IRStreamEvent[], text: string, refusal = false): IRStreamEvent[] => {
    blocks.close(out, 'r0');
    blocks.open(out, 't0', refusal ? REFUSAL_BLOCK : TEXT_BLOCK);
    out.push({ type: 'text-delta', id: 't0', delta: text });
    return out;
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done) return [];
      if (ev.data === '[DONE]') return finishReason ? finish() : [];
      if (started) {
        // Most chunks are plain text in the API's own form: read without a parse (text-delta.ts).
        const quick = readContentDelta(ev.data);
        if (quick !== undefined) return quick ? textDelta([], quick) : [];
      }
      // An empty data line is a keep-alive of some compatible servers, not a chunk.
      if (ev.data.trim() === '') return [];
      const json = parseJsonOr(ev.data);
      if (json === NOT_JSON) return fail(malformed());
      const failure = openAIChunkError(json);
      if (failure) return fail(failure);
      if (!isChatChunk(json)) return fail(malformed());
      const chunk = json;
      const out: IRStreamEvent[] = [];
      if (!started) {
        started = true;
        out.push({ type: 'message-start', id: chunk.id ?? 'chatcmpl-upstream', model: chunk.model ?? 'unknown' });
      }
      if (chunk.usage) usage = fromOpenAIUsage(chunk.usage);
      for (const choice of chunk.choices ?? NONE) {
        if ((choice.index ?? 0) !== 0) continue;
        const delta = choice.delta;
        const reasoning = delta?.reasoning_content ?? delta?.reasoning;
        if (reasoning) {
          blocks.open(out, 'r0', REASONING_BLOCK);
          out.push({ type: 'reasoning-delta', id: 'r0', delta: reasoning });
        }
        const text = delta?.content ?? delta?.refusal;
        if (text) textDelta(out, text, !delta?.content);
        for (const tc of delta?.tool_calls ?? NONE) {
          const index = tc.index ?? 0;
          let call = blocks.get(index);
          if (!call) {
            blocks.close(out, 't0');
            blocks.close(out, 'r0');
            call = blocks.open(out, index, { kind: 'tool', id: tc.id ?? `call_${index}`, index }, tc.function?.name ?? '');
          }
          if (tc.function?.arguments) out.push({ type: 'tool-call-delta', id: call.id, index, delta: tc.function.arguments });
        }
        if (choice.finish_reason) {
          finishReason = fromOpenAIFinishReason(choice.finish_reason);
          blocks.closeAll(out);
        }
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      // Closed without [DONE]: complete after a finish reason, unless the vendor always sends [DONE].
      if (finishReason && !doneRequired) return finish();
      return fail(streamEndedEarly(finishReason ? 'data: [DONE]' : 'it finished'));
    },
  };
}
