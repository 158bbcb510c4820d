/**
 * The stream pump's source of wire text: a hand-written async iterator rather than an async
 * generator, so one network chunk costs one promise hop (the read's `.then`) and no generator
 * resumption plus `yield` await; the request observer is told of chunks and of the end through
 * hooks (ObservableChunks.observeChunks) instead of wrapping it with a `.then` per chunk. It keeps an async
 * generator's contract: calls queue behind one in flight, `return()` before the first `next()`
 * runs nothing, `return()` at a chunk runs the end bookkeeping.
 */
import type { GatewayError } from '../core/errors.js';
import type { ObservableChunks } from '../reply/reply.js';
import type { BodyReader } from './direct-body.js';
import { createContentScrubber, scrubError } from '../core/redact.js';
import type { PumpOptions } from './pump-options.js';

type Result = IteratorResult<string, undefined>;
type Step = Result | Promise<Result>;

const DONE: Result = { done: true, value: undefined };

/**
 * idle: not started; reading: the next call reads; throwing: `pending` fails the stream next;
 * ending: the last text was handed over (the next call completes); closing: the error frame was
 * handed over; over: the end bookkeeping ran (or runs).
 */
type Phase = 'idle' | 'reading' | 'throwing' | 'ending' | 'closing' | 'over';

export function pumpSource(o: PumpOptions, reader: BodyReader, cancelled: () => boolean, mapError: (err: unknown) => GatewayError | undefined): AsyncGenerator<string> {
  let phase: Phase = 'idle';
  let failure: GatewayError | undefined;
  let completed = false;
  let pending: unknown;
  // A call in flight (its result not yet known): later calls queue behind it, as with a generator.
  let busy = false;
  let inflight: Promise<unknown> = Promise.resolve();
  let onChunk: (() => void) | undefined;
  let onFinish: (() => void) | undefined;
  let out = '';
  const emit = (text: string): void => {
    out += text;
  };
  const scrubber = createContentScrubber(o.secrets);
  const take = (): string => {
    const text = out;
    out = '';
    return text ? scrubber.push(text) : '';
  };
  // A read ends when the upstream is aborted (idle timeout, client gone), also with a fetch
  // whose body does not follow its signal: the abort cancels the reader, and a read that then
  // ends is the abort's failure, not the stream's end. A reader that follows the abort itself
  // needs no listener (and the signal is not built: see upstream/call.ts).
  const signal = reader.followsAbort ? undefined : o.upstream.signal;
  const onAbort = () => void reader.cancel(signal?.reason).catch(() => undefined);

  const finished = (): void => {
    const f = onFinish;
    onFinish = undefined;
    f?.();
  };
  const yielded = (text: string, next: Phase): Result => {
    phase = next;
    // Until the client asks for more, the stream is held back by it, not waiting on the upstream.
    if (next === 'reading') o.upstream.pauseIdle?.();
    busy = false;
    onChunk?.();
    return { done: false, value: text };
  };
  /** The end bookkeeping, once: then DONE, or `thrown` rethrown. */
  const close = (thrown?: { err: unknown }): Promise<Result> => {
    phase = 'over';
    try {
      signal?.removeEventListener('abort', onAbort);
      reader.cancel().catch(() => undefined);
      o.upstream.done();
    } catch (err) {
      busy = false;
      finished();
      return Promise.reject(err);
    }
    return o.onEnd(failure, completed).then(
      () => {
        busy = false;
        finished();
        if (thrown) throw thrown.err;
        return DONE;
      },
      (err: unknown) => {
        busy = false;
        finished();
        throw err;
      },
    );
  };
  const fail = (err: unknown): Step => {
    try {
      failure = cancelled() ? undefined : mapError(err);
      if (failure) {
        if (!o.transform.error) return close({ err: failure });
        emit(o.transform.error(scrubError(failure, o.secrets)));
        const text = take() + scrubber.end();
        if (text) return yielded(text, 'closing');
      }
    } catch (thrown) {
      return close({ err: thrown });
    }
    return close();
  };
  /** What was emitted before a throw goes out first. */
  const textThen = (err: unknown): Step => {
    const text = take();
    if (!text) return fail(err);
    pending = err;
    return yielded(text, 'throwing');
  };
  const end = (): Step => {
    try {
      o.transform.end(emit);
    } catch (err) {
      return textThen(err);
    }
    const text = take() + scrubber.end();
    if (text) return yielded(text, 'ending');
    completed = true;
    return close();
  };
  const onRead = (r: ReadableStreamReadResult<Uint8Array>): Step => {
    try {
      if (signal?.aborted) throw signal.reason ?? new DOMException('Aborted', 'AbortError');
      if (r.done) return end();
      try {
        o.transform.push(r.value, emit);
      } catch (err) {
        return textThen(err);
      }
      const text = take();
      if (text) return yielded(text, 'reading');
    } catch (err) {
      return fail(err);
    }
    return read();
  };
  // The idle time is the wait for each read: it restarts here, not while the client holds the stream back.
  const read = (): Promise<Result> => {
    try {
      o.upstream.touch();
    } catch (err) {
      return Promise.resolve(fail(err));
    }
    return reader.read().then(onRead, fail);
  };
  const step = (): Promise<Result> => {
    switch (phase) {
      case 'idle':
        phase = 'reading';
        if (signal?.aborted) onAbort();
        else signal?.addEventListener('abort', onAbort, { once: true });
        return read();
      case 'reading':
        return read();
      case 'throwing':
        return Promise.resolve(fail(pending));
      case 'ending':
        // Set only after the last byte was handed over: a client that leaves early or an
        // upstream failure leaves it false.
        completed = true;
        return close();
      case 'closing':
        return close();
      case 'over':
        busy = false;
        return Promise.resolve(DONE);
    }
  };
  const next = (): Promise<Result> => {
    if (busy) return inflight.then(next, next);
    busy = true;
    const p = step();
    inflight = p;
    return p;
  };
  const ret = (value?: unknown): Promise<IteratorResult<string, unknown>> => {
    if (busy) return inflight.then(() => ret(value), () => ret(value));
    if (phase === 'idle') phase = 'over';
    if (phase === 'over') {
      finished();
      return Promise.resolve({ done: true, value });
    }
    busy = true;
    const p = close().then((): IteratorResult<string, unknown> => ({ done: true, value }));
    inflight = p;
    return p;
  };
  const source: ObservableChunks = {
    next,
    return: ret,
    // Nobody throws into a text stream; as a generator without a catch around its yield would.
    throw: (err) => source.return(undefined).then(() => Promise.reject(err)),
    [Symbol.asyncIterator]: () => source,
    observeChunks(chunk, finish) {
      if (onFinish || phase !== 'idle') return false;
      onChunk = chunk;
      onFinish = finish;
      return true;
    },
  };
  return source;
}
