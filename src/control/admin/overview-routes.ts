/**
 * The console's overview: `GET /admin/v1/overview/series` (requests, errors, tokens and spend per
 * hour over 24 h or 7 d, per day over 30 d, from the rollups), `GET /admin/v1/overview/top` (the
 * models or keys with the most requests in the window) and `GET /admin/v1/instances` (the
 * instances sharing the store and their health, from their heartbeats).
 */
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import { quoteInput } from '../../core/quote-input.js';
import type { OverviewWindow } from '../ledger/ledger-hourly.js';
import { adminJson, intParam, keyNames, listQuery, type AdminRoute } from './http.js';

const WINDOWS: readonly OverviewWindow[] = ['24h', '7d', '30d'];

/** The query's parameters, each once and each one of `allowed` (a 400 naming it otherwise). */
function params(url: Readonly<URL>, allowed: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of url.searchParams) {
    if (!allowed.includes(name)) throw new GatewayError('invalid_request', `Unknown query parameter '${quoteInput(name)}'; this route takes ${allowed.map((a) => `'${a}'`).join(', ')}.`, { param: quoteInput(name) });
    if (name in out) throw new GatewayError('invalid_request', `The query parameter '${quoteInput(name)}' is given more than once.`, { param: quoteInput(name) });
    out[name] = value;
  }
  return out;
}

function windowParam(value: string | undefined): OverviewWindow {
  if (value === undefined) return '24h';
  if ((WINDOWS as readonly string[]).includes(value)) return value as OverviewWindow;
  throw new GatewayError('invalid_request', `The query parameter 'window' must be one of '24h', '7d', '30d', got '${quoteInput(value, 40)}'.`, { param: 'window' });
}

const int = z.number().int();

export const seriesSchema = z.object({
  object: z.literal('series'),
  window: z.enum(['24h', '7d', '30d']),
  step: z.enum(['hour', 'day']),
  points: z.array(z.object({ time: z.string(), requests: int, errors: int, inputTokens: int, outputTokens: int, costUsd: z.number(), avgLatencyMs: int.nullable() })),
});

export const topSchema = z.object({
  object: z.literal('top'),
  by: z.enum(['model', 'key']),
  window: z.enum(['24h', '7d', '30d']),
  data: z.array(z.object({ id: z.string(), name: z.string().nullable().optional().describe("by=key: the key's name (null: no key has this id now)"), requests: int, errors: int, inputTokens: int, outputTokens: int, costUsd: z.number() })),
});

export const instanceSchema = z.object({
  object: z.literal('instance'),
  id: z.string(),
  name: z.string(),
  startedAt: z.string(),
  lastSeenAt: z.string(),
  health: z.enum(['healthy', 'degraded', 'stale']),
  reason: z.string(),
  stats: z.object({ ledger: z.object({ queued: int, written: int, dropped: int, failures: int, timeouts: int }) }),
});

export const OVERVIEW_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/overview/series',
    access: 'read',
    doc: { summary: 'Requests, errors, tokens and spend over time: per hour for window=24h or 7d, per day for 30d (every bucket, zeros included).', query: ['window', 'keyId', 'model'], response: seriesSchema },
    handler: async ({ ctx, control }) => {
      const p = params(ctx.url, ['window', 'keyId', 'model']);
      const window = windowParam(p.window);
      const points = await control.overview.series(window, control.now(), { ...(p.keyId ? { keyId: p.keyId } : {}), ...(p.model !== undefined ? { model: p.model } : {}) });
      return adminJson(ctx, { object: 'series', window, step: window === '30d' ? 'day' : 'hour', points: points.map((pt) => ({ ...pt, time: new Date(pt.time).toISOString() })) });
    },
  },
  {
    method: 'GET',
    route: '/overview/top',
    access: 'read',
    doc: { summary: 'The models or keys (by) with the most requests in the window, at most limit (1-50, default 10).', query: ['by', 'window', 'limit'], response: topSchema },
    handler: async ({ ctx, control }) => {
      const p = params(ctx.url, ['by', 'window', 'limit']);
      const by = p.by ?? 'model';
      if (by !== 'model' && by !== 'key') throw new GatewayError('invalid_request', `The query parameter 'by' must be 'model' or 'key', got '${quoteInput(by, 40)}'.`, { param: 'by' });
      const window = windowParam(p.window);
      const limit = p.limit === undefined ? 10 : intParam('limit', p.limit, 1, 50);
      const top = await control.overview.top(by, window, control.now(), limit);
      const name = keyNames({ ctx, control });
      return adminJson(ctx, { object: 'top', by, window, data: by === 'key' ? top.map((t) => ({ ...t, name: name(t.id) })) : top });
    },
  },
  {
    method: 'GET',
    route: '/instances',
    access: 'read',
    doc: { summary: 'The instances sharing this store (seen in the last day), latest heartbeat first, with their health.', response: instanceSchema, list: { filters: [] } },
    handler: async ({ ctx, control }) => {
      const q = listQuery(ctx.url, []);
      let after: { lastSeenAt: number; id: string } | undefined;
      if (q.after !== undefined) {
        const m = /^(\d{1,16})_(inst_[0-9a-z]{26})$/.exec(q.after);
        if (!m) throw new GatewayError('invalid_request', "The query parameter 'after' is not a cursor of this list; pass the nextCursor of the previous page.", { param: 'after' });
        after = { lastSeenAt: Number(m[1]), id: m[2] as string };
      }
      const page = await control.instances.list(q.limit, after);
      return adminJson(ctx, { object: 'list', data: page.entries, hasMore: page.hasMore, nextCursor: page.cursor });
    },
  },
];
