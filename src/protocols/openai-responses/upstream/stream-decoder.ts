/**
 * OpenAI Responses stream events -> IR stream events. Every event the decoder reads is validated
 * (responses-wire.ts); a malformed one is an error event. Text, refusals, function-call argument
 * deltas and reasoning summaries stream as they arrive; a reasoning item's encrypted content (only
 * in `output_item.done`) becomes the reasoning signature. Items whose deltas never came (some
 * Responses-compatible servers skip them) are filled in from `output_item.done`. The stream must end
 * with `response.completed` / `response.incomplete`; `response.failed`, an `error` event or a cut
 * stream is an error event.
 */
import { GatewayError } from '../../../core/errors.js';
import type { SSEEvent } from '../../../wire/sse.js';
import type { IRStreamEvent } from '../../../ir/types.js';
import { streamEndedEarly } from '../../shared/stream-blocks.js';
import type { StreamDecoder } from '../../types.js';
import { failureOf, finishOf, fromResponsesUsage, reasoningText } from './map-response.js';
import { toReasoningSignature } from './reasoning-signature.js';
import { isReadEvent, streamEventSchemas, type MessageItemWire, type OutputItemWire, type ReasoningItemWire, type StreamEventType, type StreamEventWire } from './responses-wire.js';
import { NOT_JSON, parseJsonOr } from '../../shared/json.js';

/** What the decoder knows about one output item (keyed by output_index). */
interface ItemState {
  kind: 'message' | 'tool' | 'reasoning' | 'other';
  itemId: string;
  /** IR ids of text blocks by content_index (message items). */
  texts: Map<number, { id: string; open: boolean; streamed: boolean }>;
  /** Tool calls: the IR call id and index; whether argument text was emitted. */
  call?: { id: string; index: number; streamed: boolean };
  /** Reasoning: opened in the IR (only once there is text or a signature), text streamed, parts seen. */
  reasoningOpen: boolean;
  reasoningStreamed: boolean;
  summaryParts: number;
  done: boolean;
}

const malformed = (what: string): GatewayError => new GatewayError('bad_gateway', `The upstream sent a malformed Responses stream event (${what}).`);

export function createResponsesStreamDecoder(): StreamDecoder {
  let started = false;
  let finished = false;
  let toolCount = 0;
  const items = new Map<number, ItemState>();

  const start = (out: IRStreamEvent[], id: string, model: string | undefined): void => {
    if (started) return;
    started = true;
    out.push({ type: 'message-start', id, model: model ?? 'unknown' });
  };

  const stateFor = (outputIndex: number, item: { id?: string; type: string }): ItemState => {
    let st = items.get(outputIndex);
    if (!st) {
      const kind = item.type === 'message' ? 'message' : item.type === 'function_call' ? 'tool' : item.type === 'reasoning' ? 'reasoning' : 'other';
      st = { kind, itemId: item.id ?? `item_${outputIndex}`, texts: new Map(), reasoningOpen: false, reasoningStreamed: false, summaryParts: 0, done: false };
      items.set(outputIndex, st);
    }
    return st;
  };

  const openText = (out: IRStreamEvent[], st: ItemState, contentIndex: number, refusal = false): { id: string; open: boolean; streamed: boolean } => {
    let t = st.texts.get(contentIndex);
    if (!t) {
      t = { id: `${st.itemId}:${contentIndex}`, open: true, streamed: false };
      st.texts.set(contentIndex, t);
      out.push({ type: 'text-start', id: t.id, ...(refusal ? { refusal: true as const } : {}) });
    }
    return t;
  };
  const closeText = (out: IRStreamEvent[], t: { id: string; open: boolean }): void => {
    if (!t.open) return;
    t.open = false;
    out.push({ type: 'text-end', id: t.id });
  };
  const openReasoning = (out: IRStreamEvent[], st: ItemState): void => {
    if (st.reasoningOpen) return;
    st.reasoningOpen = true;
    out.push({ type: 'reasoning-start', id: st.itemId });
  };

  const openCall = (out: IRStreamEvent[], st: ItemState, item: { call_id: string; name: string }): NonNullable<ItemState['call']> => {
    if (!st.call) {
      st.call = { id: item.call_id, index: toolCount++, streamed: false };
      out.push({ type: 'tool-call-start', id: st.call.id, index: st.call.index, name: item.name });
    }
    return st.call;
  };

  /** output_item.done: fill in what never streamed, then close the item. */
  const finishItem = (out: IRStreamEvent[], outputIndex: number, item: OutputItemWire): void => {
    const st = stateFor(outputIndex, item);
    if (st.done) return;
    st.done = true;
    if (item.type === 'message') {
      (item as MessageItemWire).content.forEach((c, ci) => {
        const text = c.type === 'output_text' ? (c as { text: string }).text : c.type === 'refusal' ? (c as { refusal: string }).refusal : undefined;
        const seen = st.texts.get(ci);
        if (text && !seen?.streamed) {
          const t = openText(out, st, ci, c.type === 'refusal');
          out.push({ type: 'text-delta', id: t.id, delta: text });
          t.streamed = true;
        }
      });
      for (const t of st.texts.values()) closeText(out, t);
    } else if (item.type === 'function_call') {
      const fc = item as { call_id: string; name: string; arguments: string };
      const call = openCall(out, st, fc);
      if (!call.streamed && fc.arguments) out.push({ type: 'tool-call-delta', id: call.id, index: call.index, delta: fc.arguments });
      out.push({ type: 'tool-call-end', id: call.id, index: call.index });
    } else if (item.type === 'reasoning') {
      const rs = item as ReasoningItemWire;
      const text = reasoningText(rs);
      if (text && !st.reasoningStreamed) {
        openReasoning(out, st);
        out.push({ type: 'reasoning-delta', id: st.itemId, delta: text });
      }
      if (rs.encrypted_content) {
        openReasoning(out, st);
        out.push({ type: 'reasoning-signature', id: st.itemId, signature: toReasoningSignature(rs.id, rs.encrypted_content) });
      }
      if (st.reasoningOpen) out.push({ type: 'reasoning-end', id: st.itemId });
    }
  };

  /** Closes whatever a terminal event finds still open (a stream that skipped item.done events). */
  const closeAll = (out: IRStreamEvent[]): void => {
    for (const st of items.values()) {
      if (st.done) continue;
      st.done = true;
      for (const t of st.texts.values()) closeText(out, t);
      if (st.call) out.push({ type: 'tool-call-end', id: st.call.id, index: st.call.index });
      if (st.reasoningOpen) out.push({ type: 'reasoning-end', id: st.itemId });
    }
  };

  function handle<T extends StreamEventType>(type: T, ev: StreamEventWire<T>, out: IRStreamEvent[]): void {
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
      case 'response.queued': {
        const r = (ev as StreamEventWire<'response.created'>).response;
        start(out, r.id, r.model);
        return;
      }
      case 'response.output_item.added': {
        const e = ev as StreamEventWire<'response.output_item.added'>;
        const st = stateFor(e.output_index, e.item);
        if (e.item.type === 'function_call') openCall(out, st, e.item as { call_id: string; name: string });
        return;
      }
      case 'response.output_item.done': {
        const e = ev as StreamEventWire<'response.output_item.done'>;
        finishItem(out, e.output_index, e.item);
        return;
      }
      case 'response.content_part.added': {
        const e = ev as StreamEventWire<'response.content_part.added'>;
        const st = stateFor(e.output_index, { id: e.item_id, type: 'message' });
        if (st.kind === 'message' && (e.part.type === 'output_text' || e.part.type === 'refusal')) openText(out, st, e.content_index, e.part.type === 'refusal');
        return;
      }
      case 'response.content_part.done': {
        const e = ev as StreamEventWire<'response.content_part.done'>;
        const t = items.get(e.output_index)?.texts.get(e.content_index);
        // A part whose text never streamed is filled in by output_item.done.
        if (t?.streamed) closeText(out, t);
        return;
      }
      case 'response.output_text.delta':
      case 'response.refusal.delta': {
        const e = ev as StreamEventWire<'response.output_text.delta'>;
        const st = stateFor(e.output_index, { id: e.item_id, type: 'message' });
        const t = openText(out, st, e.content_index, type === 'response.refusal.delta');
        if (e.delta) {
          t.streamed = true;
          out.push({ type: 'text-delta', id: t.id, delta: e.delta });
        }
        return;
      }
      case 'response.function_call_arguments.delta':
      case 'response.function_call_arguments.done': {
        const e = ev as StreamEventWire<'response.function_call_arguments.delta'> & { arguments?: string };
        const call = items.get(e.output_index)?.call;
        if (!call) throw malformed(`${type} for an item that was never announced`);
        const text = type === 'response.function_call_arguments.delta' ? e.delta : call.streamed ? '' : (e.arguments ?? '');
        if (text) {
          call.streamed = true;
          out.push({ type: 'tool-call-delta', id: call.id, index: call.index, delta: text });
        }
        return;
      }
      case 'response.reasoning_summary_part.added': {
        const e = ev as StreamEventWire<'response.reasoning_summary_part.added'>;
        const st = stateFor(e.output_index, { id: e.item_id, type: 'reasoning' });
        // Summary parts read as paragraphs of one thought.
        if (st.summaryParts++ > 0 && st.reasoningStreamed) out.push({ type: 'reasoning-delta', id: st.itemId, delta: '\n\n' });
        return;
      }
      case 'response.reasoning_summary_text.delta':
      case 'response.reasoning_text.delta': {
        const e = ev as StreamEventWire<'response.reasoning_text.delta'>;
        const st = stateFor(e.output_index, { id: e.item_id, type: 'reasoning' });
        if (!e.delta) return;
        openReasoning(out, st);
        st.reasoningStreamed = true;
        out.push({ type: 'reasoning-delta', id: st.itemId, delta: e.delta });
        return;
      }
      case 'response.completed':
      case 'response.incomplete':
      case 'response.failed': {
        const r = (ev as StreamEventWire<'response.completed'>).response;
        start(out, r.id, r.model);
        finished = true;
        if (type === 'response.failed') {
          out.push({ type: 'error', error: failureOf({ ...r, status: 'failed' }) });
          return;
        }
        // Upstreams that skip item events still put the items in the final object.
        r.output.forEach((item, i) => finishItem(out, i, item));
        closeAll(out);
        const status = r.status ?? (type === 'response.incomplete' ? 'incomplete' : 'completed');
        out.push({ type: 'finish', finishReason: finishOf({ ...r, status }, toolCount > 0), usage: fromResponsesUsage(r.usage) });
        return;
      }
      case 'error': {
        const e = ev as StreamEventWire<'error'>;
        finished = true;
        out.push({ type: 'error', error: new GatewayError('upstream_error', `The upstream reported an error mid-stream: ${e.message}${e.code ? ` (${e.code})` : ''}`) });
        return;
      }
    }
  }

  return {
    event(ev: SSEEvent): IRStreamEvent[] {
      if (finished || ev.data === '[DONE]') return [];
      const json = parseJsonOr(ev.data);
      if (json === NOT_JSON) {
        finished = true;
        return [{ type: 'error', error: malformed('not JSON') }];
      }
      const type = (json as { type?: unknown } | null)?.type ?? ev.event;
      if (typeof type !== 'string' || !isReadEvent(type)) return [];
      const parsed = streamEventSchemas[type].safeParse(json);
      const out: IRStreamEvent[] = [];
      try {
        if (!parsed.success) throw malformed(type);
        // Compatible servers that skip response.created still give the IR a message start first.
        if (type !== 'error' && !('response' in parsed.data)) start(out, 'resp_upstream', undefined);
        handle(type, parsed.data as StreamEventWire<typeof type>, out);
      } catch (err) {
        finished = true;
        out.push({ type: 'error', error: err instanceof GatewayError ? err : malformed(type) });
      }
      return out;
    },
    end(): IRStreamEvent[] {
      if (finished) return [];
      finished = true;
      return [{ type: 'error', error: streamEndedEarly('response.completed') }];
    },
  };
}
