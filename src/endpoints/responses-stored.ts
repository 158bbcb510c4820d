/**
 * Stored responses: `GET /v1/responses/{id}` (also `?stream=true[&starting_after=N]`),
 * `DELETE /v1/responses/{id}`, `POST /v1/responses/{id}/cancel`,
 * `GET /v1/responses/{id}/input_items`. A key sees only its own responses (404 otherwise).
 */
import type { ConversationRecord } from '../conversations/conversation-store.js';
import { GatewayError } from '../core/errors.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse, upstreamJsonResponse } from './common.js';
import { RESPONSES_TURNS } from './responses-encoding.js';
import { RESPONSES_API } from './responses-input.js';
import { providerForCaller, upstreamResponseCall } from './stored-upstream.js';
import { cancelStoredTurn, deleteStoredTurn, streamStoredTurn } from './stateful-turn.js';
import type { Reply } from '../reply/reply.js';
import { quoteInput } from '../core/quote-input.js';

async function ownRecord(ctx: EndpointContext, id: string): Promise<ConversationRecord> {
  const principal = await authenticate(ctx);
  const record = await ctx.services.conversations.store.get(id);
  // An interaction's id is no response's (its own routes answer it).
  if (!record || record.ownerId !== principal.id || record.api !== RESPONSES_API) throw new GatewayError('not_found', `Response with id '${quoteInput(id)}' not found.`);
  return record;
}

function idParam(params: Record<string, string>): string {
  return params.id as string;
}

function intParam(ctx: EndpointContext, name: string, min: number, max: number): number | undefined {
  const v = ctx.url.searchParams.get(name);
  if (v === null || v === '') return undefined;
  const n = Number(v);
  if (!Number.isInteger(n) || n < min || n > max) throw new GatewayError('invalid_request', `${name} must be an integer from ${min} to ${max}.`, { param: name });
  return n;
}

/** GET /v1/responses/{id} */
export async function getResponse(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownRecord(ctx, idParam(params));
  const stream = ctx.url.searchParams.get('stream');
  if (stream === 'true') {
    const startingAfter = intParam(ctx, 'starting_after', -1, Number.MAX_SAFE_INTEGER) ?? -1;
    return streamStoredTurn(ctx, record, RESPONSES_TURNS, { keep: (ev) => ev.seq > startingAfter });
  }
  return upstreamJsonResponse(ctx, record.object);
}

/** DELETE /v1/responses/{id} (a running background response is stopped first). */
export async function deleteResponse(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownRecord(ctx, idParam(params));
  await deleteStoredTurn(ctx, record);
  // A pass-through response is also stored at its upstream (OpenAI keeps it unless told store: false): deleted there too, best effort.
  const provider = record.upstream ? providerForCaller(ctx, record.upstream.providerId) : undefined;
  if (provider && record.upstream) await upstreamResponseCall(ctx, provider, record.upstream.responseId, 'delete');
  return jsonResponse(ctx, { id: record.id, object: 'response', deleted: true });
}

/** POST /v1/responses/{id}/cancel: only background responses; a finished one is returned as it is. */
export async function cancelResponse(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownRecord(ctx, idParam(params));
  if (!record.background) throw new GatewayError('invalid_request', 'Only responses created with background: true can be cancelled.', { param: 'response_id' });
  return upstreamJsonResponse(ctx, (await cancelStoredTurn(ctx, record, RESPONSES_TURNS)).object);
}

/** GET /v1/responses/{id}/input_items: cursor pages as at OpenAI (after/before item ids, limit, order). */
export async function listInputItems(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const record = await ownRecord(ctx, idParam(params));
  const q = ctx.url.searchParams;
  const order = q.get('order') ?? 'desc';
  if (order !== 'asc' && order !== 'desc') throw new GatewayError('invalid_request', "order must be 'asc' or 'desc'.", { param: 'order' });
  const limit = intParam(ctx, 'limit', 1, 100) ?? 20;
  let items = order === 'asc' ? record.inputItems : [...record.inputItems].reverse();
  const after = q.get('after');
  const before = q.get('before');
  if (after) {
    const at = items.findIndex((i) => i.id === after);
    if (at < 0) throw new GatewayError('invalid_request', `No input item with id '${after}' in this response.`, { param: 'after' });
    items = items.slice(at + 1);
  }
  if (before) {
    const at = items.findIndex((i) => i.id === before);
    if (at < 0) throw new GatewayError('invalid_request', `No input item with id '${before}' in this response.`, { param: 'before' });
    items = items.slice(Math.max(0, at - limit), at);
    const data = items;
    return jsonResponse(ctx, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: at - limit > 0 });
  }
  const data = items.slice(0, limit);
  return jsonResponse(ctx, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: items.length > limit });
}
