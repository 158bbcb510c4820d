/**
 * The admin API under /admin/v1: every resource's routes (one file each), mounted in the gateway's
 * router so every host and mount prefix serves them. They exist only when an admin credential is
 * configured (otherwise 404 like any unknown path); each one checks the caller's admin access first.
 */
import type { Reply } from '../../reply/reply.js';
import type { EndpointContext } from '../../endpoints/services.js';
import { redact } from '../../core/redact.js';
import { GatewayError } from '../../core/errors.js';
import { ADMIN_PREFIX, refuseNul, type AdminRoute } from './http.js';
import { KEY_ROUTES } from './keys-routes.js';
import { AUDIT_ROUTES } from './audit-routes.js';
import { REQUESTS_ROUTES } from './requests-routes.js';
import { TASKS_ROUTES } from './tasks-routes.js';
import { USAGE_ROUTES } from './usage-routes.js';
import { SESSION_ROUTES } from './session-routes.js';
import { OVERVIEW_ROUTES } from './overview-routes.js';
import { MODELS_ROUTES } from './models-routes.js';
import { openApiDocument } from './openapi.js';
import { adminJson } from './http.js';

/** Each resource's routes; a new resource adds one line. */
const RESOURCES: ReadonlyArray<readonly AdminRoute[]> = [
  KEY_ROUTES,
  AUDIT_ROUTES,
  USAGE_ROUTES,
  REQUESTS_ROUTES,
  TASKS_ROUTES,
  SESSION_ROUTES,
  OVERVIEW_ROUTES,
  MODELS_ROUTES,
];

const RESOURCE_ROUTES: readonly AdminRoute[] = RESOURCES.flat();

/** The OpenAPI document of every admin route (itself included). */
const OPENAPI_ROUTE: AdminRoute = {
  method: 'GET',
  route: '/openapi.json',
  access: 'read',
  doc: { summary: 'This document: the OpenAPI 3.1 description of the admin API.' },
  handler: async ({ ctx }) => adminJson(ctx, openApiDocument(ADMIN_ROUTES)),
};

export const ADMIN_ROUTES: readonly AdminRoute[] = [...RESOURCE_ROUTES, OPENAPI_ROUTE];

/** The gateway's view of an admin route (the same shape as src/endpoints/routes.ts's Route). */
export interface MountedAdminRoute {
  method: string;
  route: string;
  pattern: RegExp;
  errorShape: 'openai';
  handler: (ctx: EndpointContext, params: Record<string, string>) => Promise<Reply>;
}

function patternOf(template: string): RegExp {
  const escaped = (ADMIN_PREFIX + template).replace(/[.+^$()|[\]\\]/g, '\\$&').replace(/\{(\w+)\}/g, (_m, name: string) => `(?<${name}>[^/]+)`);
  return new RegExp(`^${escaped}$`);
}

/** The admin routes as gateway routes: admin authentication and access, then the handler. */
export function mountAdminRoutes(routes: readonly AdminRoute[] = ADMIN_ROUTES): MountedAdminRoute[] {
  return routes.map((r) => ({
    method: r.method,
    route: ADMIN_PREFIX + r.route,
    pattern: patternOf(r.route),
    errorShape: 'openai',
    handler: async (ctx, params) => {
      const { admin, control } = ctx.services;
      if (!admin || !control) throw new GatewayError('not_found', 'No such route.', { detail: 'unknown_route' });
      try {
        // A public route (the console's sign-in) acts for nobody until it has checked the admin key itself.
        const actor = r.access === 'public' ? { id: 'anonymous', access: 'read' as const } : await admin.authorize(ctx, r.access);
        for (const [name, value] of ctx.url.searchParams) refuseNul(name.includes('\u0000') ? name : value, 'query parameter', name);
        return await r.handler({ ctx, control, actor }, params);
      } catch (err) {
        throw storeFailure(err);
      }
    },
  }));
}

const NETWORK_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/**
 * The database failing under an admin call (unreachable, a corrupt or locked file, a dead
 * connection) is a 503 naming the store, with Retry-After, not an "internal error": the operator
 * learns what is wrong, and the console says so. Anything else passes unchanged.
 */
function storeFailure(err: unknown): unknown {
  if (err instanceof GatewayError || !(err instanceof Error)) return err;
  const code = String((err as { code?: unknown }).code ?? '');
  const fromStore =
    err.name === 'SqliteError' ||
    code.startsWith('SQLITE_') ||
    /^[0-9A-Z]{5}$/.test(code) || // a PostgreSQL SQLSTATE
    NETWORK_CODES.has(code) ||
    /connection terminated|timeout exceeded when trying to connect|did not answer within|not a database|database is locked|connection error/i.test(err.message);
  if (!fromStore) return err;
  return new GatewayError('unavailable', `The store (database) could not be used: ${redact(err.message)}. Try again shortly.`, { retryAfter: 1, detail: 'store_unavailable', cause: err });
}
