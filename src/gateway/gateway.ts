import type { GatewayConfigInput } from '../config/schema.js';
import { errorResponse, scrubError } from '../endpoints/common.js';
import { requestBody } from '../request/body.js';
import { isStreamed, Reply, toResponse, withoutBody } from '../reply/reply.js';
import { releaseRequest } from '../limits/request-lease.js';
import { carriesBody, checkBodyHeaders, checkHost, FIXED_ORIGIN } from '../request/guards.js';
import { requestURLCache } from '../request/url-cache.js';
import { ROUTES, shapeForPath, type Route } from '../endpoints/routes.js';
import { GatewayError, toGatewayError } from '../core/errors.js';
import { applyRoutingHeaders } from '../routing/attempts.js';
import { applyLimitHeaders } from '../limits/limit-headers.js';
import type { GatewayOptions, HandleContext } from './options.js';
import type { BridgeContext, GatewayBridge } from './bridge.js';
import type { EndpointContext } from '../endpoints/services.js';
import { createServices } from './services.js';
import { quoteInput } from '../core/quote-input.js';
import { escapeControls } from '../routing/model-id.js';
import { GatewayRequestContext } from './request-context.js';
import { mountAdminRoutes } from '../control/admin/admin-router.js';
import { consoleRoutes } from '../console/console-routes.js';

export interface Gateway {
  /** Serves one request: a Fetch-API Request in, a Response out. Never throws. */
  handle(request: Request, context?: HandleContext): Promise<Response>;
  /** Whether a path (without any mount prefix) is one of the gateway's routes; adapters pass others on. */
  matches(pathname: string): boolean;
  /**
   * For host bridges only (adapters/: see GatewayBridge in gateway/bridge.ts); an application
   * serves with handle(). A wrapper that leaves it out is served through handle().
   */
  readonly bridge?: GatewayBridge;
  /** Stops background work (the video poller, background runs) and waits for what is in flight. */
  close(): Promise<void>;
}

/** Named groups of a route match, percent-decoded; a malformed escape (`/v1/models/%`) or a NUL is the caller's 400. */
function pathParams(m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  if (!m.groups) return params;
  for (const [k, v] of Object.entries(m.groups)) {
    if (v === undefined) continue;
    let decoded: string;
    try {
      decoded = decodeURIComponent(v);
    } catch {
      throw new GatewayError('invalid_request', `Malformed percent-encoding in the path parameter '${k}'.`, { param: k });
    }
    // No id holds one, and PostgreSQL refuses it in text: the caller's 400, not the store's failure.
    if (decoded.includes('\u0000')) {
      throw new GatewayError('invalid_request', `The path parameter '${k}' must not contain NUL characters: '${quoteInput(escapeControls(decoded))}'.`, { param: k });
    }
    params[k] = decoded;
  }
  return params;
}

/** Longest `Request-Id` echoed and recorded (UUIDs, ULIDs and trace ids are far shorter). */
const MAX_REQUEST_ID_LENGTH = 200;

export function createGateway(config: GatewayConfigInput, options: GatewayOptions = {}): Gateway & { readonly bridge: GatewayBridge } {
  const rt = createServices(config, options);
  // The admin API exists only with a store and an admin credential (otherwise its paths are 404s).
  const routes: readonly Route[] = rt.admin ? [...ROUTES, ...mountAdminRoutes(), ...consoleRoutes()] : ROUTES;
  // A GET route answers HEAD too (its status and headers, no body).
  const methodsOn = (path: string): string[] => [...new Set(routes.filter((r) => r.pattern.test(path)).flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method])))];
  const cachedRequestURL = requestURLCache();
  let closed = false;

  async function reply(request: Request, context: BridgeContext = {}): Promise<Reply> {
    const startedAt = rt.now();
    const parsedUrl = cachedRequestURL(request.url);
    const url = parsedUrl ?? new URL(`${FIXED_ORIGIN}/`);
    const path = url.pathname;
    const traceId = rt.newId();
    // A caller's request id is echoed and stored: one longer than any id scheme is ignored.
    const givenId = request.headers.get('request-id');
    const requestId = givenId !== null && givenId.length <= MAX_REQUEST_ID_LENGTH ? givenId : undefined;
    const event: EndpointContext['event'] = { traceId, method: request.method, path, endpoint: 'unknown' };
    if (requestId) event.requestId = requestId;
    const body = requestBody(request, context, rt.config.limits.maxBodyBytes);
    const ctx: EndpointContext = new GatewayRequestContext(rt, request, url, traceId, requestId, startedAt, context, body, event, shapeForPath(path));
    let response: Reply;
    try {
      if (closed) throw new GatewayError('unavailable', 'The gateway is shutting down.');
      if (!parsedUrl) throw new GatewayError('invalid_request', 'Malformed request URL.');
      response = await route(ctx, path, carriesBody(request, context));
      if (request.method === 'HEAD') response = withoutBody(response);
    } catch (err) {
      const gerr = toGatewayError(err);
      response = errorResponse(ctx, gerr);
      if (gerr.code === 'method_not_allowed') response.headers.set('allow', methodsOn(path).join(', '));
      ctx.obs.report({ error: { code: gerr.detail === 'insufficient_quota' ? 'insufficient_quota' : gerr.code, message: scrubError(ctx, gerr).message } });
    }
    applyLimitHeaders(ctx.limits, response.headers, rt.now());
    applyRoutingHeaders(ctx, response.headers);
    response.headers.set('x-trace-id', traceId);
    if (requestId) response.headers.set('request-id', requestId);
    return answered(ctx, response);
  }

  /**
   * The one place a request's limits lease is released, for every route: once its answer is over
   * (a streamed one when it ends, fails or the client leaves). A lease a background run took over
   * is the runner's to release.
   */
  function answered(ctx: EndpointContext, response: Reply): Reply | Promise<Reply> {
    const limits = ctx.limits;
    // Most requests hold no lease: no promise, no closure.
    if (!limits?.lease || limits.heldByRun) return ctx.obs.observe(response);
    if (isStreamed(response.body)) return ctx.obs.observe(response, () => void releaseRequest(limits));
    return (releaseRequest(limits) ?? Promise.resolve()).then(() => ctx.obs.observe(response));
  }

  /** Host, route, method and body headers are all checked here, before a handler authenticates or reads. */
  async function route(ctx: EndpointContext, path: string, hasBody: boolean): Promise<Reply> {
    checkHost(ctx.request.headers);
    let pathMatched = false;
    for (const r of routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (!pathMatched && typeof r.errorShape === 'string') ctx.errorShape = r.errorShape;
      pathMatched = true;
      if (r.method !== (ctx.request.method === 'HEAD' ? 'GET' : ctx.request.method)) continue;
      ctx.errorShape = typeof r.errorShape === 'function' ? r.errorShape(ctx) : r.errorShape;
      ctx.event.endpoint = `${r.method} ${r.route}`;
      ctx.event.route = r.route;
      if (hasBody) checkBodyHeaders(ctx.request.headers, r.bodyKinds ?? ['json']);
      return r.handler(ctx, pathParams(m));
    }
    if (pathMatched) throw new GatewayError('method_not_allowed', `Method ${quoteInput(ctx.request.method)} is not allowed on ${quoteInput(path)}.`);
    throw new GatewayError('not_found', `No route for ${quoteInput(ctx.request.method)} ${quoteInput(path)}.`, { detail: 'unknown_route' });
  }

  const handle = async (request: Request, context?: BridgeContext): Promise<Response> => toResponse(await reply(request, context));
  return {
    handle,
    bridge: { handle, reply },
    matches: (pathname) => routes.some((r) => r.pattern.test(pathname)),
    async close() {
      if (closed) return;
      closed = true;
      await Promise.allSettled([rt.videoTasks.stop(), rt.backgroundRuns.stop()]);
      // After the background work: its last rows are queued too, then every queued row is written.
      await options.ledger?.close?.();
    },
  };
}
