/**
 * What an endpoint answers, before it is a Fetch Response. `gateway.handle()` turns it into a
 * Response (`toResponse`); a host bridge that writes to a socket itself (the node bridge) takes it
 * from `gateway.bridge.reply()` and writes it directly: a text or byte body in one write, a text stream
 * chunk by chunk with `pipeTextStream`, with no Response and no Web stream in between (on Node,
 * building those costs more than most of a request's own work). Both go through the one stream
 * writer (stream-writer.ts).
 */

import { ReplyHeaders } from './reply-headers.js';
import { SSE_HEADERS } from '../wire/sse.js';
import { textStreamBody, type TextStream } from './stream-writer.js';

export { KEEP_ALIVE_MS, KEEP_ALIVE_TEXT, pipeTextStream, type TextSink, type TextStream } from './stream-writer.js';

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

/** The answer to a HEAD request: the GET's status and headers without its body (a stream is cancelled unread). */
export function withoutBody(reply: Reply): Reply {
  const b = reply.body;
  if (b === null) return reply;
  if (isTextStream(b)) b.cancel();
  else if (b instanceof ReadableStream) void b.cancel().catch(() => undefined);
  return new Reply(reply.status, reply.headers, null);
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
