/**
 * IR events -> the Responses event stream: `response.created`, `response.in_progress`, then per
 * output item `output_item.added` -> (content/summary part added) -> deltas -> done events ->
 * `output_item.done`, then `response.completed` / `response.incomplete` (or `response.failed` /
 * `error`). Every event has an `event:` line, a `type` and a strictly increasing `sequence_number`.
 * Items never interleave: one that starts while another is open (OpenAI's parallel tool calls
 * stream side by side) waits, with what it received, until the open one is done. Text blocks that
 * follow each other (Anthropic splits a cited answer into blocks) are one message, as in the
 * non-streamed response; their citations become `url_citation` annotations. A vendor's web search
 * is a `web_search_call` item (`in_progress` -> `searching` -> `completed`), before the message that
 * cites it: from an upstream that tells of its search only after the text (`holdTextForSearch`), the
 * message and what follows it are held back until the search is known or the answer ends.
 */
import type { GatewayError } from '../../../core/errors.js';
import { mergeUsage, type IRStreamEvent, type IRUsage, type IRWebSearchPart } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import type { ClientToolRef } from './decode-tools.js';
import { itemPrefix, messageItem, outputText, reasoningItem, toolCallItem, tokenFor, urlCitation, webSearchItem } from './output-items.js';
import { buildResponseObject, responsesOptions, statusOfFinish, type Json, type ResponseState } from './response-object.js';
import { responseErrorCode as streamErrorCode } from '../errors.js';

interface Slot {
  kind: 'message' | 'reasoning' | 'call' | 'search';
  itemId: string;
  /** Text, reasoning text or call arguments received so far. */
  text: string;
  signature?: string;
  ref?: ClientToolRef;
  callId?: string;
  live: boolean;
  ended: boolean;
  outputIndex: number;
  /** A reasoning item's summary part was announced. */
  partOpen: boolean;
  /** A message's url citations (announced as they arrive once the item is live). */
  annotations: Json[];
  /** A search item's outcome. */
  search?: IRWebSearchPart;
  /** Its done events were sent. */
  closed?: boolean;
}

export function createResponsesStreamEncoder(meta: ResponseMeta): StreamEncoder {
  const opts = responsesOptions(meta);
  // A background run's `response.created` (status queued) was recorded when it was queued.
  let seq = opts.background ? 1 : 0;
  let model = meta.upstreamModel;
  let usage: IRUsage = {};
  let started = false;
  let finished = false;
  const output: Json[] = [];
  const open = new Map<string, Slot>();
  const queue: Slot[] = [];
  let current: Slot | undefined;
  /** The message whose text block ended: the next text block continues it, anything else closes it. */
  let lingering: Slot | undefined;
  /** Text block key -> its message and where the block begins in the message's text (for citations). */
  const textBlocks = new Map<string, { slot: Slot; start: number }>();
  /** Waiting to learn of a search that may have come before the text: a message and what follows it wait here. */
  let holding = opts.holdTextForSearch === true;
  const held: Slot[] = [];

  const emit = (type: string, payload: Json): string => {
    const data = JSON.stringify({ type, sequence_number: seq++, ...payload });
    opts.sink.onEvent?.(type, data);
    return `event: ${type}\ndata: ${data}\n\n`;
  };
  const snapshot = (state: Omit<ResponseState, 'model'>): Json =>
    buildResponseObject(opts, { ...state, model, ...(meta.warnings?.length ? { warnings: meta.warnings } : {}) }, meta.traceId);

  const start = (): string => {
    if (started) return '';
    started = true;
    const created = opts.background ? '' : emit('response.created', { response: snapshot({ status: 'in_progress', output: [] }) });
    return created + emit('response.in_progress', { response: snapshot({ status: 'in_progress', output: [] }) });
  };

  const where = (s: Slot): Json => ({ item_id: s.itemId, output_index: s.outputIndex });

  const liveDelta = (s: Slot, d: string): string => {
    if (s.kind === 'message') return emit('response.output_text.delta', { ...where(s), content_index: 0, delta: d, logprobs: [] });
    if (s.kind === 'reasoning') {
      let out = '';
      if (!s.partOpen) {
        s.partOpen = true;
        out += emit('response.reasoning_summary_part.added', { ...where(s), summary_index: 0, part: { type: 'summary_text', text: '' } });
      }
      return out + emit('response.reasoning_summary_text.delta', { ...where(s), summary_index: 0, delta: d });
    }
    // A custom tool's input is the `input` field of the JSON arguments: it is sent whole at the end.
    // A tool search's arguments are a JSON value: the item carries them whole when it is done.
    return s.ref?.kind === 'custom' || s.ref?.kind === 'tool_search' ? '' : emit('response.function_call_arguments.delta', { ...where(s), delta: d });
  };

  const annotationAdded = (s: Slot, index: number): string =>
    emit('response.output_text.annotation.added', { ...where(s), content_index: 0, annotation_index: index, annotation: s.annotations[index] });

  const close = (s: Slot): string => {
    s.closed = true;
    let out = '';
    let item: Json;
    if (s.kind === 'message') {
      item = messageItem(s.itemId, 'completed', s.text, s.annotations);
      out += emit('response.output_text.done', { ...where(s), content_index: 0, text: s.text, logprobs: [] });
      out += emit('response.content_part.done', { ...where(s), content_index: 0, part: outputText(s.text, s.annotations) });
    } else if (s.kind === 'search') {
      const status = s.search?.status ?? 'failed';
      item = webSearchItem(s.itemId, status, s.search, opts.webSearchSources === true);
      if (status === 'completed') out += emit('response.web_search_call.completed', where(s));
    } else if (s.kind === 'reasoning') {
      if (s.partOpen) {
        out += emit('response.reasoning_summary_text.done', { ...where(s), summary_index: 0, text: s.text });
        out += emit('response.reasoning_summary_part.done', { ...where(s), summary_index: 0, part: { type: 'summary_text', text: s.text } });
      }
      item = reasoningItem(s.itemId, s.text, tokenFor(s.text, s.signature, undefined, opts.origin));
    } else {
      const ref = s.ref as ClientToolRef;
      const args = s.text || '{}';
      item = toolCallItem(s.itemId, 'completed', ref, s.callId as string, args);
      if (ref.kind === 'custom') {
        out += emit('response.custom_tool_call_input.delta', { ...where(s), delta: item.input });
        out += emit('response.custom_tool_call_input.done', { ...where(s), input: item.input });
      } else if (ref.kind === 'function') out += emit('response.function_call_arguments.done', { ...where(s), name: ref.name, arguments: args });
    }
    output[s.outputIndex] = item;
    return out + emit('response.output_item.done', { output_index: s.outputIndex, item });
  };

  const goLive = (s: Slot): string => {
    s.live = true;
    s.outputIndex = output.length;
    let item: Json;
    if (s.kind === 'message') item = messageItem(s.itemId, 'in_progress');
    else if (s.kind === 'reasoning') item = reasoningItem(s.itemId, '');
    else if (s.kind === 'search') item = webSearchItem(s.itemId, 'in_progress', undefined, false);
    else item = toolCallItem(s.itemId, 'in_progress', s.ref as ClientToolRef, s.callId as string, '');
    output.push(item);
    let out = emit('response.output_item.added', { output_index: s.outputIndex, item });
    if (s.kind === 'message') out += emit('response.content_part.added', { ...where(s), content_index: 0, part: outputText('') });
    if (s.kind === 'search') out += emit('response.web_search_call.in_progress', where(s)) + emit('response.web_search_call.searching', where(s));
    if (s.text) out += liveDelta(s, s.text);
    s.annotations.forEach((_, i) => (out += annotationAdded(s, i)));
    if (s.ended) return out + close(s);
    current = s;
    return out;
  };

  const promote = (): string => {
    let out = '';
    while (!current && queue.length) out += goLive(queue.shift() as Slot);
    return out;
  };

  /** Stops holding: `first` (the search) goes ahead of what was held back. */
  const release = (first?: Slot): void => {
    holding = false;
    if (first) queue.push(first);
    queue.push(...held.splice(0));
  };

  const startSlot = (key: string, init: Pick<Slot, 'kind'> & Partial<Slot>): string => {
    const prefix = init.kind === 'call' ? itemPrefix(init.ref && init.ref.kind !== 'function' ? init.ref.kind : 'function') : itemPrefix(init.kind);
    const s: Slot = { text: '', live: false, ended: false, outputIndex: -1, partOpen: false, annotations: [], itemId: meta.newId(prefix), ...init };
    open.set(key, s);
    if (s.kind === 'message') textBlocks.set(key, { slot: s, start: 0 });
    if (holding && (held.length || s.kind === 'message')) {
      if (s.kind !== 'search') {
        held.push(s);
        return '';
      }
      release(s);
      return promote();
    }
    if (current) {
      queue.push(s);
      return '';
    }
    return goLive(s);
  };

  const delta = (key: string, d: string, implicit?: Slot['kind']): string => {
    let out = '';
    if (!open.has(key)) {
      if (!implicit) return '';
      out += startSlot(key, { kind: implicit });
    }
    const s = open.get(key) as Slot;
    s.text += d;
    return s.live ? out + liveDelta(s, d) : out;
  };

  const endSlot = (key: string): string => {
    const s = open.get(key);
    if (!s) return '';
    open.delete(key);
    s.ended = true;
    if (s !== current) return '';
    if (s.kind === 'message') {
      lingering = s;
      return '';
    }
    current = undefined;
    return close(s) + promote();
  };

  /** Closes the message a next text block did not continue. */
  const settle = (): string => {
    const s = lingering;
    if (!s) return '';
    lingering = undefined;
    current = undefined;
    return close(s) + promote();
  };

  /** A text block that follows an ended one continues its message. */
  const startText = (key: string): string => {
    const s = lingering;
    if (!s) return startSlot(key, { kind: 'message' });
    lingering = undefined;
    s.ended = false;
    open.set(key, s);
    textBlocks.set(key, { slot: s, start: s.text.length });
    return '';
  };

  const cite = (key: string, citation: Parameters<typeof urlCitation>[0]): string => {
    const block = textBlocks.get(key);
    // A citation for a message already closed cannot be added any more.
    if (!block || block.slot.closed) return '';
    const s = block.slot;
    s.annotations.push(urlCitation(citation, block.start, s.text.length - block.start));
    return s.live ? annotationAdded(s, s.annotations.length - 1) : '';
  };

  const closeAll = (): string => {
    release();
    lingering = undefined;
    for (const s of open.values()) s.ended = true;
    open.clear();
    let out = '';
    if (current) {
      const s = current;
      current = undefined;
      out += close(s);
    }
    return out + promote();
  };

  return {
    encode(ev: IRStreamEvent): string {
      if (finished) return '';
      if (ev.type === 'message-start') {
        if (!started) {
          if (ev.model) model = ev.model;
          usage = mergeUsage(usage, ev.usage);
        }
        return start();
      }
      if (ev.type === 'error') return this.error(ev.error);
      let head = start();
      if (lingering && ev.type !== 'text-start' && ev.type !== 'text-citation' && ev.type !== 'usage' && ev.type !== 'finish') head += settle();
      switch (ev.type) {
        case 'text-start':
          return head + startText(`text:${ev.id}`);
        case 'text-citation':
          return head + cite(`text:${ev.id}`, ev.citation);
        case 'web-search-start':
          return head + startSlot(`search:${ev.id}`, { kind: 'search' });
        case 'web-search-end': {
          const key = `search:${ev.part.id}`;
          const opened = open.has(key) ? '' : startSlot(key, { kind: 'search' });
          const s = open.get(key) as Slot;
          s.search = ev.part;
          return head + opened + endSlot(key);
        }
        case 'text-delta':
          return head + (ev.delta ? delta(`text:${ev.id}`, ev.delta, 'message') : '');
        case 'text-end':
          return head + endSlot(`text:${ev.id}`);
        case 'reasoning-start':
          return head + startSlot(`reasoning:${ev.id}`, { kind: 'reasoning' });
        case 'reasoning-delta':
          return head + (ev.delta ? delta(`reasoning:${ev.id}`, ev.delta, 'reasoning') : '');
        case 'reasoning-signature': {
          const s = open.get(`reasoning:${ev.id}`);
          if (s) s.signature = ev.signature;
          return head;
        }
        case 'reasoning-end':
          return head + endSlot(`reasoning:${ev.id}`);
        case 'tool-call-start':
          return head + startSlot(`tool:${ev.index}`, { kind: 'call', callId: ev.id, ref: opts.names.clientRef(ev.name) });
        case 'tool-call-delta':
          return head + (ev.delta ? delta(`tool:${ev.index}`, ev.delta) : '');
        case 'tool-call-end':
          return head + endSlot(`tool:${ev.index}`);
        case 'usage':
          usage = mergeUsage(usage, ev.usage);
          return head;
        case 'finish': {
          finished = true;
          usage = mergeUsage(usage, ev.usage);
          const out = head + closeAll();
          const { status, incompleteReason } = statusOfFinish(ev.finishReason.unified);
          const final = status === 'incomplete' ? output.map((i) => (i.type === 'message' ? { ...i, status: 'incomplete' } : i)) : output;
          const response = snapshot({ status, output: final, usage, completedAt: Math.floor(opts.now() / 1000), ...(incompleteReason ? { incompleteReason } : {}) });
          opts.sink.final = response;
          return out + emit(status === 'incomplete' ? 'response.incomplete' : 'response.completed', { response });
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
      if (!started) return emit('error', { code: streamErrorCode(err), message: err.message, param: err.param });
      // A message whose text had ended is complete: it is closed before the failure is told.
      release();
      const settled = settle() + promote();
      const response = snapshot({ status: 'failed', output, usage, error: { code: streamErrorCode(err), message: err.message } });
      opts.sink.final = response;
      return settled + emit('response.failed', { response });
    },
  };
}
