/**
 * A chat answer in the cache is an IR response: recorded from the upstream's stream events (or its
 * whole answer) on a miss, and replayed as IR stream events on a hit, so any client protocol gets
 * it in its own shape, streamed or not. Only complete answers are kept: a finish reason of stop,
 * length or tool calls (not a refusal, a filtered or failed answer: Anthropic's `refusal`, Gemini's
 * SAFETY, OpenAI's `content_filter` all arrive as content-filter), no refusal text (OpenAI
 * Responses' `refusal` content; Chat Completions' `message.refusal` leaves no text at all), some
 * answer (text that is not blank, or a tool call: an answer of only reasoning or whitespace is
 * empty) and no media parts.
 */
import type { IRChatResponse, IRContentPart, IRStreamEvent, IRUsage } from '../ir/types.js';

const KEPT_FINISH = new Set(['stop', 'length', 'tool-calls']);
const REPLAYABLE = new Set(['text', 'reasoning', 'tool-call', 'web-search']);

/** Whether an answer may be cached. */
export function cacheableResponse(res: IRChatResponse): boolean {
  if (!KEPT_FINISH.has(res.finishReason.unified)) return false;
  if (!res.content.every((p) => REPLAYABLE.has(p.type) && !(p.type === 'text' && p.refusal))) return false;
  return res.content.some((p) => (p.type === 'text' && p.text.trim() !== '') || p.type === 'tool-call');
}

/** The stream events that tell `res` from start to finish. */
export function responseEvents(res: IRChatResponse): IRStreamEvent[] {
  const out: IRStreamEvent[] = [{ type: 'message-start', id: res.id, model: res.model }];
  let tools = 0;
  res.content.forEach((part, i) => {
    const id = `c${i}`;
    if (part.type === 'text') {
      out.push({ type: 'text-start', id }, { type: 'text-delta', id, delta: part.text });
      for (const citation of part.citations ?? []) out.push({ type: 'text-citation', id, citation });
      out.push({ type: 'text-end', id });
    } else if (part.type === 'reasoning') {
      out.push({ type: 'reasoning-start', id });
      if (part.text) out.push({ type: 'reasoning-delta', id, delta: part.text });
      if (part.signature) out.push({ type: 'reasoning-signature', id, signature: part.signature });
      out.push({ type: 'reasoning-end', id });
    } else if (part.type === 'tool-call') {
      const index = tools++;
      out.push({ type: 'tool-call-start', id: part.id, index, name: part.name }, { type: 'tool-call-delta', id: part.id, index, delta: part.arguments }, { type: 'tool-call-end', id: part.id, index });
    } else if (part.type === 'web-search') {
      out.push({ type: 'web-search-start', id: part.id }, { type: 'web-search-end', part });
    }
  });
  out.push({ type: 'finish', finishReason: res.finishReason, usage: res.usage });
  return out;
}

/** Builds the IR response of a stream from its events, as they pass. */
export class ChatAnswerRecorder {
  private id = '';
  private model = '';
  private readonly content: IRContentPart[] = [];
  private readonly blocks = new Map<string, IRContentPart>();
  private usage: IRUsage = {};
  private finished: IRChatResponse['finishReason'] | undefined;

  constructor(fallbackModel: string) {
    this.model = fallbackModel;
  }

  record(ev: IRStreamEvent): void {
    switch (ev.type) {
      case 'message-start':
        this.id = ev.id;
        this.model = ev.model || this.model;
        if (ev.usage) this.usage = { ...this.usage, ...ev.usage };
        return;
      case 'text-start':
        return this.open(ev.id, { type: 'text', text: '', ...(ev.refusal ? { refusal: true as const } : {}) });
      case 'text-delta': {
        const b = this.blocks.get(ev.id);
        if (b?.type === 'text') b.text += ev.delta;
        return;
      }
      case 'text-citation': {
        const b = this.blocks.get(ev.id);
        if (b?.type === 'text') (b.citations ??= []).push(ev.citation);
        return;
      }
      case 'reasoning-start':
        return this.open(ev.id, { type: 'reasoning', text: '' });
      case 'reasoning-delta': {
        const b = this.blocks.get(ev.id);
        if (b?.type === 'reasoning') b.text += ev.delta;
        return;
      }
      case 'reasoning-signature': {
        const b = this.blocks.get(ev.id);
        if (b?.type === 'reasoning') b.signature = ev.signature;
        return;
      }
      case 'tool-call-start':
        return this.open(`tool:${ev.index}`, { type: 'tool-call', id: ev.id, name: ev.name, arguments: '' });
      case 'tool-call-delta': {
        const b = this.blocks.get(`tool:${ev.index}`);
        if (b?.type === 'tool-call') b.arguments += ev.delta;
        return;
      }
      case 'web-search-end':
        this.content.push(ev.part);
        return;
      case 'usage':
        this.usage = { ...this.usage, ...ev.usage };
        return;
      case 'finish':
        this.usage = { ...this.usage, ...ev.usage };
        this.finished = ev.finishReason;
        return;
      default:
        return;
    }
  }

  private open(key: string, part: IRContentPart): void {
    this.blocks.set(key, part);
    this.content.push(part);
  }

  /** The whole answer, once the stream finished; undefined before its finish event. */
  response(): IRChatResponse | undefined {
    if (!this.finished) return undefined;
    return { id: this.id, model: this.model, content: this.content, finishReason: this.finished, usage: this.usage };
  }
}
