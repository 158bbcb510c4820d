/**
 * Stored interactions: `GET /v1beta/interactions/{id}` (also `?stream=true[&last_event_id=…]`,
 * `?include_input=true`), `POST /v1beta/interactions/{id}/cancel`, `DELETE
 * /v1beta/interactions/{id}`. A key sees only its own interactions (404 otherwise); any gateway
 * instance sharing the store answers. GET returns the interaction's timeline: its input steps, then
 * its output steps.
 */

import { FINAL_STATUSES, type ConversationRecord, type StoredEvent } from '../conversations/conversation-store.js';
import { updateRecord } from '../conversations/update-record.js';
import { GatewayError } from '../core/errors.js';
import { isoTime } from '../protocols/gemini-interactions/client/interaction-object.js';
import { replayInteractionEvents } from '../protocols/gemini-interactions/client/replay-events.js';
import { DONE_FRAME } from '../protocols/gemini-interactions/client/stream-encoder.js';
import type { Json } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import { scrubbedStream } from '../core/redact.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, requestSecrets, upstreamJsonResponse } from './common.js';
import { INTERACTIONS_API } from './interactions-turn.js';
import { providerForCaller, upstreamInteractionCall } from './interactions-upstream.js';
import { textStreamReply, type Reply } from '../reply/reply.js';
import { quoteInput } from '../core/quote-input.js';

async function ownInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<ConversationRecord> {
  const principal = await authenticate(ctx);
  const id = params.id as string;
  const record = await ctx.services.conversations.store.get(id);
  if (!record || record.ownerId !== principal.id || record.api !== INTERACTIONS_API) throw new GatewayError('not_found', `Interaction with id '${quoteInput(id)}' not found.`, { param: 'id' });
  return record;
}

/** The interaction as GET shows it: input steps, then output steps (and the input itself on request). */
function timelineOf(record: ConversationRecord, includeInput: boolean): Json {
  const output = Array.isArray(record.object.steps) ? (record.object.steps as Json[]) : [];
  return { ...record.object, steps: [...record.inputItems, ...output], ...(includeInput ? { input: record.inputItems } : {}) };
}

function frame(ev: StoredEvent): string {
  return `event: ${ev.type}\ndata: ${ev.data}\n\n`;
}

function eventIdOf(ev: StoredEvent): string | undefined {
  try {
    const id = (JSON.parse(ev.data) as { event_id?: unknown }).event_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
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

/** Drops events up to and including the one with `lastEventId` (all of them until it is seen). */
function resumeAfter(lastEventId: string | undefined): (ev: StoredEvent) => boolean {
  let skipping = lastEventId !== undefined;
  return (ev) => {
    if (!skipping) return true;
    if (eventIdOf(ev) === lastEventId) skipping = false;
    return false;
  };
}

/**
 * The events of a stored interaction after `lastEventId`: a recorded stream (a background run is
 * followed live, polling the store, until it finishes), or for an interaction created without a
 * stream, events rebuilt from the stored object. Ends with `event: done`.
 */
export async function streamStoredInteraction(ctx: EndpointContext, record: ConversationRecord, lastEventId?: string): Promise<Reply> {
  const store = ctx.services.conversations.store;
  const signal = ctx.signal;
  const keep = resumeAfter(lastEventId);
  let finished: StoredEvent[] | undefined;
  if (!record.background || FINAL_STATUSES.includes(record.status)) {
    const recorded = await store.events(record.id, 0);
    finished = recorded.length ? recorded : replayInteractionEvents(record.object);
    if (lastEventId !== undefined && !finished.some((ev) => eventIdOf(ev) === lastEventId)) {
      throw new GatewayError('invalid_request', `The interaction '${record.id}' has no event with id '${lastEventId}'.`, { param: 'last_event_id' });
    }
  }
  const gen = (async function* () {
    if (finished) {
      yield finished.filter(keep).map(frame).join('') + DONE_FRAME;
      return;
    }
    let from = 0;
    for (;;) {
      const current = await store.get(record.id);
      const final = !current || FINAL_STATUSES.includes(current.status);
      // Events are appended before the final status is written: after seeing it, one more read has them all.
      const events = await store.events(record.id, from);
      from += events.length;
      const text = events.filter(keep).map(frame).join('');
      if (final) {
        yield text + DONE_FRAME;
        return;
      }
      if (text) yield text;
      if (signal.aborted) return;
      await sleep(ctx.services.conversations.pollIntervalMs, signal);
    }
  })();
  // Stored events are upstream content: they pass the secret scrubber like a live stream.
  return textStreamReply(scrubbedStream(gen, requestSecrets(ctx)), () => undefined);
}

/** GET /v1beta/interactions/{id} */
export async function getInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  const q = ctx.url.searchParams;
  if (q.get('stream') === 'true') return streamStoredInteraction(ctx, record, q.get('last_event_id') ?? undefined);
  return upstreamJsonResponse(ctx, timelineOf(record, q.get('include_input') === 'true'));
}

/** POST /v1beta/interactions/{id}/cancel: only background interactions; a finished one is returned as it is. */
export async function cancelInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  if (!record.background) throw new GatewayError('invalid_request', 'Only interactions created with background: true can be cancelled.', { param: 'id' });
  const updated = await updateRecord(ctx.services.conversations.store, record.id, (r) =>
    FINAL_STATUSES.includes(r.status) ? undefined : { ...r, status: 'cancelled', cancelRequested: true, object: { ...r.object, status: 'cancelled', updated: isoTime(ctx.services.now()) } },
  );
  ctx.services.backgroundRuns.cancelLocal(record.id);
  return upstreamJsonResponse(ctx, timelineOf(updated ?? record, false));
}

/** DELETE /v1beta/interactions/{id} (a running background interaction is stopped first; Gemini's copy is deleted too). */
export async function deleteInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  ctx.services.backgroundRuns.cancelLocal(record.id);
  await ctx.services.conversations.store.delete(record.id);
  const provider = record.upstream ? providerForCaller(ctx, record.upstream.providerId) : undefined;
  if (provider && record.upstream) await upstreamInteractionCall(ctx, provider, record.upstream.responseId, 'delete');
  return jsonResponse(ctx, {});
}
