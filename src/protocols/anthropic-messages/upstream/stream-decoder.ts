/**
 * Anthropic SSE -> IR events (upstream side). Block indexes are Anthropic's; tool-call indexes in
 * the IR count tool calls only. Usage comes from message_start and is overwritten by any non-null
 * value in message_delta (cumulative, never added).
 */
import { GatewayError } from '../../../errors.js';
import type { SSEEvent } from '../../../http/sse.js';
import type { IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import type { StreamDecoder } from '../../types.js';
import type { AnthropicUsage } from '../anthropic-messages-api.js';
import { errorFromAnthropicEvent } from '../errors.js';
import { fromAnthropicStopReason } from './map-finish-reason.js';
import { fromAnthropicUsage } from './usage.js';

interface EventWire {
  type?: string;
  index?: number;
  message?: { id?: string; model?: string; usage?: AnthropicUsage | null };
  content_block?: { type?: string; id?: string; name?: string; text?: string; thinking?: string; signature?: string };
  delta?: { type?: string; text?: string; thinking?: string; signature?: string; partial_json?: string; stop_reason?: string | null; stop_sequence?: string | null };
  usage?: AnthropicUsage | null;
}

type OpenBlock = { kind: 'text' | 'reasoning'; id: string } | { kind: 'tool'; id: string; index: number } | { kind: 'ignored' };

export function createAnthropicStreamDecoder(): StreamDecoder {
  let wireUsage: AnthropicUsage = {};
  let finishReason: IRFinishReason | undefined;
  let toolCount = 0;
  let done = false;
  const blocks = new Map<number, OpenBlock>();

  const usage = (): IRUsage => fromAnthropicUsage(wireUsage);
  const mergeWire = (u: AnthropicUsage | null | undefined): void => {
    if (!u) return;
    const next: Record<string, unknown> = { ...wireUsage };
    for (const [k, v] of Object.entries(u)) if (v !== null && v !== undefined) next[k] = v;
    wireUsage = next as AnthropicUsage;
  };

  const closeAll = (out: IRStreamEvent[]): void => {
    for (const b of blocks.values()) {
      if (b.kind === 'text') out.push({ type: 'text-end', id: b.id });
      else if (b.kind === 'reasoning') out.push({ type: 'reasoning-end', id: b.id });
      else if (b.kind === 'tool') out.push({ type: 'tool-call-end', id: b.id, index: b.index });
    }
    blocks.clear();
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done) return [];
      let data: EventWire;
      try {
        data = JSON.parse(ev.data) as EventWire;
      } catch {
        return [];
      }
      const type = ev.event ?? data.type;
      const out: IRStreamEvent[] = [];
      switch (type) {
        case 'message_start': {
          mergeWire(data.message?.usage);
          out.push({ type: 'message-start', id: data.message?.id ?? 'msg_upstream', model: data.message?.model ?? 'unknown', usage: usage() });
          break;
        }
        case 'content_block_start': {
          const index = data.index ?? blocks.size;
          const cb = data.content_block ?? {};
          if (cb.type === 'text') {
            const id = `t${index}`;
            blocks.set(index, { kind: 'text', id });
            out.push({ type: 'text-start', id });
            if (cb.text) out.push({ type: 'text-delta', id, delta: cb.text });
          } else if (cb.type === 'thinking') {
            const id = `r${index}`;
            blocks.set(index, { kind: 'reasoning', id });
            out.push({ type: 'reasoning-start', id });
            if (cb.thinking) out.push({ type: 'reasoning-delta', id, delta: cb.thinking });
          } else if (cb.type === 'tool_use') {
            const b = { kind: 'tool' as const, id: cb.id ?? `toolu_${toolCount}`, index: toolCount++ };
            blocks.set(index, b);
            out.push({ type: 'tool-call-start', id: b.id, index: b.index, name: cb.name ?? '' });
          } else blocks.set(index, { kind: 'ignored' });
          break;
        }
        case 'content_block_delta': {
          const b = blocks.get(data.index ?? -1);
          const d = data.delta ?? {};
          if (!b || b.kind === 'ignored') break;
          if (b.kind === 'text' && d.type === 'text_delta' && d.text) out.push({ type: 'text-delta', id: b.id, delta: d.text });
          else if (b.kind === 'reasoning' && d.type === 'thinking_delta' && d.thinking) out.push({ type: 'reasoning-delta', id: b.id, delta: d.thinking });
          else if (b.kind === 'reasoning' && d.type === 'signature_delta' && d.signature) out.push({ type: 'reasoning-signature', id: b.id, signature: d.signature });
          else if (b.kind === 'tool' && d.type === 'input_json_delta' && d.partial_json) out.push({ type: 'tool-call-delta', id: b.id, index: b.index, delta: d.partial_json });
          break;
        }
        case 'content_block_stop': {
          const index = data.index ?? -1;
          const b = blocks.get(index);
          blocks.delete(index);
          if (b?.kind === 'text') out.push({ type: 'text-end', id: b.id });
          else if (b?.kind === 'reasoning') out.push({ type: 'reasoning-end', id: b.id });
          else if (b?.kind === 'tool') out.push({ type: 'tool-call-end', id: b.id, index: b.index });
          break;
        }
        case 'message_delta':
          mergeWire(data.usage);
          if (data.delta?.stop_reason !== undefined) finishReason = fromAnthropicStopReason(data.delta.stop_reason, data.delta.stop_sequence);
          out.push({ type: 'usage', usage: usage() });
          break;
        case 'message_stop':
          done = true;
          closeAll(out);
          out.push({ type: 'finish', finishReason: finishReason ?? { unified: 'stop' }, usage: usage() });
          break;
        case 'error':
          done = true;
          out.push({ type: 'error', error: errorFromAnthropicEvent(data) });
          break;
        default:
          break; // ping and event types added later
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      done = true;
      return [{ type: 'error', error: new GatewayError('bad_gateway', 'The upstream stream ended before message_stop.') }];
    },
  };
}
