/**
 * Stored turns, one mechanism for every API that keeps them (OpenAI Responses, Gemini
 * Interactions): a finished turn is stored; a streamed one is stored before its last event leaves
 * (a client that reacts to the terminal event with a GET or a follow-up turn finds it); a stored
 * turn streams again from its recorded events (or events rebuilt from its object), a background
 * run live as it goes; `background: true` runs detached on the gateway's BackgroundRuns; cancel
 * and delete stop the run. Each API supplies only its encoding (TurnEncoding): what its records,
 * objects and events look like.
 */
import { FINAL_STATUSES, type ConversationRecord, type ConversationStatus, type StoredEvent } from '../conversations/conversation-store.js';
import type { BackgroundJob } from '../conversations/background-runs.js';
import { updateRecord } from '../conversations/update-record.js';
import { GatewayError } from '../core/errors.js';
import { beforeEachChunk, textStreamReply, type Reply } from '../reply/reply.js';
import { requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import type { EndpointContext } from './services.js';
import { scrubbedStream } from '../core/redact.js';
import { admitChat, type ChatCall } from './chat-pipeline.js';
import { jsonResponse, requestSecrets } from './common.js';
import { NOT_STORED, withNotStoredWarning } from './setting-warnings.js';

type Json = Record<string, unknown>;

/** What the mechanism needs of a prepared turn (ResponsesTurn and InteractionTurn are ones). */
export interface StatefulTurn {
  id: string;
  model: ResolvedModel;
  stream: boolean;
  background: boolean;
  store: boolean;
  /** Filled by the API's encoders and relay: every event of a stream, and the final object. */
  sink: { onEvent?: (type: string, data: string) => void; final?: Json };
  /** The chat call of this turn; background runs stream whatever the client asked. */
  call(stream: boolean): ChatCall;
}

/** A run's state change the API's object records (the record's status follows it). */
export type RunStatus = Extract<ConversationStatus, 'in_progress' | 'cancelled' | 'failed'>;

/** One API's encoding of its stored turns: the only part Responses and Interactions write themselves. */
export interface TurnEncoding<T extends StatefulTurn> {
  /** What the API calls a turn, in messages ('response', 'interaction'). */
  readonly noun: string;
  /** Whether a streamed turn's events are stored with it (else a stream of it is rebuilt from its object). */
  readonly keepsStreamEvents: boolean;
  /** Written after the last event of a stored turn's stream ('' for nothing). */
  readonly streamEnd: string;
  /** Runs the turn's chat call (errors in the API's own terms). */
  run(ctx: EndpointContext, call: ChatCall): Promise<Reply>;
  /** The record `object` leaves in the store; `queued` is the record a background run started as. */
  record(ctx: EndpointContext, turn: T, object: Json, queued?: ConversationRecord): ConversationRecord;
  /** The object a background run is answered and stored with before it runs, and the events a stream of it opens with. */
  queued(ctx: EndpointContext, turn: T): { object: Json; events?: StoredEvent[] };
  /** The position of a recorded event (`count`: events recorded before it). */
  eventSeq(data: string, count: number): number;
  /** The API's object in a run's new state (`why` a run failed). */
  withStatus(ctx: EndpointContext, object: Json, status: RunStatus, why?: GatewayError): Json;
  /** The events of a finished turn that has none recorded, rebuilt from its object. */
  replay(object: Json): StoredEvent[];
  /** Throws what the run would fail on, before a background run is accepted. */
  checkBackground?(turn: T): void;
  /** Called once when a client cancelled the turn's background run (work the upstream keeps doing). */
  onCancel?(ctx: EndpointContext, turn: T): Promise<void>;
}

/** Where a stream of a stored turn resumes. */
export interface StreamResume {
  /** Whether an event is sent (called for each event in order). */
  keep(event: StoredEvent): boolean;
  /** Throws when the finished turn's events do not hold the resume point. */
  check?(events: StoredEvent[]): void;
}

const FROM_START: StreamResume = { keep: () => true };

/** The conversation services of the gateway (one place reads them from the request context). */
function services(ctx: EndpointContext) {
  const { conversations, backgroundRuns } = ctx.services;
  return { store: conversations.store, pollIntervalMs: conversations.pollIntervalMs, backgroundRuns };
}

/** Runs a new turn: stored when finished (unless `store: false`), or started in the background. */
export async function runTurn<T extends StatefulTurn>(ctx: EndpointContext, turn: T, enc: TurnEncoding<T>): Promise<Reply> {
  if (turn.background) return startBackground(ctx, turn, enc);
  const events: StoredEvent[] = [];
  if (turn.store && turn.stream && enc.keepsStreamEvents) turn.sink.onEvent = (type, data) => events.push({ seq: enc.eventSeq(data, events.length), type, data });
  const res = await enc.run(ctx, turn.call(turn.stream));
  if (!turn.store) return res;
  const persist = (): Promise<boolean> => storeFinal(ctx, turn, enc, events);
  if (!turn.stream) return (await persist()) ? res : withNotStoredWarning(ctx.event, res);
  return persistBeforeLastEvent(ctx, res, turn, persist);
}

/**
 * Stores a finished turn (and a stream's events); false when the store failed. A store failure
 * does not take the answer away from the client: it is delivered with a warning that it was not
 * stored (it cannot be read back or continued later).
 */
async function storeFinal<T extends StatefulTurn>(ctx: EndpointContext, turn: T, enc: TurnEncoding<T>, events: StoredEvent[]): Promise<boolean> {
  const final = turn.sink.final;
  if (!final) return true;
  try {
    const { store } = services(ctx);
    await store.create(enc.record(ctx, turn, final));
    if (events.length) await store.appendEvents(turn.id, events);
    return true;
  } catch {
    return false;
  }
}

/** The stream, with the record written before the chunk holding the terminal event goes out. */
function persistBeforeLastEvent(ctx: EndpointContext, res: Reply, turn: StatefulTurn, persist: () => Promise<boolean>): Reply {
  let persisted = false;
  return beforeEachChunk(res, async (chunk) => {
    if (!persisted && (chunk === undefined || turn.sink.final)) {
      persisted = true;
      // The headers are gone: the hook events (onResponse warnings) say it was not stored.
      if (!(await persist())) ctx.event.warnings = [...(ctx.event.warnings ?? []), NOT_STORED];
    }
  });
}

/** The background run of a turn: recorded event by event, its final object replacing the queued record. */
function backgroundJob<T extends StatefulTurn>(ctx: EndpointContext, turn: T, enc: TurnEncoding<T>, queued: { object: Json; events?: StoredEvent[] }): BackgroundJob<EndpointContext> {
  return {
    id: turn.id,
    queued: { ...enc.record(ctx, turn, queued.object), status: 'queued' },
    ...(queued.events ? { initialEvents: queued.events } : {}),
    run(detached, record) {
      let count = 0;
      turn.sink.onEvent = (type, data) => record({ seq: enc.eventSeq(data, count++), type, data });
      return enc.run(detached, turn.call(true));
    },
    // The run holds the request's limits lease until it ends (the runner releases it).
    settled: () => settleRequest(requestLimits(ctx), turn.model.pricing, undefined),
    finished(r) {
      const final = turn.sink.final;
      return final ? { ...enc.record(ctx, turn, final, r), version: r.version } : undefined;
    },
    transition: (r, status, why) => ({ ...r, status, object: enc.withStatus(ctx, r.object, status, status === 'failed' ? why : undefined) }),
    ...(enc.onCancel ? { onCancel: () => enc.onCancel?.(ctx, turn) } : {}),
  };
}

/** Stores the turn as queued, starts the detached run, answers at once (or streams the run). */
async function startBackground<T extends StatefulTurn>(ctx: EndpointContext, turn: T, enc: TurnEncoding<T>): Promise<Reply> {
  enc.checkBackground?.(turn);
  const queued = enc.queued(ctx, turn);
  const { store, backgroundRuns } = services(ctx);
  // Limits are checked at submission.
  await admitChat(ctx, turn.call(true));
  try {
    await backgroundRuns.start(ctx, backgroundJob(ctx, turn, enc, queued));
  } catch (err) {
    await settleRequest(requestLimits(ctx), turn.model.pricing, { totalTokens: 0 });
    throw err;
  }
  if (!turn.stream) return jsonResponse(ctx, queued.object);
  const record = await store.get(turn.id);
  if (!record) throw new GatewayError('internal', `The background ${enc.noun} vanished from the store.`);
  return streamStoredTurn(ctx, record, enc);
}

function frame(ev: StoredEvent): string {
  return `event: ${ev.type}\ndata: ${ev.data}\n\n`;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(done, ms);
    function done(): void {
      clearTimeout(t);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/**
 * The events of a stored turn after the resume point: a finished turn's recorded events (or,
 * when none were recorded, events rebuilt from its object); a running background turn followed
 * live, polling the store, until it finishes. Stored events are upstream content: they pass the
 * secret scrubber like a live stream.
 */
export async function streamStoredTurn<T extends StatefulTurn>(ctx: EndpointContext, record: ConversationRecord, enc: TurnEncoding<T>, resume: StreamResume = FROM_START): Promise<Reply> {
  const { store, pollIntervalMs } = services(ctx);
  const signal = ctx.signal;
  let finished: StoredEvent[] | undefined;
  if (!record.background || FINAL_STATUSES.includes(record.status)) {
    const recorded = await store.events(record.id, 0);
    finished = recorded.length ? recorded : enc.replay(record.object);
    resume.check?.(finished);
  }
  const gen = (async function* () {
    if (finished) {
      yield finished.filter(resume.keep).map(frame).join('') + enc.streamEnd;
      return;
    }
    let from = 0;
    for (;;) {
      const current = await store.get(record.id);
      const final = !current || FINAL_STATUSES.includes(current.status);
      // Events are appended before the final status is written: after seeing it, one more read has them all.
      const events = await store.events(record.id, from);
      from += events.length;
      const text = events.filter(resume.keep).map(frame).join('') + (final ? enc.streamEnd : '');
      if (text) yield text;
      if (final || signal.aborted) return;
      await sleep(pollIntervalMs, signal);
    }
  })();
  return textStreamReply(scrubbedStream(gen, requestSecrets(ctx)), () => undefined);
}

/**
 * Cancels a stored turn's background run (on this instance at once; another instance running it
 * sees `cancelRequested`); a finished turn is left as it is. The record as it now is.
 */
export async function cancelStoredTurn<T extends StatefulTurn>(ctx: EndpointContext, record: ConversationRecord, enc: TurnEncoding<T>): Promise<ConversationRecord> {
  const { store, backgroundRuns } = services(ctx);
  const updated = await updateRecord(store, record.id, (r) =>
    FINAL_STATUSES.includes(r.status) ? undefined : { ...r, status: 'cancelled', cancelRequested: true, object: enc.withStatus(ctx, r.object, 'cancelled') },
  );
  backgroundRuns.cancelLocal(record.id);
  return updated ?? record;
}

/** Deletes a stored turn (a running background run is stopped first). */
export async function deleteStoredTurn(ctx: EndpointContext, record: ConversationRecord): Promise<void> {
  const { store, backgroundRuns } = services(ctx);
  backgroundRuns.cancelLocal(record.id);
  await store.delete(record.id);
}
