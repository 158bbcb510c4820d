/**
 * What every admin route shares: JSON answers, the list shape `{object: "list", data, hasMore,
 * nextCursor}` paged by `limit` and `after`, query filters (an unknown one is a 400 naming it),
 * bodies checked by zod (a 400 naming the field), and errors in the shape
 * `{error: {type, code, message, param}}` (the gateway's OpenAI error shape).
 */
import { parseInstant, rangeEndMs } from '../instant.js';
import type { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import { parseJsonObject } from '../../request/body.js';
import { Reply } from '../../reply/reply.js';
import { ReplyHeaders } from '../../reply/reply-headers.js';
import { parseOrThrow } from '../../protocols/shared/zod-error.js';
import { quoteInput } from '../../core/quote-input.js';
import type { EndpointContext } from '../../endpoints/services.js';
import type { ControlPlane } from '../control-plane.js';
import type { AdminIdentity } from './admin-auth.js';

export { conflict, notFound, pageOf, type ListPage } from '../list-page.js';

export const ADMIN_PREFIX = '/admin/v1';

export const DEFAULT_PAGE_SIZE = 20;
export const MAX_PAGE_SIZE = 100;

/**
 * Names of keys by id, for rows that name a key (requests, usage by key, top keys, tasks): a store
 * key's from the in-memory key cache (every status), a config key's is its id; null for an id no
 * key has now. No query: the cache is what the request path reads.
 */
export function keyNames(admin: { ctx: EndpointContext; control: ControlPlane }): (keyId: string) => string | null {
  const config = new Set(admin.ctx.services.config.keys.map((k) => k.id));
  return (id) => admin.control.keyCache.get(id)?.row.name ?? (config.has(id) ? id : null);
}

/** What an admin handler gets: the request, the store and who is asking. */
export interface AdminContext {
  ctx: EndpointContext;
  control: ControlPlane;
  actor: AdminIdentity;
}

export interface AdminRoute {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  /** The path template under /admin/v1 (`/keys/{id}`), as in the OpenAPI document. */
  route: string;
  /** Read routes take any admin credential; write routes a read-write one (403 otherwise); public ones none (console sign-in). */
  access: 'read' | 'write' | 'public';
  handler: (admin: AdminContext, params: Record<string, string>) => Promise<Reply>;
  /** What the OpenAPI document says of it (/admin/v1/openapi.json), from the zod schemas the route uses. */
  doc: AdminRouteDoc;
}

export interface AdminRouteDoc {
  summary: string;
  /** The JSON body it takes. */
  body?: z.ZodType;
  /** The JSON answer (a list route: the item; the list wrapper is added). */
  response?: z.ZodType;
  /** A list: `limit`, `after` and these filters. */
  list?: { filters: readonly string[] };
  /** Query parameters of a route that is not a list. */
  query?: readonly string[];
  /** The answer's status when not 200. */
  status?: number;
  /** The answer is not JSON (e.g. `text/csv`). */
  contentType?: string;
  /** Takes an Idempotency-Key header. */
  idempotent?: boolean;
}

export function adminJson(ctx: EndpointContext, body: unknown, status = 200, headers?: Record<string, string>): Reply {
  const h = new ReplyHeaders(headers);
  h.set('content-type', 'application/json');
  h.set('cache-control', 'no-store');
  return new Reply(status, h, JSON.stringify(body));
}

export interface ListQuery {
  limit: number;
  after: string | undefined;
  /** The filters given (only names from the route's list), as sent. */
  filters: Record<string, string>;
}

/**
 * `limit` (1-100, default 20), `after` (a cursor from `nextCursor`) and the route's filters; any
 * other query parameter is a 400 naming it, as is a repeated one.
 */
export function listQuery(url: Readonly<URL>, filters: readonly string[]): ListQuery {
  const out: ListQuery = { limit: DEFAULT_PAGE_SIZE, after: undefined, filters: {} };
  const seen = new Set<string>();
  for (const [name, value] of url.searchParams) {
    if (seen.has(name)) throw new GatewayError('invalid_request', `The query parameter '${quoteInput(name)}' is given more than once.`, { param: quoteInput(name) });
    seen.add(name);
    if (name === 'limit') out.limit = intParam(name, value, 1, MAX_PAGE_SIZE);
    else if (name === 'after') {
      if (!value) throw new GatewayError('invalid_request', "The query parameter 'after' is empty; pass the nextCursor of the previous page.", { param: 'after' });
      out.after = value;
    } else if (filters.includes(name)) out.filters[name] = value;
    else {
      const known = ['limit', 'after', ...filters].map((f) => `'${f}'`).join(', ');
      throw new GatewayError('invalid_request', `Unknown query parameter '${quoteInput(name)}'; this list takes ${known}.`, { param: quoteInput(name) });
    }
  }
  return out;
}

/** A whole number in [min, max] from a query parameter; a 400 naming it otherwise. */
export function intParam(name: string, value: string, min: number, max: number): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < min || n > max) {
    throw new GatewayError('invalid_request', `The query parameter '${name}' must be a whole number from ${min} to ${max}, got '${quoteInput(value, 40)}'.`, { param: name });
  }
  return n;
}

/** An instant from a query parameter (ISO 8601 instant or date, or epoch ms); a 400 naming it otherwise. */
export function timeParam(name: string, value: string): number {
  const parsed = parseInstant(value);
  if (!parsed) throw new GatewayError('invalid_request', `The query parameter '${name}' must be an ISO 8601 date (2026-11-28) or instant (2026-11-28T10:00:00Z), got '${quoteInput(value, 60)}'.`, { param: name });
  // A date as `to` includes that whole day.
  return name === 'to' ? rangeEndMs(parsed) : parsed.ms;
}

/** `from` and `to` of a list, `to` after `from` (a 400 naming `to` otherwise). */
export function timeRange(from: string | undefined, to: string | undefined): { from?: number; to?: number } {
  const out: { from?: number; to?: number } = {};
  if (from !== undefined) out.from = timeParam('from', from);
  if (to !== undefined) out.to = timeParam('to', to);
  if (out.from !== undefined && out.to !== undefined && out.to <= out.from) throw new GatewayError('invalid_request', "The query parameter 'to' must be after 'from'.", { param: 'to' });
  return out;
}

/** The path (`metadata.team`) of the first name or string in `value` holding NUL, if any. */
function nulAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path || 'body' : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [k, v] of Object.entries(value)) {
    const at = `${path}${path ? '.' : ''}${k}`;
    if (k.includes('\u0000')) return at;
    const found = nulAt(v, at);
    if (found !== undefined) return found;
  }
  return undefined;
}

/**
 * Admin input never holds NUL: no name, id or filter needs one, and PostgreSQL refuses it in text
 * (the store would fail, not the caller). A 400 naming the field or query parameter.
 */
export function refuseNul(value: unknown, kind: 'field' | 'query parameter', path = ''): void {
  const at = nulAt(value, path);
  if (at !== undefined) throw new GatewayError('invalid_request', `The ${kind} '${quoteInput(at)}' must not contain NUL characters.`, { param: quoteInput(at) });
}

/** The JSON object body checked by `schema`: a 400 naming the field otherwise. */
export async function readBody<T extends z.ZodType>(ctx: EndpointContext, schema: T): Promise<z.output<T>> {
  const text = await ctx.body.text();
  const json = parseJsonObject(text);
  refuseNul(json, 'field');
  return parseOrThrow(schema, json);
}

/** An optional JSON object body (a POST without one reads as `{}`). */
export async function readOptionalBody<T extends z.ZodType>(ctx: EndpointContext, schema: T): Promise<z.output<T>> {
  const text = await ctx.body.text();
  const json = text.trim() === '' ? {} : parseJsonObject(text);
  refuseNul(json, 'field');
  return parseOrThrow(schema, json);
}
