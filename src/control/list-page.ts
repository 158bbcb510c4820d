/**
 * What the control plane's services answer with: list pages (`{object: "list", data, hasMore,
 * nextCursor}`, paged by cursor) and the errors of a missing or conflicting record. The admin API
 * (admin/http.ts) sends them as they are.
 */
import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';

export interface ListPage<T> {
  object: 'list';
  data: T[];
  hasMore: boolean;
  nextCursor: string | null;
}

/** `rows` fetched with limit + 1: the page, whether more follow, and the cursor of the next page. */
export function pageOf<T>(rows: T[], limit: number, cursorOf: (row: T) => string): ListPage<T> {
  const hasMore = rows.length > limit;
  const data = hasMore ? rows.slice(0, limit) : rows;
  const last = data[data.length - 1];
  return { object: 'list', data, hasMore, nextCursor: hasMore && last !== undefined ? cursorOf(last) : null };
}

export function notFound(what: string, id: string): GatewayError {
  return new GatewayError('not_found', `No ${what} with id '${quoteInput(id, 80)}'.`, { param: 'id', detail: 'not_found' });
}

export function conflict(message: string, detail = 'conflict'): GatewayError {
  return new GatewayError('conflict', message, { detail });
}
