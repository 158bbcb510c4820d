import type { RequestBody } from '../request/body.js';
import type { KeyStore } from '../auth/key-store.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { RequestLimits } from '../limits/request-lease.js';
import type { Principal } from '../auth/principal.js';
import type { GatewayConfig } from '../config/schema.js';
import type { GatewayHooks, RequestEvent, ResponseEvent } from '../observability/hooks.js';
import type { RequestObserver } from '../observability/request-observer.js';
import type { Telemetry, TelemetryOptions } from '../observability/telemetry.js';
import type { ErrorShape } from '../protocols/shared/error-bodies.js';
import type { FetchLike, Provider } from '../providers/types.js';
import type { ModelRegistry } from '../routing/model-registry.js';
import type { DeploymentHealth } from '../routing/deployment-health.js';
import type { ConversationOptions, ConversationStore } from '../conversations/conversation-store.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { VideoTaskService } from '../tasks/video/video-service.js';
import type { VideoTaskOptions } from '../tasks/video/video-settings.js';
import type { BackgroundRuns } from '../conversations/background-runs.js';
import type { LedgerRecorder } from '../control/ledger/ledger-recorder.js';
import type { ControlPlane } from '../control/control-plane.js';
import type { AdminAuth, AuthorizeAdmin } from '../control/admin/admin-auth.js';
import type { ResponseCache } from '../cache/response-cache.js';

export interface GatewayOptions {
  /** Upstream HTTP client (default: global fetch). */
  fetch?: FetchLike;
  /** Milliseconds since the epoch (default: Date.now). */
  now?: () => number;
  /** Uniform random numbers in [0, 1) for load balancing and retry jitter (default: Math.random). */
  random?: () => number;
  /** Random id generator (default: crypto.randomUUID without dashes). */
  newId?: () => string;
  hooks?: GatewayHooks;
  /**
   * OpenTelemetry spans and metrics (GenAI semantic conventions) through `@opentelemetry/api`:
   * the global providers by default (a no-op until the host registers an SDK); content capture off.
   */
  telemetry?: TelemetryOptions;
  /**
   * Resolves a presented key from the host's own store. Return a Principal to accept it, or
   * null/undefined to fall back to the keys in the config.
   */
  authenticate?: (token: string, request: Request) => Principal | null | undefined | Promise<Principal | null | undefined>;
  /**
   * Counters of the key and model limits (default: in memory; RedisRateLimiter for several
   * instances). Calls to it are bounded by `rateLimitStore.timeoutMs` of the config.
   */
  rateLimiter?: RateLimiter;
  /** Where operational warnings go (a failing rate-limit store, a failed best-effort upstream cancel or delete); default: console. */
  logger?: { warn(message: string): void };
  /** Environment for `${VAR}` interpolation in the config (default: process.env when present; `false`: the config is final, nothing is interpolated). */
  env?: Record<string, string | undefined> | false;
  /** Async task records (video generations): in memory by default; RedisTaskStore for several instances. */
  taskStore?: TaskStore;
  /** Video task polling, retention and callback signing. */
  video?: VideoTaskOptions;
  /** Stored responses (Responses API): in memory by default (LRU); RedisConversationStore for several instances. */
  conversationStore?: ConversationStore;
  /** Retention and size of stored responses, background polling. */
  conversations?: ConversationOptions;
  /**
   * Deadline of every call to a given `conversationStore` or `taskStore` (default 1000 ms): a
   * store that fails or is late answers 503 `unavailable` instead of holding the request.
   */
  storeTimeoutMs?: number;
  /**
   * The usage ledger: every request whose key is known becomes one row, handed to `enqueue` when
   * the response is complete (a LedgerQueue writes them in batches off the request path). Default:
   * the control plane's ledger (`control.ledger`). `gateway.close()` closes one given here, so every
   * queued row is written before the host exits (the control plane's closes with `control.close()`).
   */
  ledger?: LedgerRecorder;
  /**
   * The operator's side (keys in a database, the admin API, the audit log), built once with
   * createControlPlane. Without it the gateway serves the config's keys only and has no admin API.
   */
  control?: ControlPlane;
  /**
   * The host's own check for the admin API: return `{id, access: "read" | "write"}` to let the
   * request in, null/undefined to fall back to the config's admin keys.
   */
  authorizeAdmin?: AuthorizeAdmin;
  /**
   * Where cached answers live (models and keys with `cache` in the config): in memory by default
   * (least recently used out beyond `responseCacheMaxBytes`); RedisResponseCache for several
   * instances. Calls are bounded by `storeTimeoutMs`; a failing cache is a miss.
   */
  responseCache?: ResponseCache;
  /** Bound of the default in-memory response cache, in bytes (default 64 MiB). */
  responseCacheMaxBytes?: number;
}

/** Registers a listener for the client going away; returns its unregister function (HandleContext.onClientGone). */
export type OnClientGone = (listener: () => void) => () => void;

export interface HandleContext {
  /** An identity the host already authenticated; skips the key check. */
  principal?: Principal;
  /**
   * Aborted when the client goes away. A bridge may build the Request without a signal (on Node,
   * a Request that follows a signal costs about 40 µs more) and pass it here; default: request.signal.
   */
  signal?: AbortSignal;
  /**
   * For a bridge that hears of the client leaving from its own events (the node bridge: the
   * response's `close`): registers `listener`, called once if the client goes away before the
   * answer is sent (at once if it already has), and returns a function that unregisters it.
   * Upstream calls then follow the client through it, and `signal` is read only when something
   * else needs it (on Node 20, an AbortSignal and its listeners cost a few µs each).
   */
  onClientGone?: OnClientGone;
  /**
   * The request body, when the host already holds it as bytes; the endpoints then read these
   * instead of `request.body` (a bridge can skip building a body stream, which on Node costs more
   * than parsing the JSON).
   */
  body?: Uint8Array;
  /**
   * A lazy body source, for a bridge that has not read the body yet (the node bridge): called at
   * most once, only by an endpoint that takes a body and only after the key, route, method and
   * media-type checks passed, with the gateway's `limits.maxBodyBytes`. It resolves to the bytes as
   * sent (still content-encoded) or rejects, ideally with a 413 GatewayError once `limit` is passed;
   * any other rejection becomes a 400. An anonymous caller thus gets its 401 before it sends a body.
   */
  readBody?: (limit: number) => Promise<Uint8Array>;
}

/** Everything a request handler needs; built once per gateway. */
export interface GatewayRuntime {
  config: GatewayConfig;
  keys: KeyStore;
  models: ModelRegistry;
  providers: Map<string, Provider>;
  fetch: FetchLike;
  now: () => number;
  newId: (prefix?: string) => string;
  /** Uniform random numbers in [0, 1): load balancing, retry jitter. */
  random: () => number;
  /** Circuit breakers of the deployments (this instance's view). */
  health: DeploymentHealth;
  hooks: GatewayHooks;
  telemetry: Telemetry;
  authenticate?: GatewayOptions['authenticate'];
  rateLimiter: RateLimiter;
  conversations: { store: ConversationStore } & Required<Omit<ConversationOptions, 'maxEntries'>>;
  /** Upstream credentials, scrubbed from anything sent to callers. */
  secrets: string[];
  /** Video generation tasks (submit, read, cancel, content; the background poller). */
  videoTasks: VideoTaskService;
  /** Background runs of stored responses and interactions (`background: true`). */
  backgroundRuns: BackgroundRuns;
  /** True when the video tasks are the control plane's task records (the task center can list them). */
  tasksInStore: boolean;
  /** Turns a finished request into its ledger row and queues it (absent: no ledger). */
  ledger?: (event: ResponseEvent) => void;
  /** The operator's side, when the host gave one (GatewayOptions.control). */
  control?: ControlPlane;
  /** Admin API credentials; the admin routes exist when it is set and enabled and `control` is there. */
  admin?: AdminAuth;
  /** Where operational warnings go (GatewayOptions.logger, default console). */
  logger: { warn(message: string): void };
  /** The response cache and the deadline of its calls (ms). */
  cache: { store: ResponseCache; timeoutMs: number };
}

/** Per-request state. */
export interface RequestContext {
  rt: GatewayRuntime;
  request: Request;
  /** Shared by the requests to the same URL (parsed once): read only. */
  url: Readonly<URL>;
  traceId: string;
  requestId: string | undefined;
  startedAt: number;
  hostPrincipal: Principal | undefined;
  /** Aborted when the client goes away; use this rather than request.signal (see HandleContext.signal). */
  signal: AbortSignal;
  /** The request body, read only when an endpoint asks (held to `limits.maxBodyBytes`, 413 past it). */
  body: RequestBody;
  /** When the request's total time (`timeouts.totalMs`) runs out, in Date.now() ms; set once it is routed upstream. */
  deadline?: number;
  principal?: Principal;
  /** Filled in as the request is routed; sent to hooks. */
  event: RequestEvent;
  /** Fires the hooks (and records telemetry) once for this request; handlers report outcomes to it. */
  obs: RequestObserver;
  errorShape: ErrorShape;
  /** Limits state of this request (header snapshots, lease, cost); set on admission. */
  limits?: RequestLimits;
  /** The caller's own upstream credentials (bring your own key), scrubbed like the gateway's secrets. */
  callerSecrets?: string[];
}
