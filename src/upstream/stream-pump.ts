/**
 * The one stream pump: upstream body bytes -> a transform -> the client's wire text, scrubbed of
 * secrets, as a streamed reply. A byte relay (images), an SSE event relay (pass-through) and a
 * decoder -> encoder pair (translation) are all just a `StreamTransform`; the pump owns reading,
 * the idle timer, the client leaving, the in-band error and the end-of-stream bookkeeping.
 */
import { GatewayError, toGatewayError } from '../core/errors.js';
import { firstCutJsonEvent, forEachRawEvent, isCutJson, SSEEventSplitter, SSEParser, type SSEEvent } from '../wire/sse.js';
import { textStreamReply, type Reply } from '../reply/reply.js';
import { utf8Stream } from '../wire/utf8-stream.js';
import { isBodyTimeout, type UpstreamResult } from './call.js';
import { bodyReader } from './direct-body.js';
import { pumpSource } from './pump-source.js';

export type { PumpOptions, StreamTransform } from './pump-options.js';
import type { Emit, PumpOptions, StreamTransform } from './pump-options.js';

/** The streamed reply of an upstream answer. */
export function pumpReply(o: PumpOptions): Reply {
  const reader = bodyReader(o.upstream.response);
  if (!reader) throw new GatewayError('bad_gateway', 'The upstream answered a stream request without a body.');
  let cancelled = false;
  const gen = pumpSource(o, reader, () => cancelled, (err) => midStreamError(o.clientSignal, err, o.upstream));
  const onCancel = (): void => {
    cancelled = true;
    o.upstream.abort(new DOMException('Client disconnected', 'AbortError'));
    o.onCancel?.();
  };
  return textStreamReply(gen, onCancel, o.headers, o.keepAlive ?? true);
}

/** Maps a failure inside a stream; undefined when the client itself went away. */
function midStreamError(clientSignal: AbortSignal, err: unknown, upstream: UpstreamResult): GatewayError | undefined {
  if (clientSignal.aborted) return undefined;
  if (err instanceof GatewayError) return err;
  if (upstream.timedOut() === 'total') return new GatewayError('upstream_timeout', "The request's total time ran out while the upstream was streaming; the stream was cut off.");
  if (upstream.signal.aborted || isBodyTimeout(err)) return new GatewayError('upstream_timeout', 'The upstream stream stalled and was cut off.');
  const g = toGatewayError(err);
  return g.code === 'internal' ? new GatewayError('bad_gateway', 'The upstream stream broke off.') : g;
}

/** What an SSE transform does with the upstream's events. */
export interface SSEHandlers {
  /** The wire text for one event; in raw mode `raw` is the event as it came, to return when it stays unchanged. */
  event(ev: SSEEvent, raw?: string): string;
  end(): string;
  error?(err: GatewayError): string;
  /** Sees the stream's first event (before `event`, also when `quiet` lets it pass unread). */
  first?(ev: SSEEvent): void;
  /**
   * Raw mode: where the next text that may need a look starts in these whole events (as they came),
   * at or after `from`; -1 when none. Events with nothing to look at go out as they are, unparsed;
   * the event holding such text goes through `event`. Without it every event is parsed and `event`
   * gives its wire text.
   */
  nextLook?(events: string, from: number): number;
  /**
   * Pass-through: an event whose JSON data was cut short (`data: {"candid`) ends the stream with
   * the client's in-band 502 before it is relayed, as a translated stream's decoder refuses it,
   * instead of reaching the client's JSON parser as it came.
   */
  refuseCutJson?: boolean;
}

function cutJson(): GatewayError {
  return new GatewayError('bad_gateway', 'The upstream sent a malformed stream event (its JSON data was cut short); the stream was cut off.');
}

/**
 * A transform over SSE events: events that arrived in the same network chunk are handled together
 * (one write instead of one per event).
 */
export function sseTransform(handlers: SSEHandlers): StreamTransform {
  const parser = new SSEParser();
  const decoder = utf8Stream();
  let first = handlers.first;
  const seeFirst = (ev: SSEEvent): void => {
    const f = first;
    first = undefined;
    f?.(ev);
  };
  const error = handlers.error ? { error: handlers.error } : {};
  const nextLook = handlers.nextLook;
  if (!nextLook) {
    const refuse = handlers.refuseCutJson === true;
    const flush = (events: SSEEvent[], emit: Emit): void => {
      for (const ev of events) {
        if (refuse && isCutJson(ev.data)) throw cutJson();
        if (first) seeFirst(ev);
        emit(handlers.event(ev));
      }
    };
    return {
      push(chunk, emit) {
        flush(parser.feed(decoder.decode(chunk)), emit);
      },
      end(emit) {
        flush(parser.feed(decoder.end()), emit);
        // A last event without its blank line still counts when its data is whole.
        flush(parser.end(), emit);
        emit(handlers.end());
      },
      ...error,
    };
  }
  const splitter = new SSEEventSplitter();
  const refuse = handlers.refuseCutJson === true;
  const checked = (text: string, emit: Emit): void => {
    const bad = refuse ? firstCutJsonEvent(text) : -1;
    if (bad === -1) return relay(text, emit);
    // The whole events before it still go out.
    relay(text.slice(0, bad), emit);
    throw cutJson();
  };
  const relay = (text: string, emit: Emit): void => {
    if (!text) return;
    if (first) forEachRawEvent(text, (raw) => {
      const ev = parser.feed(raw)[0];
      if (ev) seeFirst(ev);
      return !ev;
    });
    // Up to the event holding the next text to look at, the events go out as they came.
    let pos = 0;
    for (let at = nextLook(text, 0); at !== -1; at = nextLook(text, pos)) {
      const before = text.lastIndexOf('\n\n', at - 2);
      const start = before === -1 ? pos : Math.max(pos, before + 2);
      const blank = text.indexOf('\n\n', at);
      const end = blank === -1 ? text.length : blank + 2;
      if (start > pos) emit(text.slice(pos, start));
      const raw = text.slice(start, end);
      const ev = parser.feed(raw)[0];
      emit(ev ? handlers.event(ev, raw) : raw);
      pos = end;
    }
    if (pos < text.length) emit(pos ? text.slice(pos) : text);
  };
  return {
    push(chunk, emit) {
      checked(splitter.feed(decoder.decode(chunk)), emit);
    },
    end(emit) {
      checked(splitter.feed(decoder.end()) + splitter.end(), emit);
      emit(handlers.end());
    },
    ...error,
  };
}

/** A transform that relays the upstream's bytes as they are (decoded as UTF-8 text). */
export function byteRelayTransform(): StreamTransform {
  const decoder = utf8Stream();
  return {
    push(chunk, emit) {
      emit(decoder.decode(chunk));
    },
    end(emit) {
      emit(decoder.end());
    },
  };
}
