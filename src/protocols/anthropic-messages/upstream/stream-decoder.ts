/**
 * Anthropic SSE -> IR events (upstream side). Block indexes are Anthropic's; tool-call indexes in
 * the IR count tool calls only. Usage comes from message_start and is overwritten by any non-null
 * value in message_delta (cumulative, never added).
 */
import { GatewayError } from '../../../errors.js';
import type { SSEEvent } from '../../../http/sse.js';
import type { IRFinishReason, IRStreamEvent, IRUsage } from '../../../ir/types.js';
import type { StreamDecoder } from '../../types.js';
import { streamEventSchema, type AnthropicUsage } from '../anthropic-messages-api.js';
import { createOpenBlocks, streamEndedEarly } from '../../shared/stream-blocks.js';
import { errorFromAnthropicEvent } from '../errors.js';
import { fromAnthropicStopReason } from './map-finish-reason.js';
import { fromAnthropicUsage } from './usage.js';

const malformed = (): GatewayError => new GatewayError('bad_gateway', 'The upstream sent a malformed Anthropic stream event.');

export function createAnthropicStreamDecoder(): StreamDecoder {
  let wireUsage: AnthropicUsage = {};
  let finishReason: IRFinishReason | undefined;
  let toolCount = 0;
  let done = false;
  const blocks = createOpenBlocks<number>();

  const usage = (): IRUsage => fromAnthropicUsage(wireUsage);
  const mergeWire = (u: AnthropicUsage | null | undefined): void => {
    if (!u) return;
    const next: Record<string, unknown> = { ...wireUsage };
    for (const [k, v] of Object.entries(u)) if (v !== null && v !== undefined) next[k] = v;
    wireUsage = next as AnthropicUsage;
  };

  const fail = (error: GatewayError): IRStreamEvent[] => {
    done = true;
    return [{ type: 'error', error }];
  };

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (done) return [];
      let json: unknown;
      try {
        json = JSON.parse(ev.data);
      } catch {
        return fail(malformed());
      }
      const type = ev.event ?? (json as { type?: unknown } | null)?.type;
      if (type === 'error') return fail(errorFromAnthropicEvent(json));
      const parsed = streamEventSchema.safeParse(json);
      if (!parsed.success) return fail(malformed());
      const data = parsed.data;
      const out: IRStreamEvent[] = [];
      switch (type) {
        case 'message_start': {
          mergeWire(data.message?.usage);
          out.push({ type: 'message-start', id: data.message?.id ?? 'msg_upstream', model: data.message?.model ?? 'unknown', usage: usage() });
          break;
        }
        case 'content_block_start': {
          const index = data.index ?? -1;
          const cb = data.content_block;
          if (cb?.type === 'text') {
            const b = blocks.open(out, index, { kind: 'text', id: `t${index}` });
            if (cb.text) out.push({ type: 'text-delta', id: b.id, delta: cb.text });
          } else if (cb?.type === 'thinking') {
            const b = blocks.open(out, index, { kind: 'reasoning', id: `r${index}` });
            if (cb.thinking) out.push({ type: 'reasoning-delta', id: b.id, delta: cb.thinking });
          } else if (cb?.type === 'tool_use') {
            blocks.open(out, index, { kind: 'tool', id: cb.id ?? `toolu_${toolCount}`, index: toolCount++ }, cb.name ?? '');
          }
          break;
        }
        case 'content_block_delta': {
          const b = blocks.get(data.index ?? -1);
          const d = data.delta ?? {};
          if (!b) break;
          if (b.kind === 'text' && d.type === 'text_delta' && d.text) out.push({ type: 'text-delta', id: b.id, delta: d.text });
          else if (b.kind === 'reasoning' && d.type === 'thinking_delta' && d.thinking) out.push({ type: 'reasoning-delta', id: b.id, delta: d.thinking });
          else if (b.kind === 'reasoning' && d.type === 'signature_delta' && d.signature) out.push({ type: 'reasoning-signature', id: b.id, signature: d.signature });
          else if (b.kind === 'tool' && d.type === 'input_json_delta' && d.partial_json) out.push({ type: 'tool-call-delta', id: b.id, index: b.index, delta: d.partial_json });
          break;
        }
        case 'content_block_stop': {
          blocks.close(out, data.index ?? -1);
          break;
        }
        case 'message_delta':
          mergeWire(data.usage);
          if (data.delta?.stop_reason !== undefined) finishReason = fromAnthropicStopReason(data.delta.stop_reason, data.delta.stop_sequence);
          out.push({ type: 'usage', usage: usage() });
          break;
        case 'message_stop':
          done = true;
          blocks.closeAll(out);
          out.push({ type: 'finish', finishReason: finishReason ?? { unified: 'stop' }, usage: usage() });
          break;
        default:
          break; // ping and event types added later
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (done) return [];
      return fail(streamEndedEarly('message_stop'));
    },
  };
}
