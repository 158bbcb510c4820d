/**
 * IR events -> the Interactions event stream: `interaction.created`, then per step `step.start`
 * (the step's empty initial state) -> `step.delta`s (`text`, `thought_summary`,
 * `thought_signature`, `arguments_delta`) -> `step.stop`, then `interaction.completed` with the
 * final status and usage (or `error`), and `event: done` / `data: [DONE]`. Every event has an
 * `event:` line, its `event_type` and an `event_id` (its position), the resume token of
 * `GET …?stream=true&last_event_id=`. Steps never interleave: one that starts while another is
 * open (OpenAI's parallel tool calls stream side by side) waits, with what it received, until the
 * open one stops. An empty text or thought makes no step at all.
 */
import type { GatewayError } from '../../../core/errors.js';
import { mergeUsage, type IRStreamEvent, type IRUsage } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import type { InteractionStatus, Json } from '../gemini-interactions-api.js';
import { interactionsError } from '../errors.js';
import { thoughtSignature, thoughtStep } from './ir-steps.js';
import { argumentsObject } from '../../shared/tool-arguments.js';
import { answeredBy, buildInteraction, interactionsOptions, lifecycleOf, statusOfFinish, toInteractionsUsage } from './interaction-object.js';

export const DONE_FRAME = 'event: done\ndata: [DONE]\n\n';

interface Slot {
  kind: 'text' | 'thought' | 'call';
  /** Text, thought text or call arguments received so far. */
  text: string;
  signature?: string;
  callId?: string;
  name?: string;
  ended: boolean;
  /** Position in `steps` once announced; -1 before. */
  index: number;
}

export function createInteractionsStreamEncoder(meta: ResponseMeta): StreamEncoder {
  const requested = interactionsOptions(meta);
  // Named by the model the upstream reports in its first event (the concrete version), not the caller's alias.
  let opts = answeredBy(requested, meta.upstreamModel);
  let seq = 0;
  let usage: IRUsage = {};
  let started = false;
  let finished = false;
  const steps: Json[] = [];
  const open = new Map<string, Slot>();
  const queue: Slot[] = [];
  let current: Slot | undefined;

  const emit = (type: string, payload: Json): string => {
    const data = JSON.stringify({ ...payload, event_type: type, event_id: String(seq++) });
    opts.sink.onEvent?.(type, data);
    return `event: ${type}\ndata: ${data}\n\n`;
  };

  const start = (): string => {
    if (started) return '';
    started = true;
    return emit('interaction.created', { interaction: lifecycleOf(opts, 'in_progress', opts.now()) });
  };

  /** What of a slot's text the client sees (a hidden thought summary keeps its text for the signature only). */
  const visible = (s: Slot): string => (s.kind === 'thought' && opts.hideThoughtSummaries ? '' : s.text);

  const deltaOf = (s: Slot, d: string): Json => {
    if (s.kind === 'text') return { type: 'text', text: d };
    if (s.kind === 'thought') return { type: 'thought_summary', content: { type: 'text', text: d } };
    return { type: 'arguments_delta', arguments: d };
  };

  const announce = (s: Slot): string => {
    s.index = steps.length;
    const initial: Json =
      s.kind === 'text' ? { type: 'model_output', content: [] } : s.kind === 'thought' ? { type: 'thought', summary: [] } : { type: 'function_call', id: s.callId, name: s.name, arguments: {} };
    steps.push(initial);
    let out = emit('step.start', { index: s.index, step: initial });
    if (visible(s)) out += emit('step.delta', { index: s.index, delta: deltaOf(s, s.text) });
    return out;
  };

  const finish = (s: Slot): string => {
    const signature = s.kind === 'thought' ? thoughtSignature({ type: 'reasoning', text: s.text, ...(s.signature ? { signature: s.signature } : {}) }, opts.origin) : undefined;
    if (s.index < 0 && s.kind !== 'call' && !visible(s) && !signature) return '';
    let out = s.index < 0 ? announce(s) : '';
    if (signature) out += emit('step.delta', { index: s.index, delta: { type: 'thought_signature', signature } });
    if (s.kind === 'text') steps[s.index] = { type: 'model_output', content: [{ type: 'text', text: s.text }] };
    else if (s.kind === 'thought') steps[s.index] = thoughtStep(visible(s), signature);
    else steps[s.index] = { type: 'function_call', id: s.callId, name: s.name, arguments: argumentsObject(s.text) };
    return out + emit('step.stop', { index: s.index });
  };

  const pump = (): string => {
    let out = '';
    while (!current && queue.length) {
      const s = queue.shift() as Slot;
      current = s;
      if (s.kind === 'call' || visible(s)) out += announce(s);
      if (s.ended) {
        current = undefined;
        out += finish(s);
      }
    }
    return out;
  };

  const startSlot = (key: string, init: Pick<Slot, 'kind'> & Partial<Slot>): string => {
    const s: Slot = { text: '', ended: false, index: -1, ...init };
    open.set(key, s);
    queue.push(s);
    return pump();
  };

  const delta = (key: string, d: string, implicit?: Slot['kind']): string => {
    let out = '';
    if (!open.has(key)) {
      if (!implicit) return '';
      out += startSlot(key, { kind: implicit });
    }
    const s = open.get(key) as Slot;
    s.text += d;
    if (s !== current || !visible(s)) return out;
    if (s.index < 0) return out + announce(s);
    return out + emit('step.delta', { index: s.index, delta: deltaOf(s, d) });
  };

  const endSlot = (key: string): string => {
    const s = open.get(key);
    if (!s) return '';
    open.delete(key);
    s.ended = true;
    if (s !== current) return '';
    current = undefined;
    return finish(s) + pump();
  };

  const closeAll = (): string => {
    for (const s of open.values()) s.ended = true;
    open.clear();
    let out = '';
    if (current) {
      const s = current;
      current = undefined;
      out += finish(s);
    }
    return out + pump();
  };

  const finalObject = (status: InteractionStatus, extra: { errors?: Array<{ code: string; message: string }> } = {}): Json => {
    const wire = toInteractionsUsage(usage);
    return buildInteraction(
      opts,
      { status, steps: steps.slice(), updatedMs: opts.now(), ...(wire ? { usage: wire } : {}), ...extra, ...(meta.warnings?.length ? { warnings: meta.warnings } : {}) },
      meta.traceId,
    );
  };

  return {
    encode(ev: IRStreamEvent): string {
      if (finished) return '';
      if (ev.type === 'message-start') {
        usage = mergeUsage(usage, ev.usage);
        if (ev.model && !started) opts = answeredBy(requested, ev.model);
        return start();
      }
      if (ev.type === 'error') return this.error(ev.error);
      const head = start();
      switch (ev.type) {
        case 'text-start':
          return head + startSlot(`text:${ev.id}`, { kind: 'text' });
        case 'text-delta':
          return head + (ev.delta ? delta(`text:${ev.id}`, ev.delta, 'text') : '');
        case 'text-end':
          return head + endSlot(`text:${ev.id}`);
        case 'reasoning-start':
          return head + startSlot(`thought:${ev.id}`, { kind: 'thought' });
        case 'reasoning-delta':
          return head + (ev.delta ? delta(`thought:${ev.id}`, ev.delta, 'thought') : '');
        case 'reasoning-signature': {
          const s = open.get(`thought:${ev.id}`);
          if (s) s.signature = ev.signature;
          return head;
        }
        case 'reasoning-end':
          return head + endSlot(`thought:${ev.id}`);
        case 'tool-call-start':
          return head + startSlot(`call:${ev.index}`, { kind: 'call', callId: ev.id, name: ev.name });
        case 'tool-call-delta':
          return head + (ev.delta ? delta(`call:${ev.index}`, ev.delta) : '');
        case 'tool-call-end':
          return head + endSlot(`call:${ev.index}`);
        case 'usage':
          usage = mergeUsage(usage, ev.usage);
          return head;
        case 'finish': {
          finished = true;
          usage = mergeUsage(usage, ev.usage);
          const out = head + closeAll();
          const { status, errors } = statusOfFinish(ev.finishReason, steps.some((s) => s.type === 'function_call'));
          const final = finalObject(status, errors ? { errors } : {});
          opts.sink.final = final;
          const wire = toInteractionsUsage(usage);
          return out + emit('interaction.completed', { interaction: lifecycleOf(opts, status, opts.now(), wire) }) + DONE_FRAME;
        }
      }
      return head;
    },
    end(): string {
      return '';
    },
    error(err: GatewayError): string {
      if (finished) return '';
      finished = true;
      const error = interactionsError(err);
      opts.sink.final = finalObject('failed', { errors: [error] });
      // The interaction exists (and is stored as failed): the client learns its id first.
      return start() + emit('error', { error }) + DONE_FRAME;
    },
  };
}
