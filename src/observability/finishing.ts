import { isObservableChunks } from '../reply/reply.js';

/**
 * `source`, with `chunk` called for each chunk and `finish` once it is over: ended, failed, or
 * returned by its reader (also when the reader returns it before reading anything, e.g. a client
 * that left at once). A plain iterator rather than another async generator: no extra promise hop
 * per chunk.
 */
export function finishing(source: AsyncGenerator<string>, chunk: () => void, finish: () => void): AsyncGenerator<string> {
  // A source that takes the hooks itself (the stream pump) is not wrapped.
  if (isObservableChunks(source) && source.observeChunks(chunk, finish)) return source;
  const seen = <T>(result: IteratorResult<string, T>): IteratorResult<string, T> => {
    if (result.done) finish();
    else chunk();
    return result;
  };
  const failed = (err: unknown): never => {
    finish();
    throw err;
  };
  const gen: AsyncGenerator<string> = {
    next: (...args) => source.next(...args).then(seen, failed),
    return: (value) =>
      source.return(value).then((r) => {
        finish();
        return r;
      }, failed),
    throw: (err) => source.throw(err).then(seen, failed),
    [Symbol.asyncIterator]: () => gen,
  };
  return gen;
}

/**
 * A byte body with `chunk` called for each chunk and `finish` once it is over: ended, failed, or
 * cancelled by the client. Pulls only when the client pulls, so the client's pace still reaches
 * the upstream.
 */
export function finishingBytes(body: ReadableStream<Uint8Array>, chunk: () => void, finish: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let read: ReadableStreamReadResult<Uint8Array>;
        try {
          read = await reader.read();
        } catch (err) {
          controller.error(err);
          finish();
          return;
        }
        if (read.done) {
          controller.close();
          finish();
          return;
        }
        chunk();
        controller.enqueue(read.value);
      },
      async cancel(reason) {
        try {
          await reader.cancel(reason);
        } finally {
          finish();
        }
      },
    },
    { highWaterMark: 0 },
  );
}
