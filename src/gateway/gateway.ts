import { DEFAULT_STORE_TIMEOUT_MS, withStoreDeadline } from '../core/store-deadline.js';
import { KeyStore } from '../auth/key-store.js';
import { interpolateEnv, parseConfig } from '../config/load.js';
import type { GatewayConfigInput } from '../config/schema.js';
import { errorResponse, scrubError } from '../endpoints/common.js';
import { requestBody } from '../request/body.js';
import { Reply, toResponse } from '../reply/reply.js';
import { carriesBody, checkBodyHeaders, checkHost, FIXED_ORIGIN } from '../request/guards.js';
import { cachedRequestURL } from '../request/url-cache.js';
import { ROUTES, shapeForPath, type Route } from '../endpoints/routes.js';
import { GatewayError, toGatewayError } from '../core/errors.js';
import { Telemetry } from '../observability/telemetry.js';
import { followClientGone } from '../upstream/call.js';
import { createProvider } from '../providers/registry.js';
import type { Provider } from '../providers/types.js';
import { ModelRegistry } from '../routing/model-registry.js';
import { DeploymentHealth } from '../routing/deployment-health.js';
import { applyRoutingHeaders } from '../routing/attempts.js';
import { MemoryRateLimiter, type RateLimiter } from '../limits/rate-limiter.js';
import { GuardedRateLimiter } from '../limits/guarded-rate-limiter.js';
import { applyLimitHeaders } from '../limits/limit-headers.js';
import { DEFAULT_CONVERSATION_MAX_ENTRIES, DEFAULT_CONVERSATION_TTL_MS } from '../conversations/conversation-store.js';
import { MemoryConversationStore } from '../conversations/memory-conversation-store.js';
import { MemoryTaskStore } from '../tasks/memory-task-store.js';
import { VideoTaskService } from '../tasks/video/video-service.js';
import { BackgroundRuns } from '../conversations/background-runs.js';
import { MemoryResponseCache } from '../cache/memory-response-cache.js';
import type { GatewayOptions, GatewayRuntime, HandleContext, RequestContext } from './options.js';
import { quoteInput } from '../core/quote-input.js';
import { GatewayRequestContext } from '../request/context.js';
import { ledgerOf } from '../control/ledger/ledger-recorder.js';
import { AdminAuth } from '../control/admin/admin-auth.js';
import { mountAdminRoutes } from '../control/admin/admin-router.js';

export interface Gateway {
  /** Serves one request: a Fetch-API Request in, a Response out. Never throws. */
  handle(request: Request, context?: HandleContext): Promise<Response>;
  /**
   * Like handle(), for host bridges that write to a socket themselves: the answer as a Reply
   * (status, headers, and a text, bytes, byte stream or text stream body) that has not been made
   * into a Response. Never throws.
   */
  reply(request: Request, context?: HandleContext): Promise<Reply>;
  /** Whether a path (without any mount prefix) is one of the gateway's routes; adapters pass others on. */
  matches(pathname: string): boolean;
  /** Stops background work (the video poller, background runs) and waits for what is in flight. */
  close(): Promise<void>;
}

function defaultEnv(): Record<string, string | undefined> | undefined {
  const proc = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process;
  return proc?.env;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));
/** Random bytes drawn from the platform CSPRNG 4 KiB at a time (as Node's randomUUID does), 16 per id. */
const idPool = new Uint8Array(4096);
let idAt = idPool.length;

/** 32 random hex digits (128 bits), the shape randomUUID() without dashes had, at a third of its cost. */
function defaultId(): string {
  if (idAt + 16 > idPool.length) {
    crypto.getRandomValues(idPool);
    idAt = 0;
  }
  let id = '';
  for (let i = idAt; i < idAt + 16; i++) id += HEX[idPool[i] as number];
  idAt += 16;
  return id;
}

/** Builds the runtime shared by every request; throws ConfigError listing every bad field. */
export function createRuntime(config: GatewayConfigInput, options: GatewayOptions = {}): GatewayRuntime {
  // `env: false`: the config's values are final (already interpolated, e.g. by a CLI that read a file).
  const env = options.env === false ? undefined : (options.env ?? defaultEnv());
  const interpolated = env ? interpolateEnv(config, env) : config;
  const cfg = parseConfig(interpolated);
  const now = options.now ?? Date.now;
  const fetchImpl = options.fetch ?? ((input, init) => fetch(input, init));
  const idGen = options.newId ?? defaultId;
  const providers = new Map<string, Provider>();
  for (const p of cfg.providers) {
    providers.set(p.id, createProvider(p, { fetch: fetchImpl, now, defaultTimeoutMs: cfg.timeouts.upstreamMs }));
  }
  const secrets = [
    ...cfg.providers.flatMap((p) => (p.apiKey ? [p.apiKey] : [])),
    ...cfg.keys.map((k) => k.key),
    ...cfg.keys.flatMap((k) => Object.values(k.providerKeys ?? {})),
    ...cfg.admin.keys.map((k) => k.key),
  ];
  const admin = new AdminAuth(cfg.admin.keys, options.authorizeAdmin);
  // A given store is shared (Redis): every call gets a deadline, a failure is a 503.
  const storeTimeoutMs = options.storeTimeoutMs ?? DEFAULT_STORE_TIMEOUT_MS;
  const conversations = {
    store: options.conversationStore
      ? withStoreDeadline(options.conversationStore, 'response store', storeTimeoutMs)
      : new MemoryConversationStore(now, options.conversations?.maxEntries ?? DEFAULT_CONVERSATION_MAX_ENTRIES),
    ttlMs: options.conversations?.ttlMs ?? DEFAULT_CONVERSATION_TTL_MS,
    pollIntervalMs: options.conversations?.pollIntervalMs ?? 250,
    cancelCheckMs: options.conversations?.cancelCheckMs ?? 1000,
  };
  const newId = (prefix = '') => `${prefix}${idGen()}`;
  // The control plane's task records are the task center's: they are the store unless the host gives one.
  const givenTasks = options.taskStore ?? options.control?.tasks;
  const taskStore = givenTasks ? withStoreDeadline(givenTasks, 'task store', storeTimeoutMs) : new MemoryTaskStore(now);
  const ledger = options.ledger ?? options.control?.ledger;
  const models = new ModelRegistry(cfg, providers, Math.floor(now() / 1000));
  const telemetry = new Telemetry(options.telemetry);
  const rt: GatewayRuntime = {
    config: cfg,
    keys: new KeyStore(cfg.keys),
    models,
    providers,
    fetch: fetchImpl,
    now,
    newId,
    random: options.random ?? Math.random,
    health: new DeploymentHealth(cfg.cooldown, now),
    hooks: options.hooks ?? {},
    telemetry,
    ...(options.authenticate ? { authenticate: options.authenticate } : {}),
    rateLimiter: rateLimiterOf(options, cfg.rateLimitStore, now),
    conversations,
    secrets,
    videoTasks: new VideoTaskService({
      config: cfg,
      providers,
      fetch: fetchImpl,
      now,
      newId,
      secrets,
      store: taskStore,
      onStatusChange: (task, _from, to) => telemetry.videoTaskState(to, { model: task.data.model, providerId: task.data.providerId }),
      ...(options.video ? { options: options.video } : {}),
    }),
    backgroundRuns: new BackgroundRuns({ conversations }),
    tasksInStore: !options.taskStore && options.control !== undefined,
    ...(ledger ? { ledger: ledgerOf(ledger, now) } : {}),
    ...(options.control ? { control: options.control } : {}),
    ...(options.control && admin.enabled ? { admin } : {}),
    logger: options.logger ?? console,
    cache: { store: options.responseCache ?? new MemoryResponseCache(now, options.responseCacheMaxBytes), timeoutMs: storeTimeoutMs },
  };
  // An instance that can make videos polls from the start, so it also advances tasks other
  // instances created; otherwise the poller starts on first use.
  if (models.list().some((m) => m.capabilities.includes('video'))) rt.videoTasks.start();
  return rt;
}

/** Named groups of a route match, percent-decoded; a malformed escape (`/v1/models/%`) is the caller's 400. */
function pathParams(m: RegExpExecArray): Record<string, string> {
  const params: Record<string, string> = {};
  if (!m.groups) return params;
  for (const [k, v] of Object.entries(m.groups)) {
    if (v === undefined) continue;
    try {
      params[k] = decodeURIComponent(v);
    } catch {
      throw new GatewayError('invalid_request', `Malformed percent-encoding in the path parameter '${k}'.`, { param: k });
    }
  }
  return params;
}

/** A shared store (anything but the in-process one) gets a deadline and the configured failure mode. */
function rateLimiterOf(options: GatewayOptions, store: GatewayRuntime['config']['rateLimitStore'], now: () => number): RateLimiter {
  const given = options.rateLimiter;
  if (!given) return new MemoryRateLimiter();
  if (given instanceof MemoryRateLimiter) return given;
  const logger = options.logger ?? console;
  return new GuardedRateLimiter(given, { timeoutMs: store.timeoutMs, onError: store.onError, now, warn: (m) => logger.warn(m) });
}

export function createGateway(config: GatewayConfigInput, options: GatewayOptions = {}): Gateway {
  const rt = createRuntime(config, options);
  // The admin API exists only with a store and an admin credential (otherwise its paths are 404s).
  const routes: readonly Route[] = rt.admin ? [...ROUTES, ...mountAdminRoutes()] : ROUTES;
  const methodsOn = (path: string): string[] => [...new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method))];
  let closed = false;

  async function reply(request: Request, context: HandleContext = {}): Promise<Reply> {
    const startedAt = rt.now();
    const parsedUrl = cachedRequestURL(request.url);
    const url = parsedUrl ?? new URL(`${FIXED_ORIGIN}/`);
    const path = url.pathname;
    const traceId = rt.newId();
    const requestId = request.headers.get('request-id') ?? undefined;
    const event: RequestContext['event'] = { traceId, method: request.method, path, endpoint: 'unknown' };
    if (requestId) event.requestId = requestId;
    const body = requestBody(request, context, rt.config.limits.maxBodyBytes);
    const ctx: RequestContext = new GatewayRequestContext(rt, request, url, traceId, requestId, startedAt, context, body, event, shapeForPath(path));
    if (context.onClientGone) followClientGone(ctx, context.onClientGone);
    let response: Reply;
    try {
      if (closed) throw new GatewayError('unavailable', 'The gateway is shutting down.');
      if (!parsedUrl) throw new GatewayError('invalid_request', 'Malformed request URL.');
      response = await route(ctx, path, carriesBody(request, context));
    } catch (err) {
      const gerr = toGatewayError(err);
      response = errorResponse(ctx, gerr);
      if (gerr.code === 'method_not_allowed') response.headers.set('allow', methodsOn(path).join(', '));
      ctx.obs.report({ error: { code: gerr.code, message: scrubError(ctx, gerr).message } });
    }
    applyLimitHeaders(ctx.limits, response.headers, rt.now());
    applyRoutingHeaders(ctx, response.headers);
    response.headers.set('x-trace-id', traceId);
    if (requestId) response.headers.set('request-id', requestId);
    return ctx.obs.observe(response);
  }

  /** Host, route, method and body headers are all checked here, before a handler authenticates or reads. */
  async function route(ctx: RequestContext, path: string, hasBody: boolean): Promise<Reply> {
    checkHost(ctx.request.headers);
    let pathMatched = false;
    for (const r of routes) {
      const m = r.pattern.exec(path);
      if (!m) continue;
      if (!pathMatched && typeof r.errorShape === 'string') ctx.errorShape = r.errorShape;
      pathMatched = true;
      if (r.method !== ctx.request.method) continue;
      ctx.errorShape = typeof r.errorShape === 'function' ? r.errorShape(ctx) : r.errorShape;
      ctx.event.endpoint = `${r.method} ${r.route}`;
      ctx.event.route = r.route;
      if (hasBody) checkBodyHeaders(ctx.request.headers, r.bodyKinds ?? ['json']);
      return r.handler(ctx, pathParams(m));
    }
    if (pathMatched) throw new GatewayError('method_not_allowed', `Method ${quoteInput(ctx.request.method)} is not allowed on ${quoteInput(path)}.`);
    throw new GatewayError('not_found', `No route for ${quoteInput(ctx.request.method)} ${quoteInput(path)}.`, { detail: 'unknown_route' });
  }

  return {
    handle: async (request, context) => toResponse(await reply(request, context)),
    reply,
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
