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
