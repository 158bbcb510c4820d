/**
 * The one stream writer of every host: a source read chunk by chunk into a sink, waiting while the
 * sink is full (backpressure), with SSE keep-alive comments while a text source is silent, and the
 * source returned when the sink closes (the client left). `gateway.handle()`'s Response body
 * (Bun, Deno, Workers, the fetch adapter) is a ReadableStream sink of it (textStreamBody); the node
 * bridge writes text and byte streams to the socket through it (adapters/node.ts).
 */

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

/** Where a stream is written: a host's socket writer, or a ReadableStream's queue. */
export interface ChunkSink<C> {
  /** Writes one chunk; false when the sink is full (then `drained` is awaited). */
  write(chunk: C): boolean;
  /** Resolves once the sink takes more, or once it is closed. */
  drained(): Promise<void>;
  /** True once the client is gone. */
  closed(): boolean;
}

/** A text stream's sink (the node bridge's socket writer). */
export type TextSink = ChunkSink<string>;

/** What the writer reads: an async generator, or a ReadableStream reader seen as one. */
export interface ChunkSource<C> {
  next(): Promise<IteratorResult<C, unknown>>;
  /** Stops the source early (the sink closed before it ended). */
  return(value: undefined): Promise<unknown>;
}

/**
 * Writes `source` to `sink` with backpressure, and `keepAlive` whenever the source has been silent
 * for KEEP_ALIVE_MS while the writer waits on it. Resolves when the source ended or the sink closed
 * (the source is then returned); rejects with the source's error (a protocol's error frame, if any,
 * was already written by the source). The host cancels the source itself when its client leaves
 * (before `closed()` turns true), so a pending read stops at once.
 */
export async function pipeChunks<C extends string | Uint8Array>(source: ChunkSource<C>, sink: ChunkSink<C>, keepAlive?: C): Promise<void> {
  let lastSent = Date.now();
  let waiting = false;
  const timer =
    keepAlive !== undefined
      ? setInterval(() => {
          if (waiting && !sink.closed() && Date.now() - lastSent >= KEEP_ALIVE_MS) {
            lastSent = Date.now();
            sink.write(keepAlive);
          }
        }, KEEP_ALIVE_MS / 3)
      : undefined;
  (timer as { unref?: () => void } | undefined)?.unref?.();
  let finished = false;
  try {
    for (;;) {
      if (sink.closed()) return;
      waiting = true;
      const { done, value } = await source.next();
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
    if (!finished) await source.return(undefined).catch(() => undefined);
  }
}

/** A text stream written to a sink (keep-alive comments when the stream asks for them). */
export function pipeTextStream(stream: TextStream, sink: TextSink): Promise<void> {
  return pipeChunks(stream.chunks, sink, stream.keepAlive ? KEEP_ALIVE_TEXT : undefined);
}

const encoder = new TextEncoder();

/**
 * A text stream as a byte ReadableStream (the body of `gateway.handle()`'s Response): the writer
 * fills the stream's queue up to its high-water mark and waits for the reader's next pull;
 * cancelling the body cancels the text stream and returns its source.
 */
export function textStreamBody(stream: TextStream): ReadableStream<Uint8Array> {
  let closed = false;
  let wake: (() => void) | undefined;
  const resume = (): void => {
    const w = wake;
    wake = undefined;
    w?.();
  };
  let piped: Promise<void> = Promise.resolve();
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const sink: ChunkSink<string> = {
        write(text) {
          try {
            controller.enqueue(encoder.encode(text));
          } catch {
            // The body was closed under the writer: nothing more goes in.
            closed = true;
            return true;
          }
          return (controller.desiredSize ?? 0) > 0;
        },
        drained: () => (closed ? Promise.resolve() : new Promise<void>((resolve) => (wake = resolve))),
        closed: () => closed,
      };
      piped = pipeTextStream(stream, sink).then(
        () => {
          if (!closed) controller.close();
        },
        (err: unknown) => {
          if (!closed) controller.error(err);
        },
      );
    },
    pull: resume,
    cancel() {
      closed = true;
      stream.cancel();
      resume();
      return piped;
    },
  });
}
