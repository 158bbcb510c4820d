/**
 * Stored interactions: `GET /v1beta/interactions/{id}` (also `?stream=true[&last_event_id=…]`,
 * `?include_input=true`), `POST /v1beta/interactions/{id}/cancel`, `DELETE
 * /v1beta/interactions/{id}`. A key sees only its own interactions (404 otherwise); any gateway
 * instance sharing the store answers. GET returns the interaction's timeline: its input steps, then
 * its output steps.
 */

import type { ConversationRecord, StoredEvent } from '../conversations/conversation-store.js';
import { GatewayError } from '../core/errors.js';
import type { Json } from '../protocols/gemini-interactions/gemini-interactions-api.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, upstreamJsonResponse } from './common.js';
import { INTERACTION_TURNS } from './interactions-encoding.js';
import { INTERACTIONS_API } from './interactions-turn.js';
import { providerForCaller, upstreamInteractionCall } from './stored-upstream.js';
import { cancelStoredTurn, deleteStoredTurn, streamStoredTurn, type StreamResume } from './stateful-turn.js';
import type { Reply } from '../reply/reply.js';
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

function eventIdOf(ev: StoredEvent): string | undefined {
  try {
    const id = (JSON.parse(ev.data) as { event_id?: unknown }).event_id;
    return typeof id === 'string' ? id : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Resumes after the event with `lastEventId` (events up to and including it are dropped; all of
 * them until it is seen); 400 when a finished interaction has no such event.
 */
function resumeAfter(id: string, lastEventId: string | undefined): StreamResume {
  let skipping = lastEventId !== undefined;
  return {
    keep(ev) {
      if (!skipping) return true;
      if (eventIdOf(ev) === lastEventId) skipping = false;
      return false;
    },
    check(events) {
      if (lastEventId !== undefined && !events.some((ev) => eventIdOf(ev) === lastEventId)) {
        throw new GatewayError('invalid_request', `The interaction '${id}' has no event with id '${lastEventId}'.`, { param: 'last_event_id' });
      }
    },
  };
}

/** GET /v1beta/interactions/{id} */
export async function getInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  const q = ctx.url.searchParams;
  if (q.get('stream') === 'true') return streamStoredTurn(ctx, record, INTERACTION_TURNS, resumeAfter(record.id, q.get('last_event_id') ?? undefined));
  return upstreamJsonResponse(ctx, timelineOf(record, q.get('include_input') === 'true'));
}

/** POST /v1beta/interactions/{id}/cancel: only background interactions; a finished one is returned as it is. */
export async function cancelInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  if (!record.background) throw new GatewayError('invalid_request', 'Only interactions created with background: true can be cancelled.', { param: 'id' });
  return upstreamJsonResponse(ctx, timelineOf(await cancelStoredTurn(ctx, record, INTERACTION_TURNS), false));
}

/** DELETE /v1beta/interactions/{id} (a running background interaction is stopped first; Gemini's copy is deleted too). */
export async function deleteInteraction(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownInteraction(ctx, params);
  await deleteStoredTurn(ctx, record);
  const provider = record.upstream ? providerForCaller(ctx, record.upstream.providerId) : undefined;
  if (provider && record.upstream) await upstreamInteractionCall(ctx, provider, record.upstream.responseId, 'delete');
  return jsonResponse(ctx, {});
}
