/** `GET /admin/v1/requests`: the usage ledger's rows, newest first, filtered and paged. */
import { GatewayError } from '../../core/errors.js';
import type { LedgerRow } from '../ledger/ledger-row.js';
import { adminJson, keyNames, listQuery, type AdminRoute } from './http.js';
import { LEDGER_FILTERS, ledgerFilter } from './ledger-query.js';
import { ledgerRowSchema } from './ledger-wire.js';

/** A row as the API answers it: the time as an ISO 8601 instant. */
export function wireRow(r: LedgerRow, keyName: (id: string) => string | null): Record<string, unknown> {
  return { ...r, keyName: keyName(r.keyId), time: new Date(r.time).toISOString() };
}

/** `<time ms>_<trace id>` of the last row of a page. */
function cursorOf(r: LedgerRow): string {
  return `${r.time}_${r.traceId}`;
}

function parseCursor(after: string): { time: number; traceId: string } {
  const m = /^(\d{1,16})_(.+)$/.exec(after);
  if (!m) throw new GatewayError('invalid_request', "The query parameter 'after' is not a cursor of this list; pass the nextCursor of the previous page.", { param: 'after' });
  return { time: Number(m[1]), traceId: m[2] as string };
}

export const REQUESTS_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/requests',
    access: 'read',
    doc: { summary: 'Usage-ledger rows, newest first (one per request whose key is known).', response: ledgerRowSchema, list: { filters: LEDGER_FILTERS } },
    handler: async (admin) => {
      const { ctx, control } = admin;
      const q = listQuery(ctx.url, LEDGER_FILTERS);
      const filter = ledgerFilter(q.filters);
      const { rows, hasMore } = await control.usage.rows(filter, { limit: q.limit, ...(q.after ? { after: parseCursor(q.after) } : {}) });
      const last = rows[rows.length - 1];
      const name = keyNames(admin);
      return adminJson(ctx, { object: 'list', data: rows.map((r) => wireRow(r, name)), hasMore, nextCursor: hasMore && last ? cursorOf(last) : null });
    },
  },
];
