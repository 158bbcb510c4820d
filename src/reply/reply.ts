/**
 * What an endpoint answers, before it is a Fetch Response. `gateway.handle()` turns it into a
 * Response (`toResponse`); a host bridge that writes to a socket itself (the node bridge) takes it
 * from `gateway.reply()` and writes it directly: a text or byte body in one write, a text stream
 * chunk by chunk with `pipeTextStream`, with no Response and no Web stream in between (on Node,
 * building those costs more than most of a request's own work).
 */

import { ReplyHeaders } from './reply-headers.js';
import { SSE_HEADERS } from '../wire/sse.js';

/** Interval of SSE keep-alive comments while a stream's source is silent (reasoning models can think for minutes). */
export const KEEP_ALIVE_MS = 15_000;
export const KEEP_ALIVE_TEXT = ': keep-alive\n\n';

/** A streamed body made of wire text. Pull-based: the client's pace reaches the source (and the upstream). */
export interface TextStream {
  readonly kind: 'text-stream';
  /** The wire text, chunk by chunk. Whoever reads it returns it (`chunks.return()`) when it stops early. */
  readonly chunks: AsyncGenerator<string>;
  /** The client went away: stops the source at once (aborts the upstream call), even while a chunk is awaited. */
  readonly cancel: () => void;
  /** Send an SSE comment block while the source is silent for KEEP_ALIVE_MS (false for non-SSE bodies). */
  readonly keepAlive: boolean;
}

/**
 * A text stream's `chunks` that can be observed without a wrapper (the stream pump's are):
 * `observeChunks` has `chunk` called as each chunk is handed out and `finish` once the source is
 * over (ended, failed or returned), so an observer adds no promise hop per chunk. It answers false
 * when the source cannot take them (already observed or started).
 */
export interface ObservableChunks extends AsyncGenerator<string> {
  observeChunks(chunk: () => void, finish: () => void): boolean;
}

/** Whether `chunks` can be observed without a wrapper (see ObservableChunks). */
export function isObservableChunks(chunks: AsyncGenerator<string>): chunks is ObservableChunks {
  return typeof (chunks as Partial<ObservableChunks>).observeChunks === 'function';
}

export type ReplyBody = string | Uint8Array | ReadableStream<Uint8Array> | TextStream | null;

export class Reply {
  constructor(
    readonly status: number,
    readonly headers: Headers,
    readonly body: ReplyBody,
  ) {}

  /** An answer that already is a Response (a proxied download): its status, headers and body stream. */
  static of(response: Response): Reply {
    return new Reply(response.status, response.headers, response.body);
  }
}

export function isTextStream(body: ReplyBody): body is TextStream {
  return body !== null && typeof body === 'object' && (body as Partial<TextStream>).kind === 'text-stream';
}

/** Whether a body is sent over time (a text stream or a byte stream) rather than whole. */
export function isStreamed(body: ReplyBody): body is TextStream | ReadableStream<Uint8Array> {
  return isTextStream(body) || body instanceof ReadableStream;
}

/** A streamed reply fed by `chunks`; `cancel` runs when the client leaves. */
export function textStreamReply(chunks: AsyncGenerator<string>, cancel: () => void, headers: Record<string, string> = SSE_HEADERS, keepAlive = true): Reply {
  return new Reply(200, new ReplyHeaders(headers), { kind: 'text-stream', chunks, cancel, keepAlive });
}

/**
 * The same reply with `before` awaited ahead of each chunk of its text stream (with the chunk) and
 * at its end (with undefined); other bodies are returned as they are.
 */
export function beforeEachChunk(reply: Reply, before: (chunk: string | undefined) => Promise<void>): Reply {
  const stream = reply.body;
  if (!isTextStream(stream)) return reply;
  const chunks = (async function* () {
    for await (const chunk of stream.chunks) {
      await before(chunk);
      yield chunk;
    }
    await before(undefined);
  })();
  return new Reply(reply.status, reply.headers, { ...stream, chunks });
}

const encoder = new TextEncoder();
const KEEP_ALIVE_BYTES = encoder.encode(KEEP_ALIVE_TEXT);

/** The Fetch Response of a reply (what `gateway.handle()` returns). */
export function toResponse(reply: Reply): Response {
  const body = reply.body;
  const own = reply.headers instanceof ReplyHeaders;
  // The gateway's own headers are copied in afterwards: a Response takes them faster that way than as its init.
  const init = own ? { status: reply.status } : { status: reply.status, headers: reply.headers };
  const response = isTextStream(body) ? new Response(textStreamBody(body), init) : new Response(body as BodyInit | null, init);
  if (own) {
    const headers = response.headers;
    let last = '';
    // set() first, so a Content-Type replaces the one a text body gave; then append() (Set-Cookie).
    reply.headers.forEach((value, name) => {
      if (name === last) headers.append(name, value);
      else headers.set(name, value);
      last = name;
    });
  }
  return response;
}

/** A text stream as a byte ReadableStream, keep-alive comments included; cancelling it cancels the stream. */
function textStreamBody(stream: TextStream): ReadableStream<Uint8Array> {
  const gen = stream.chunks;
  let lastSent = Date.now();
  let waiting = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  const stop = () => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      if (!stream.keepAlive) return;
      timer = setInterval(() => {
        if (waiting && Date.now() - lastSent >= KEEP_ALIVE_MS) {
          lastSent = Date.now();
          try {
            controller.enqueue(KEEP_ALIVE_BYTES);
          } catch {
            stop();
          }
        }
      }, KEEP_ALIVE_MS / 3);
      (timer as { unref?: () => void }).unref?.();
    },
    async pull(controller) {
      waiting = true;
      try {
        for (;;) {
          const { done, value } = await gen.next();
          if (done) {
            stop();
            controller.close();
            return;
          }
          if (value) {
            lastSent = Date.now();
            controller.enqueue(encoder.encode(value));
            return;
          }
        }
      } catch (err) {
        stop();
        controller.error(err);
      } finally {
        waiting = false;
      }
    },
    async cancel() {
      stop();
      stream.cancel();
      await gen.return(undefined).catch(() => undefined);
    },
  });
}

/** Where `pipeTextStream` writes: a host's socket writer. */
export interface TextSink {
  /** Writes one chunk; false when the host's buffer is full (then `drained` is awaited). */
  write(text: string): boolean;
  /** Resolves once the sink takes more, or once it is closed. */
  drained(): Promise<void>;
  /** True once the client is gone. */
  closed(): boolean;
}

/**
 * Writes a text stream to a host sink with backpressure and keep-alive comments, without a Web
 * stream. Resolves when the stream ended or the sink closed; rejects with the source's error (the
 * protocol's error frame, if any, was already written by the source). The host calls
 * `stream.cancel()` itself when its client leaves (before `closed()` turns true), so a pending read
 * stops at once; the source is then returned.
 */
export async function pipeTextStream(stream: TextStream, sink: TextSink): Promise<void> {
  const gen = stream.chunks;
  let lastSent = Date.now();
  let waiting = false;
  const timer = stream.keepAlive
    ? setInterval(() => {
        if (waiting && !sink.closed() && Date.now() - lastSent >= KEEP_ALIVE_MS) {
          lastSent = Date.now();
          sink.write(KEEP_ALIVE_TEXT);
        }
      }, KEEP_ALIVE_MS / 3)
    : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  let finished = false;
  try {
    for (;;) {
      if (sink.closed()) return;
      waiting = true;
      const { done, value } = await gen.next();
      waiting = false;
      if (done) {
        finished = true;
        return;
      }
      if (!value || sink.closed()) continue;
      lastSent = Date.now();
      if (!sink.write(value)) await sink.drained();
    }
  } catch (err) {
    finished = true;
    throw err;
  } finally {
    if (timer) clearInterval(timer);
    if (!finished) await gen.return(undefined).catch(() => undefined);
  }
}
