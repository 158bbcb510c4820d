import { GatewayError } from '../../../errors.js';
import type { SSEEvent } from '../../../http/sse.js';
import type { IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import type { StreamDecoder } from '../../types.js';
import { fromOpenAIFinishReason } from './map-finish-reason.js';
import { fromOpenAIUsage } from './usage.js';
import type { UsageWire } from '../openai-chat-api.js';

interface ChunkWire {
  id?: string;
  model?: string;
  error?: { message?: string };
  usage?: UsageWire | null;
  choices?: Array<{
    index?: number;
    delta?: {
      content?: string | null;
      reasoning_content?: string | null;
      reasoning?: string | null;
      refusal?: string | null;
      tool_calls?: Array<{ index?: number; id?: string; function?: { name?: string; arguments?: string } }>;
    };
    finish_reason?: string | null;
  }>;
}

/** OpenAI chat chunks -> IR events. Tool-call fragments are keyed strictly by `index`. */
export function createOpenAIChatStreamDecoder(): StreamDecoder {
  let started = false;
  let textOpen = false;
  let reasoningOpen = false;
  const openTools = new Map<number, string>();
  let finishReason: IRFinishReason | undefined;
  let usage: IRUsage = {};
  let done = false;

  const closeBlocks = (out: IRStreamEvent[]): void => {
    if (reasoningOpen) {
      out.push({ type: 'reasoning-end', id: 'r0' });
      reasoningOpen = false;
    }
    if (textOpen) {
      out.push({ type: 'text-end', id: 't0' });
      textOpen = false;
    }
    for (const [index, id] of openTools) out.push({ type: 'tool-call-end', id, index });
    openTools.clear();
  };

  const finish = (): IRStreamEvent[] => {
    if (done) return [];
    done = true;
    const out: IRStreamEvent[] = [];
    closeBlocks(out);
    out.push({ type: 'finish', finishReason: finishReason ?? { unified: 'stop' }, usage });
    return out;
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done) return [];
      if (ev.data === '[DONE]') return finishReason ? finish() : [];
      let chunk: ChunkWire;
      try {
        chunk = JSON.parse(ev.data) as ChunkWire;
      } catch {
        return [];
      }
      const out: IRStreamEvent[] = [];
      if (chunk.error) {
        done = true;
        out.push({ type: 'error', error: new GatewayError('upstream_error', chunk.error.message ?? 'The upstream reported an error mid-stream.') });
        return out;
      }
      if (!started) {
        started = true;
        out.push({ type: 'message-start', id: chunk.id ?? 'chatcmpl-upstream', model: chunk.model ?? 'unknown' });
      }
      if (chunk.usage) usage = fromOpenAIUsage(chunk.usage);
      for (const choice of chunk.choices ?? []) {
        if ((choice.index ?? 0) !== 0) continue;
        const delta = choice.delta ?? {};
        const reasoning = delta.reasoning_content ?? delta.reasoning;
        if (reasoning) {
          if (!reasoningOpen) {
            reasoningOpen = true;
            out.push({ type: 'reasoning-start', id: 'r0' });
          }
          out.push({ type: 'reasoning-delta', id: 'r0', delta: reasoning });
        }
        const text = delta.content ?? delta.refusal;
        if (text) {
          if (reasoningOpen) {
            reasoningOpen = false;
            out.push({ type: 'reasoning-end', id: 'r0' });
          }
          if (!textOpen) {
            textOpen = true;
            out.push({ type: 'text-start', id: 't0' });
          }
          out.push({ type: 'text-delta', id: 't0', delta: text });
        }
        for (const tc of delta.tool_calls ?? []) {
          const index = tc.index ?? 0;
          let id = openTools.get(index);
          if (id === undefined) {
            if (textOpen) {
              textOpen = false;
              out.push({ type: 'text-end', id: 't0' });
            }
            if (reasoningOpen) {
              reasoningOpen = false;
              out.push({ type: 'reasoning-end', id: 'r0' });
            }
            id = tc.id ?? `call_${index}`;
            openTools.set(index, id);
            out.push({ type: 'tool-call-start', id, index, name: tc.function?.name ?? '' });
          }
          if (tc.function?.arguments) out.push({ type: 'tool-call-delta', id, index, delta: tc.function.arguments });
        }
        if (choice.finish_reason) {
          finishReason = fromOpenAIFinishReason(choice.finish_reason);
          closeBlocks(out);
        }
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      if (finishReason) return finish();
      done = true;
      return [{ type: 'error', error: new GatewayError('bad_gateway', 'The upstream stream ended before it finished.') }];
    },
  };
}
