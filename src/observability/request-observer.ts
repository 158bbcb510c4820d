/**
 * The one place a request is observed. The gateway creates a RequestObserver per request; handlers
 * only report what they learn (usage, cost, a mid-stream error); the upstream seam reports each
 * attempt. The observer fires the host's hooks exactly once each, whatever the route and outcome:
 * `onRequest` right before the first upstream attempt (or, for a request that never goes upstream,
 * right before `onResponse`), `onResponse` when the response is complete (for a streamed body: when
 * the body ended, failed or was cancelled by the client).
 */
import type { GatewayError } from '../errors.js';
import type { IRUsage } from '../ir/types.js';
import { isTextStream, Reply } from '../http/reply.js';
import { fireHook, type GatewayHooks, type RequestEvent, type ResponseEvent } from './hooks.js';

/** What handlers learn about the outcome while serving a request. */
export interface RequestOutcome {
  usage?: IRUsage;
  costUsd?: number;
  /** The failure (already scrubbed) when the request failed, also mid-stream under a 200. */
  error?: { code: GatewayError['code']; message: string };
  streamCompleted?: boolean;
}

export interface ObserverDeps {
  hooks: GatewayHooks;
  now: () => number;
}

export class RequestObserver {
  private requested = false;
  private finished = false;
  private readonly outcome: RequestOutcome = {};

  constructor(
    private readonly deps: ObserverDeps,
    /** Filled in as the request is routed (key id, model, provider, warnings). */
    readonly event: RequestEvent,
    readonly startedAt: number,
  ) {}

  /** The request is ready to go upstream: fires onRequest (once). */
  requestReady(): void {
    if (this.requested) return;
    this.requested = true;
    if (this.deps.hooks.onRequest) fireHook(this.deps.hooks.onRequest, { ...this.event });
  }

  /** Merges what a handler learned; the last report of a field wins. */
  report(outcome: RequestOutcome): void {
    Object.assign(this.outcome, outcome);
  }

  /**
   * The reply leaves the gateway. A body that is already whole (JSON, error, empty) completes the
   * request now; a streamed body is wrapped so the request completes when it ends, fails or is
   * cancelled.
   */
  observe(reply: Reply): Reply {
    const body = reply.body;
    const finish = () => this.finish(reply.status);
    if (isTextStream(body)) return new Reply(reply.status, reply.headers, { ...body, chunks: finishing(body.chunks, finish) });
    if (!(body instanceof ReadableStream)) {
      finish();
      return reply;
    }
    const reader = body.getReader();
    const wrapped = new ReadableStream<Uint8Array>(
      {
        async pull(controller) {
          let chunk: ReadableStreamReadResult<Uint8Array>;
          try {
            chunk = await reader.read();
          } catch (err) {
            controller.error(err);
            finish();
            return;
          }
          if (chunk.done) {
            controller.close();
            finish();
            return;
          }
          controller.enqueue(chunk.value);
        },
        async cancel(reason) {
          try {
            await reader.cancel(reason);
          } finally {
            finish();
          }
        },
      },
      // Pull only when the client pulls: the client's pace still reaches the upstream.
      { highWaterMark: 0 },
    );
    return new Reply(reply.status, reply.headers, wrapped);
  }

  /** Fires onResponse (once), after onRequest if that has not fired yet. */
  private finish(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.requestReady();
    const hook = this.deps.hooks.onResponse;
    if (!hook) return;
    const o = this.outcome;
    const event: ResponseEvent = {
      ...this.event,
      status,
      latencyMs: this.deps.now() - this.startedAt,
      ...(o.usage ? { usage: o.usage } : {}),
      ...(o.costUsd !== undefined ? { costUsd: o.costUsd } : {}),
      ...(o.error ? { error: o.error } : {}),
      ...(o.streamCompleted !== undefined ? { streamCompleted: o.streamCompleted } : {}),
    };
    fireHook(hook, event);
  }
}

/**
 * `source`, calling `finish` once it is over: ended, failed, or returned by its reader (also when
 * the reader returns it before reading anything, e.g. a client that left at once). A plain
 * iterator rather than another async generator: no extra promise hop per chunk.
 */
function finishing(source: AsyncGenerator<string>, finish: () => void): AsyncGenerator<string> {
  const ended = <T>(result: IteratorResult<string, T>): IteratorResult<string, T> => {
    if (result.done) finish();
    return result;
  };
  const failed = (err: unknown): never => {
    finish();
    throw err;
  };
  const gen: AsyncGenerator<string> = {
    next: (...args) => source.next(...args).then(ended, failed),
    return: (value) => source.return(value).then((r) => { finish(); return r; }, failed),
    throw: (err) => source.throw(err).then(ended, failed),
    [Symbol.asyncIterator]: () => gen,
  };
  return gen;
}
