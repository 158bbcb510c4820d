/**
 * `GET /admin/v1/usage`: summaries from the daily rollups, one bucket per day, key, model or
 * provider (`groupBy`, default day; from/to select whole UTC days). `GET /admin/v1/usage/export`:
 * the ledger rows matching the filters as CSV, streamed oldest first.
 */
import { GatewayError } from '../../core/errors.js';
import { Reply } from '../../reply/reply.js';
import { ReplyHeaders } from '../../reply/reply-headers.js';
import { quoteInput } from '../../core/quote-input.js';
import { CSV_HEADER, csvLines } from '../ledger/ledger-csv.js';
import type { UsageGroup } from '../ledger/ledger-rollup.js';
import { adminJson, keyNames, listQuery, pageOf, type AdminRoute } from './http.js';
import { LEDGER_FILTERS, ledgerFilter } from './ledger-query.js';
import { usageBucketSchema } from './ledger-wire.js';

const GROUPS: readonly UsageGroup[] = ['day', 'key', 'model', 'provider'];

function groupParam(value: string | undefined): UsageGroup {
  if (value === undefined) return 'day';
  if ((GROUPS as readonly string[]).includes(value)) return value as UsageGroup;
  throw new GatewayError('invalid_request', `The query parameter 'groupBy' must be one of ${GROUPS.map((g) => `'${g}'`).join(', ')}, got '${quoteInput(value, 40)}'.`, { param: 'groupBy' });
}

const EXPORT_BATCH = 1000;

export const USAGE_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/usage',
    access: 'read',
    doc: { summary: 'Usage summed from the daily rollups, one bucket per day, key, model or provider (groupBy); from/to select whole UTC days.', response: usageBucketSchema, list: { filters: [...LEDGER_FILTERS, 'groupBy'] } },
    handler: async (admin) => {
      const { ctx, control } = admin;
      const q = listQuery(ctx.url, [...LEDGER_FILTERS, 'groupBy']);
      const { groupBy: rawGroup, ...filters } = q.filters;
      const groupBy = groupParam(rawGroup);
      const summed = await control.usage.usage({ ...ledgerFilter(filters), groupBy });
      const name = keyNames(admin);
      const buckets = groupBy === 'key' ? summed.map((b) => ({ ...b, keyName: name(b.bucket) })) : summed;
      // Buckets come sorted: a page continues after the last bucket of the page before.
      const after = q.after;
      const rest = after === undefined ? buckets : buckets.filter((b) => b.bucket > after);
      return adminJson(ctx, pageOf(rest.slice(0, q.limit + 1), q.limit, (b) => b.bucket));
    },
  },
  {
    method: 'GET',
    route: '/usage/export',
    access: 'read',
    doc: { summary: 'The ledger rows matching the filters as CSV (RFC 4180), oldest first.', query: LEDGER_FILTERS, contentType: 'text/csv' },
    handler: async ({ ctx, control }) => {
      for (const name of ['limit', 'after']) {
        if (ctx.url.searchParams.has(name)) throw new GatewayError('invalid_request', `The export is not paged: '${name}' is not taken here; narrow it with from/to instead.`, { param: name });
      }
      const q = listQuery(ctx.url, LEDGER_FILTERS);
      const filter = ledgerFilter(q.filters);
      const rows = control.usage.scan(filter, EXPORT_BATCH);
      const encoder = new TextEncoder();
      let headerSent = false;
      const body = new ReadableStream<Uint8Array>(
        {
          async pull(controller) {
            if (!headerSent) {
              headerSent = true;
              controller.enqueue(encoder.encode(CSV_HEADER));
              return;
            }
            try {
              const next = await rows.next();
              if (next.done) controller.close();
              else controller.enqueue(encoder.encode(csvLines(next.value)));
            } catch (err) {
              controller.error(err);
            }
          },
          async cancel() {
            await rows.return(undefined);
          },
        },
        { highWaterMark: 0 },
      );
      const name = `modelgate-usage${filter.from !== undefined ? `-from-${new Date(filter.from).toISOString().slice(0, 10)}` : ''}${filter.to !== undefined ? `-to-${new Date(filter.to - 1).toISOString().slice(0, 10)}` : ''}.csv`;
      const headers = new ReplyHeaders({ 'content-type': 'text/csv; charset=utf-8', 'content-disposition': `attachment; filename="${name}"`, 'cache-control': 'no-store' });
      return new Reply(200, headers, body);
    },
  },
];
