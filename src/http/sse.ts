export interface SSEEvent {
  event?: string;
  data: string;
}

const encoder = new TextEncoder();

/** One conservative SSE frame: optional `event:` line, one `data:` line, blank line. */
export function sseFrame(data: string, event?: string): string {
  return event ? `event: ${event}\ndata: ${data}\n\n` : `data: ${data}\n\n`;
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
    // A last event without its blank line still counts.
    yield* parser.feed(`${decoder.decode()}\n\n`);
  } finally {
    reader.cancel().catch(() => {});
  }
}

const LF = 10;
const COLON = 58;
const SPACE = 32;
const NONE: SSEEvent[] = [];

/**
 * The event-stream parser of the HTML standard (section 9.2.6), for what the gateway reads: `data`
 * and `event` fields (`id` and `retry` are ignored), comments skipped, lines ended by CRLF, LF or
 * CR (also split across chunks). Text in, the events it completes out. A byte-order mark is
 * TextDecoder's to strip.
 */
export class SSEParser {
  #pending = '';
  #afterCR = false;
  #data: string | undefined;
  #event: string | undefined;

  /** The events completed by `text` (the same empty array when none). */
  feed(text: string): SSEEvent[] {
    let out = NONE;
    let pos = 0;
    if (this.#afterCR) {
      this.#afterCR = false;
      if (text.charCodeAt(0) === LF) pos = 1;
    }
    const buf = this.#pending ? this.#pending + text.slice(pos) : text;
    if (this.#pending) pos = 0;
    this.#pending = '';
    const n = buf.length;
    const hasCR = buf.includes('\r');
    while (pos < n) {
      const lf = buf.indexOf('\n', pos);
      let eol = lf;
      let next = lf + 1;
      if (hasCR) {
        const cr = buf.indexOf('\r', pos);
        if (cr !== -1 && (lf === -1 || cr < lf)) {
          eol = cr;
          if (cr + 1 < n) next = buf.charCodeAt(cr + 1) === LF ? cr + 2 : cr + 1;
          else {
            next = n;
            this.#afterCR = true;
          }
        }
      }
      if (eol === -1) break;
      if (eol === pos) {
        // A blank line dispatches the event (if it had any data line).
        if (this.#data !== undefined) {
          if (out === NONE) out = [];
          out.push(this.#event ? { event: this.#event, data: this.#data } : { data: this.#data });
        }
        this.#data = undefined;
        this.#event = undefined;
      } else if (buf.charCodeAt(pos) !== COLON) this.#field(buf, pos, eol);
      pos = next;
    }
    if (pos < n) this.#pending = buf.slice(pos);
    return out;
  }

  #field(buf: string, start: number, end: number): void {
    let colon = buf.indexOf(':', start);
    if (colon === -1 || colon > end) colon = end;
    const name = buf.slice(start, colon);
    let from = colon + 1;
    if (from < end && buf.charCodeAt(from) === SPACE) from++;
    const value = colon === end ? '' : buf.slice(from, end);
    if (name === 'data') this.#data = this.#data === undefined ? value : `${this.#data}\n${value}`;
    else if (name === 'event') this.#event = value;
  }
}

export const SSE_HEADERS: Record<string, string> = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  'x-accel-buffering': 'no',
};
