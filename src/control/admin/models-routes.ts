/**
 * What the gateway serves, for the console's Models page: `GET /admin/v1/providers` (the configured
 * vendors: id, type, chat protocol, base URL without credentials) and `GET /admin/v1/models` (each
 * configured model with its capabilities, prices, fallbacks and deployments, and each deployment's
 * circuit state on this instance: closed, open (cooling down until `cooldownUntil`) or probe).
 * Both are paged by id like every admin list; no answer holds an upstream key.
 */
import { z } from 'zod';
import type { ResolvedModel } from '../../routing/model-registry.js';
import type { EndpointContext } from '../../endpoints/services.js';
import { adminJson, listQuery, pageOf, type AdminRoute } from './http.js';

export const providerEntrySchema = z.object({
  object: z.literal('provider'),
  id: z.string(),
  type: z.string(),
  chatProtocol: z.string(),
  baseURL: z.string().nullable().describe('Without user info or query (no credentials)'),
  models: z.number().int().describe('Configured models with a deployment on it'),
});

export const modelEntrySchema = z.object({
  object: z.literal('model'),
  id: z.string(),
  capabilities: z.array(z.string()),
  ownedBy: z.string(),
  fallbacks: z.array(z.string()),
  pricing: z.object({ inputPerMTok: z.number(), outputPerMTok: z.number(), cachedInputPerMTok: z.number().optional(), perVideoSecond: z.number().optional() }).nullable(),
  deployments: z.array(
    z.object({
      provider: z.string(),
      upstreamModel: z.string(),
      weight: z.number(),
      state: z.enum(['closed', 'open', 'probe']).describe("This instance's circuit: open = cooling down"),
      failures: z.number().int(),
      cooldownUntil: z.string().nullable(),
    }),
  ),
});

function publicBaseURL(raw: string | undefined): string | null {
  if (!raw) return null;
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return null;
  }
}

function wireModel(ctx: EndpointContext, m: ResolvedModel): Record<string, unknown> {
  return {
    object: 'model',
    id: m.id,
    capabilities: m.capabilities,
    ownedBy: m.ownedBy,
    fallbacks: m.fallbacks,
    pricing: m.pricing ?? null,
    deployments: m.deployments.map((d) => {
      const h = ctx.services.health.describe(ctx.services.health.keyOf(d));
      return { provider: d.provider.id, upstreamModel: d.upstreamModel, weight: d.weight, state: h.state, failures: h.failures, cooldownUntil: h.cooldownUntil ? new Date(h.cooldownUntil).toISOString() : null };
    }),
  };
}

const byId = <T extends { id: string }>(a: T, b: T): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

export const MODELS_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/providers',
    access: 'read',
    doc: { summary: 'The configured providers, by id (never their keys).', response: providerEntrySchema, list: { filters: [] } },
    handler: async ({ ctx }) => {
      const q = listQuery(ctx.url, []);
      const models = ctx.services.models.list();
      const all = ctx.services.config.providers
        .map((p) => ({ object: 'provider' as const, id: p.id, type: p.type, chatProtocol: ctx.services.providers.get(p.id)?.chatProtocol ?? '', baseURL: publicBaseURL(p.baseURL), models: models.filter((m) => m.deployments.some((d) => d.provider.id === p.id)).length }))
        .sort(byId);
      const after = q.after;
      const rest = after === undefined ? all : all.filter((p) => p.id > after);
      return adminJson(ctx, pageOf(rest.slice(0, q.limit + 1), q.limit, (p) => p.id));
    },
  },
  {
    method: 'GET',
    route: '/models',
    access: 'read',
    doc: { summary: 'The configured models by id, with prices and deployments (their circuit state on this instance).', response: modelEntrySchema, list: { filters: ['provider', 'search'] } },
    handler: async ({ ctx }) => {
      const q = listQuery(ctx.url, ['provider', 'search']);
      const { provider, search } = q.filters;
      const needle = search?.toLowerCase();
      const after = q.after;
      const matching = ctx.services.models
        .list()
        .filter((m) => (provider === undefined || m.deployments.some((d) => d.provider.id === provider)) && (needle === undefined || m.id.toLowerCase().includes(needle)) && (after === undefined || m.id > after))
        .sort(byId);
      const page = pageOf(matching.slice(0, q.limit + 1), q.limit, (m) => m.id);
      return adminJson(ctx, { ...page, data: page.data.map((m) => wireModel(ctx, m)) });
    },
  },
];
