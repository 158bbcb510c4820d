import { createParser, type EventSourceParser } from 'eventsource-parser';
import { GatewayError } from '../core/errors.js';

export interface SSEEvent {
  event?: string;
  data: string;
}

const encoder = new TextEncoder();

/** One conservative SSE frame: optional `event:` line, a `data:` line per line of data, blank line. */
export function sseFrame(data: string, event?: string): string {
  const lines = data.includes('\n') ? data.replaceAll('\n', '\ndata: ') : data;
  return event ? `event: ${event}\ndata: ${lines}\n\n` : `data: ${lines}\n\n`;
}

export function encodeText(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Parses an SSE byte stream into events (the pump uses SSEParser directly; tools and tests use this). */
export async function* readSSE(body: ReadableStream<Uint8Array>): AsyncGenerator<SSEEvent> {
  const parser = new SSEParser();
  const reader = body.getReader();
  const decoder = new TextDecoder();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      yield* parser.feed(decoder.decode(value, { stream: true }));
    }
    yield* parser.feed(decoder.decode());
    // A last event without its blank line still counts when its data is whole.
    yield* parser.end();
  } finally {
    reader.cancel().catch(() => {});
  }
}

/** An event's data that the stream did not cut off: anything but JSON that does not parse (`{"id":"x","obje`). */
function isWholeData(data: string): boolean {
  const t = data.trim();
  if (t === '[DONE]' || (t[0] !== '{' && t[0] !== '[')) return true;
  try {
    JSON.parse(data);
    return true;
  } catch {
    return false;
  }
}

const LF = 10;
const CR = 13;
const NONE: SSEEvent[] = [];

/**
 * The most text one event of an upstream stream may hold (64 Mi characters: a Gemini image
 * stream carries an image's base64 in one event, several MB). An event still open past it (a
 * stream that never sends the blank line) ends the stream with a 502, so a hostile or broken
 * upstream cannot grow the gateway's memory without bound.
 */
export const MAX_SSE_EVENT_CHARS = 64 * 1024 * 1024;

function eventTooLarge(): GatewayError {
  return new GatewayError('bad_gateway', `The upstream sent a stream event larger than ${MAX_SSE_EVENT_CHARS / (1024 * 1024)} Mi characters; the stream was cut off.`);
}

/** The index just past the last line end (LF or CR) of `text`, 0 when it has none. */
function afterLastLineEnd(text: string): number {
  return Math.max(text.lastIndexOf('\n'), text.lastIndexOf('\r')) + 1;
}

/**
 * The event-stream parser of the HTML standard, from eventsource-parser, for what the gateway
 * reads: `data` and `event` fields (`id` and `retry` are ignored), comments skipped, lines ended by
 * CRLF, LF or CR (also split across chunks). Text in, the events it completes out.
 */
export class SSEParser {
  #out = NONE;
  /**
   * The line the text so far ended inside, held here until its end arrives: the parser is given
   * whole lines only, so a long line costs its length once (the parser joins what it holds to each
   * chunk and scans it all again: quadratic in a line's length). `#open` counts the characters
   * since an event last completed, for MAX_SSE_EVENT_CHARS.
   */
  #line = '';
  #open = 0;
  readonly #parser: EventSourceParser = createParser({
    onEvent: (m) => {
      if (this.#out === NONE) this.#out = [];
      this.#out.push(m.event ? { event: m.event, data: m.data } : { data: m.data });
    },
  });

  /**
   * At the end of the stream: the event it ended inside, unless its data is JSON cut short (servers
   * that end on `data: [DONE]` without the blank line keep it); a cut-off one (`data: {"id":"x","obje`) is dropped, as an
   * SSE reader drops it, so that the stream's missing end is reported instead of a JSON error.
   */
  end(): SSEEvent[] {
    const last = this.feed('\n\n');
    return last.length ? last.filter((e) => isWholeData(e.data)) : last;
  }

  /** The events completed by `text` (the same empty array when none); throws a 502 for an event past MAX_SSE_EVENT_CHARS. */
  feed(text: string): SSEEvent[] {
    this.#open += text.length;
    const cut = afterLastLineEnd(text);
    if (cut === 0) {
      this.#line += text;
      if (this.#open > MAX_SSE_EVENT_CHARS) throw eventTooLarge();
      return NONE;
    }
    const whole = cut === text.length ? text : text.slice(0, cut);
    this.#parser.feed(this.#line ? this.#line + whole : whole);
    this.#line = cut === text.length ? '' : text.slice(cut);
    const out = this.#out;
    this.#out = NONE;
    if (out !== NONE) this.#open = this.#line.length;
    else if (this.#open > MAX_SSE_EVENT_CHARS) throw eventTooLarge();
    return out;
  }
}

const CR_LINE_ENDS = /\r\n?/g;

// The splitter below is not a parser: pass-through relays forward each event's wire text as it
// came, which eventsource-parser (it hands out parsed messages, not their text) cannot give.

/**
 * Cuts SSE text into whole events as they came (each up to and including the blank line that
 * ends it), holding an unfinished one back for the next chunk: for relays that forward events
 * without re-framing them. CRLF and CR line ends become LF (the same line end to any SSE reader),
 * also when a CRLF is split between chunks.
 */
export class SSEEventSplitter {
  #pending = '';
  /** `#pending` ends with LF (a blank line may start with the next chunk's first character). */
  #heldEndsLF = false;
  #afterCR = false;

  /** The whole events completed by `text`, with what was held back before them ('' when none). */
  feed(text: string): string {
    let t = text;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (t.charCodeAt(0) === LF) t = t.slice(1);
    }
    if (t.includes('\r')) {
      this.#afterCR = t.charCodeAt(t.length - 1) === CR;
      t = t.replace(CR_LINE_ENDS, '\n');
    }
    // Only the new text is searched (and the one place where it joins what was held): a long
    // event costs its length once, not once per chunk.
    // (Whether the held text ends with LF is kept aside: reading its last character would flatten
    // the joined string, a copy of it all, on every chunk.)
    const held = this.#pending;
    const inNew = t.lastIndexOf('\n\n');
    const atJoin = inNew === -1 && this.#heldEndsLF && t.charCodeAt(0) === LF;
    const buf = held ? held + t : t;
    if (inNew === -1 && !atJoin) {
      if (buf.length > MAX_SSE_EVENT_CHARS) throw eventTooLarge();
      this.#pending = buf;
      this.#heldEndsLF = t.length > 0 ? t.charCodeAt(t.length - 1) === LF : this.#heldEndsLF;
      return '';
    }
    const cut = atJoin ? held.length + 1 : held.length + inNew + 2;
    if (cut === buf.length) {
      this.#pending = '';
      this.#heldEndsLF = false;
      return buf;
    }
    this.#pending = buf.slice(cut);
    this.#heldEndsLF = t.charCodeAt(t.length - 1) === LF;
    return buf.slice(0, cut);
  }

  /**
   * What was held back at the end, closed as a whole event, when it is one: it has data and that is
   * not JSON cut short (servers that end on `data: [DONE]` without the blank line). A cut-off event
   * (`data: {"id":"chatcmpl-1","obje` and the connection closed) is dropped, as an SSE reader drops
   * an event the stream ended inside; relayed with a blank line added, it would reach the client as
   * a whole event its JSON parser then fails on, before the gateway's in-band error.
   */
  end(): string {
    const rest = this.#pending;
    this.#pending = '';
    this.#heldEndsLF = false;
    if (!rest.trim() || !isWholeEvent(rest)) return '';
    return rest.endsWith('\n') ? `${rest}\n` : `${rest}\n\n`;
  }
}

/** True when the event text (no blank line) carries data, and that data is whole (see isWholeData). */
function isWholeEvent(text: string): boolean {
  const data: string[] = [];
  for (const line of text.split('\n')) {
    if (line === 'data') data.push('');
    else if (line.startsWith('data:')) data.push(line.slice(line.charCodeAt(5) === 32 ? 6 : 5));
  }
  return data.length > 0 && isWholeData(data.join('\n'));
}

/**
 * Whether an event's JSON data was cut short, judged by its ends only (no parse, for the relay's
 * hot path): data that starts as a JSON object or array must end as one. Plain text, `[DONE]`
 * and empty data pass.
 */
export function isCutJson(data: string): boolean {
  return cutShort(firstNonBlank(data, 0, data.length), lastNonBlank(data, 0, data.length));
}

/** Data that opens as a JSON object or array (`open`, its first character) and does not close as one (`close`, its last). */
function cutShort(open: number, close: number): boolean {
  return (open === 123 || open === 91) && close !== 125 && close !== 93;
}

const isBlank = (c: number): boolean => c === 32 || c === 9 || c === 13 || c === 10;

/** The first character of text[from, to) that is not blank (space, tab, CR, LF); -1 when none. */
function firstNonBlank(text: string, from: number, to: number): number {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (!isBlank(c)) return c;
  }
  return -1;
}

/** The last character of text[from, to) that is not blank; -1 when none. */
function lastNonBlank(text: string, from: number, to: number): number {
  for (let i = to - 1; i >= from; i--) {
    const c = text.charCodeAt(i);
    if (!isBlank(c)) return c;
  }
  return -1;
}

/**
 * Where the first event of whole-event text (SSEEventSplitter's, LF line ends) whose data is JSON
 * cut short (see isCutJson) starts; -1 when none. One pass over the text with no copies (it runs on
 * every relayed chunk): the first character of an event's first `data` line and the last of its
 * last one are looked at.
 */
export function firstCutJsonEvent(text: string): number {
  let pos = 0;
  while (pos < text.length) {
    const blank = text.indexOf('\n\n', pos);
    const end = blank === -1 ? text.length : blank;
    let open = -1;
    let close = -1;
    for (let line = pos; line < end; ) {
      const next = text.indexOf('\n', line);
      const lineEnd = next === -1 || next > end ? end : next;
      // `data:` (100 97 116 97 58)
      if (text.charCodeAt(line) === 100 && text.startsWith('data:', line)) {
        if (open === -1) open = firstNonBlank(text, line + 5, lineEnd);
        close = lastNonBlank(text, line + 5, lineEnd);
      }
      line = lineEnd + 1;
    }
    if (cutShort(open, close)) return pos;
    pos = blank === -1 ? text.length : blank + 2;
  }
  return -1;
}

/** Calls `each` with every event of whole-event text from SSEEventSplitter, as it came, until it returns false. */
export function forEachRawEvent(text: string, each: (raw: string) => boolean | void): void {
  let pos = 0;
  while (pos < text.length) {
    const blank = text.indexOf('\n\n', pos);
    const end = blank === -1 ? text.length : blank + 2;
    if (each(text.slice(pos, end)) === false) return;
    pos = end;
  }
}

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
