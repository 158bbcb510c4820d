/**
 * `background: true` runs: the record is stored as `queued` and the client answered at once; the
 * upstream call runs detached from the client's connection (its own AbortSignal), always streamed,
 * so its events are recorded for `GET …?stream=true` and the final object replaces the record.
 * `cancel` on this instance aborts the run at once; on another instance it sets `cancelRequested`
 * in the shared store, which the running instance checks every `cancelCheckMs`.
 */
import type { StoredEvent } from '../conversations/conversation-store.js';
import { updateRecord } from '../conversations/update-record.js';
import { GatewayError, toGatewayError } from '../errors.js';
import { responseErrorCode } from '../protocols/openai-responses/errors.js';
import type { Json } from '../protocols/openai-responses/client/response-object.js';
import type { GatewayRuntime, RequestContext } from '../runtime.js';
import { runChat } from './chat-pipeline.js';
import { requestLimits } from '../limits/admission.js';
import { finishRequest } from '../limits/request-lease.js';
import { turnRecord, type ResponsesTurn } from './responses-turn.js';

const SERVICE_KEY = 'responses-background';
const CANCELLED = 'cancelled by the client';
const SHUTDOWN = 'gateway shutting down';

export class BackgroundResponses {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(private readonly rt: GatewayRuntime) {}

  /** Stores the queued record and starts the run; resolves once the record is stored. */
  async start(ctx: RequestContext, turn: ResponsesTurn, queued: Json): Promise<void> {
    const store = this.rt.conversations.store;
    await store.create(turnRecord(ctx, turn, queued));
    // A stream of the run opens at once with this event; the run's own events continue at 1.
    const created = JSON.stringify({ type: 'response.created', sequence_number: 0, response: queued });
    await store.appendEvents(turn.id, [{ seq: 0, type: 'response.created', data: created }]);
    const controller = new AbortController();
    const done = this.run(ctx, turn, controller).finally(() => this.running.delete(turn.id));
    this.running.set(turn.id, { controller, done });
  }

  /** Aborts a run of this instance; false when it does not run here. */
  cancelLocal(id: string): boolean {
    const run = this.running.get(id);
    if (!run) return false;
    run.controller.abort(CANCELLED);
    return true;
  }

  /** Aborts every run (they are recorded as failed) and waits for their last writes. */
  async stop(): Promise<void> {
    for (const run of this.running.values()) run.controller.abort(SHUTDOWN);
    await Promise.allSettled([...this.running.values()].map((r) => r.done));
  }

  private async run(ctx: RequestContext, turn: ResponsesTurn, controller: AbortController): Promise<void> {
    const store = this.rt.conversations.store;
    const id = turn.id;
    let pending: StoredEvent[] = [];
    let count = 0;
    turn.sink.onEvent = (type, data) => {
      const seq = Number((JSON.parse(data) as { sequence_number?: unknown }).sequence_number);
      pending.push({ seq: Number.isFinite(seq) ? seq : count, type, data });
      count++;
    };
    const flush = async (): Promise<void> => {
      if (!pending.length) return;
      const batch = pending;
      pending = [];
      await store.appendEvents(id, batch);
    };
    const watcher = setInterval(() => {
      store.get(id).then(
        (r) => {
          if (!r || r.cancelRequested) controller.abort(CANCELLED);
        },
        () => undefined,
      );
    }, this.rt.conversations.cancelCheckMs);
    (watcher as { unref?: () => void }).unref?.();

    let failure: GatewayError | undefined;
    try {
      const started = await updateRecord(store, id, (r) => (r.status === 'queued' ? { ...r, status: 'in_progress', object: { ...r.object, status: 'in_progress' } } : undefined));
      if (started?.status !== 'in_progress') controller.abort(CANCELLED);
      else {
        // A copy of the request context that the client leaving does not abort.
        const detached: RequestContext = { ...ctx, signal: controller.signal, event: { ...ctx.event } };
        const res = await runChat(detached, turn.call(true));
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        for (;;) {
          const { done } = await reader.read();
          await flush();
          if (done) break;
        }
      }
    } catch (err) {
      failure = toGatewayError(err);
    } finally {
      clearInterval(watcher);
      // A run that never reached the upstream (cancelled while queued) still frees its slot.
      await finishRequest(requestLimits(ctx), turn.model.pricing, undefined);
    }
    await flush().catch(() => undefined);
    const reason = controller.signal.aborted ? controller.signal.reason : undefined;
    await updateRecord(store, id, (r) => {
      if (r.status === 'cancelled') return undefined;
      if (reason === CANCELLED) return { ...r, status: 'cancelled', object: { ...r.object, status: 'cancelled' } };
      const final = reason === undefined ? turn.sink.final : undefined;
      if (final) return { ...turnRecord(ctx, turn, final, r.inputItems), version: r.version };
      const why = reason === SHUTDOWN ? new GatewayError('unavailable', 'The gateway shut down before the response finished.') : (failure ?? new GatewayError('bad_gateway', 'The upstream ended without a response.'));
      return { ...r, status: 'failed', object: { ...r.object, status: 'failed', error: { code: responseErrorCode(why), message: why.message } } };
    }).catch(() => undefined);
  }
}

/** The runtime's background service (created on first use, stopped on close()). */
export function backgroundResponses(rt: GatewayRuntime): BackgroundResponses {
  const found = rt.services.get(SERVICE_KEY);
  if (found instanceof BackgroundResponses) return found;
  const service = new BackgroundResponses(rt);
  rt.services.set(SERVICE_KEY, service);
  rt.closers.push(() => service.stop());
  return service;
}
