/**
 * Background runs of stored records, for every API that has them (Responses `background: true`,
 * Interactions `background: true`): the record is stored as `queued` and the client answered at
 * once; the work runs detached from the client's connection (its own AbortSignal), always streamed,
 * so its events are recorded for `GET …?stream=true` and the final object replaces the record.
 * `cancel` on this instance aborts the run at once; on another instance it sets `cancelRequested`
 * in the shared store, which the running instance checks every `cancelCheckMs`. What the record and
 * the API object look like in each state is the job's business.
 */
import { GatewayError, toGatewayError } from '../core/errors.js';
import { releaseRequest } from '../limits/request-lease.js';
import type { RequestContext } from '../request/context.js';
import type { ConversationRecord, ConversationStore, StoredEvent } from './conversation-store.js';
import { updateRecord } from './update-record.js';
import { toResponse, type Reply } from '../reply/reply.js';

const CANCELLED = 'cancelled by the client';
const SHUTDOWN = 'gateway shutting down';

/** A run's work; `C` is the context the job's code takes (the endpoints' context, with their services). */
export interface BackgroundJob<C extends RequestContext = RequestContext> {
  id: string;
  /** Stored before the run starts (status `queued`). */
  queued: ConversationRecord;
  /** Events recorded with the queued record, before any of the run's (a stream of it opens with them). */
  initialEvents?: StoredEvent[];
  /** Starts the work, streamed; every event it sends goes to `record`, in order. */
  run(ctx: C, record: (event: StoredEvent) => void): Promise<Reply>;
  /** The record of a run that produced its final object; undefined when it produced none. */
  finished(current: ConversationRecord): ConversationRecord | undefined;
  /** The record in a new state: `in_progress` when the run starts, `cancelled`, or `failed` with why. */
  transition(current: ConversationRecord, status: 'in_progress' | 'cancelled' | 'failed', why?: GatewayError): ConversationRecord;
  /** Called once when the run is over, however it ended (e.g. to settle the request's limits; the runner then releases them). */
  settled?(): Promise<unknown>;
  /** Called once when a client cancelled the run (e.g. to stop work the upstream keeps doing). */
  onCancel?(): void | Promise<void>;
}

export class BackgroundRuns {
  private readonly running = new Map<string, { controller: AbortController; done: Promise<void> }>();

  constructor(private readonly rt: { conversations: { store: ConversationStore; cancelCheckMs: number } }) {}

  /** Stores the queued record and starts the run; resolves once the record is stored. */
  async start<C extends RequestContext>(ctx: C, job: BackgroundJob<C>): Promise<void> {
    const store = this.rt.conversations.store;
    await store.create(job.queued);
    if (job.initialEvents?.length) await store.appendEvents(job.id, job.initialEvents);
    const controller = new AbortController();
    // The run holds the request's limits lease from here: the submission's answer leaves it alone.
    if (ctx.limits) ctx.limits.heldByRun = true;
    const done = this.run(ctx, job, controller).finally(() => this.running.delete(job.id));
    this.running.set(job.id, { controller, done });
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

  private async run<C extends RequestContext>(ctx: C, job: BackgroundJob<C>, controller: AbortController): Promise<void> {
    const store = this.rt.conversations.store;
    const id = job.id;
    let pending: StoredEvent[] = [];
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
    controller.signal.addEventListener(
      'abort',
      () => {
        if (controller.signal.reason === CANCELLED) Promise.resolve(job.onCancel?.()).catch(() => undefined);
      },
      { once: true },
    );

    let failure: GatewayError | undefined;
    try {
      const started = await updateRecord(store, id, (r) => (r.status === 'queued' ? job.transition(r, 'in_progress') : undefined));
      if (started?.status !== 'in_progress') controller.abort(CANCELLED);
      else {
        // A copy of the request context that the client leaving does not abort: its own signal, not the bridge's clientGone.
        const detached: C = { ...ctx, signal: controller.signal, clientGone: undefined, event: { ...ctx.event } };
        const res = toResponse(await job.run(detached, (ev) => pending.push(ev)));
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
      await job.settled?.().catch(() => undefined);
      await releaseRequest(ctx.limits);
    }
    await flush().catch(() => undefined);
    const reason = controller.signal.aborted ? controller.signal.reason : undefined;
    await updateRecord(store, id, (r) => {
      if (r.status === 'cancelled') return undefined;
      if (reason === CANCELLED) return job.transition(r, 'cancelled');
      const final = reason === undefined ? job.finished(r) : undefined;
      if (final) return final;
      const why = reason === SHUTDOWN ? new GatewayError('unavailable', 'The gateway shut down before the run finished.') : (failure ?? new GatewayError('bad_gateway', 'The upstream ended without a result.'));
      return job.transition(r, 'failed', why);
    }).catch(() => undefined);
  }
}
