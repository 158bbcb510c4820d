/**
 * IR events -> Anthropic SSE (client side). Every frame has its `event:` line (the SDK drops frames
 * without one). Anthropic blocks are strictly sequential, while some upstreams interleave (e.g.
 * OpenAI parallel tool calls stay open together): a block that starts while another is open waits,
 * with its deltas, until the open one ends, so indexes stay contiguous and blocks never overlap.
 */
import type { GatewayError } from '../../../core/errors.js';
import { mergeUsage, type IRStreamEvent, type IRUsage } from '../../../ir/types.js';
import type { ResponseMeta, StreamEncoder } from '../../types.js';
import { anthropicErrorFrame } from '../errors.js';
import { anthropicMessageId } from './encode-response.js';
import { toAnthropicStopReason } from './map-finish-reason.js';
import { toAnthropicUsage } from './usage.js';

interface Block {
  start: Record<string, unknown>;
  /** Deltas held while another block is current, as their JSON text. */
  deltas: string[];
  ended: boolean;
  /** Its Anthropic index once live (-1 while it waits). */
  index: number;
}

/**
 * One frame: `type` first, then `members` (the JSON text of the other fields). Frames are written
 * by template, so per token only the delta's own value is stringified.
 */
function frame(type: string, members = ''): string {
  return `event: ${type}\ndata: {"type":"${type}"${members && ','}${members}}\n\n`;
}

const deltaFrame = (index: number, deltaJson: string): string => frame('content_block_delta', `"index":${index},"delta":${deltaJson}`);
const stopFrame = (index: number): string => frame('content_block_stop', `"index":${index}`);
const MESSAGE_STOP = frame('message_stop');
const textDelta = (text: string): string => `{"type":"text_delta","text":${JSON.stringify(text)}}`;
const thinkingDelta = (thinking: string): string => `{"type":"thinking_delta","thinking":${JSON.stringify(thinking)}}`;

export function createAnthropicStreamEncoder(meta: ResponseMeta): StreamEncoder {
  let id = meta.newId('msg_');
  let model = meta.upstreamModel;
  let usage: IRUsage = {};
  let started = false;
  let finished = false;
  let nextIndex = 0;
  let current: Block | undefined;
  const pending: Block[] = [];
  const open = new Map<string, Block>();

  const messageStart = (): string => {
    if (started) return '';
    started = true;
    const u = toAnthropicUsage(usage);
    const message = { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { ...u, output_tokens: usage.outputTokens ?? 0 } };
    return frame('message_start', `"message":${JSON.stringify(message)}`);
  };

  /** Writes a block's start and buffered deltas; it stays current unless it already ended. */
  const goLive = (b: Block): string => {
    const index = nextIndex++;
    b.index = index;
    let out = frame('content_block_start', `"index":${index},"content_block":${JSON.stringify(b.start)}`);
    for (const d of b.deltas) out += deltaFrame(index, d);
    b.deltas = [];
    if (b.ended) out += stopFrame(index);
    else current = b;
    return out;
  };

  const promote = (): string => {
    let out = '';
    while (!current && pending.length) out += goLive(pending.shift() as Block);
    return out;
  };

  const startBlock = (key: string, start: Record<string, unknown>): string => {
    const b: Block = { start, deltas: [], ended: false, index: -1 };
    open.set(key, b);
    if (current) {
      pending.push(b);
      return messageStart();
    }
    return messageStart() + goLive(b);
  };

  const delta = (key: string, d: string, implicitStart?: Record<string, unknown>): string => {
    let out = '';
    let b = open.get(key);
    if (!b) {
      if (!implicitStart) return '';
      out += startBlock(key, implicitStart);
      b = open.get(key) as Block;
    }
    if (b === current) return out + deltaFrame(b.index, d);
    b.deltas.push(d);
    return out;
  };

  const endBlock = (key: string): string => {
    const b = open.get(key);
    if (!b) return '';
    open.delete(key);
    b.ended = true;
    if (b !== current) return '';
    current = undefined;
    return stopFrame(b.index) + promote();
  };

  const closeAll = (): string => {
    let out = '';
    for (const b of open.values()) b.ended = true;
    open.clear();
    if (current) {
      out += stopFrame(current.index);
      current = undefined;
    }
    return out + promote();
  };

  return {
    encode(ev: IRStreamEvent): string {
      if (finished) return '';
      switch (ev.type) {
        case 'message-start':
          if (!started) {
            if (ev.id) id = anthropicMessageId(ev.id, meta);
            if (ev.model) model = ev.model;
            usage = mergeUsage(usage, ev.usage);
          }
          return messageStart();
        case 'text-start':
          return startBlock(`text:${ev.id}`, { type: 'text', text: '' });
        case 'text-delta':
          return ev.delta ? delta(`text:${ev.id}`, textDelta(ev.delta), { type: 'text', text: '' }) : '';
        case 'text-end':
          return endBlock(`text:${ev.id}`);
        case 'reasoning-start':
          return startBlock(`reasoning:${ev.id}`, { type: 'thinking', thinking: '', signature: '' });
        case 'reasoning-delta':
          return ev.delta ? delta(`reasoning:${ev.id}`, thinkingDelta(ev.delta), { type: 'thinking', thinking: '', signature: '' }) : '';
        case 'reasoning-signature':
          return delta(`reasoning:${ev.id}`, JSON.stringify({ type: 'signature_delta', signature: ev.signature }));
        case 'reasoning-end':
          return endBlock(`reasoning:${ev.id}`);
        case 'tool-call-start':
          return startBlock(`tool:${ev.index}`, { type: 'tool_use', id: ev.id, name: ev.name, input: {} });
        case 'tool-call-delta':
          return ev.delta ? delta(`tool:${ev.index}`, `{"type":"input_json_delta","partial_json":${JSON.stringify(ev.delta)}}`) : '';
        case 'tool-call-end':
          return endBlock(`tool:${ev.index}`);
        case 'web-search-start':
        case 'web-search-end':
        case 'text-citation':
          // Only a Responses client asks for web_search through the IR; an Anthropic client's
          // search goes to Anthropic as it is.
          return '';
        case 'usage':
          usage = mergeUsage(usage, ev.usage);
          return '';
        case 'finish': {
          finished = true;
          usage = mergeUsage(usage, ev.usage);
          const stopReason = toAnthropicStopReason(ev.finishReason);
          const u = toAnthropicUsage(usage);
          const deltaUsage: Record<string, number> = { output_tokens: u.output_tokens as number };
          if (usage.inputTokens !== undefined) {
            deltaUsage.input_tokens = u.input_tokens as number;
            deltaUsage.cache_creation_input_tokens = u.cache_creation_input_tokens as number;
            deltaUsage.cache_read_input_tokens = u.cache_read_input_tokens as number;
          }
          const stop = { stop_reason: stopReason, stop_sequence: stopReason === 'stop_sequence' ? (ev.finishReason.stopSequence ?? null) : null };
          return (
            messageStart() +
            closeAll() +
            frame('message_delta', `"delta":${JSON.stringify(stop)},"usage":${JSON.stringify(deltaUsage)}`) +
            MESSAGE_STOP
          );
        }
        case 'error':
          return this.error(ev.error);
      }
    },
    end(): string {
      return '';
    },
    error(err: GatewayError): string {
      finished = true;
      return anthropicErrorFrame(err, meta.traceId);
    },
  };
}
