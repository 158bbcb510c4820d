/** What a host gives createGateway (GatewayOptions) and each request (HandleContext). */
import type { AuthenticateKey, Principal } from '../auth/principal.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { GatewayHooks } from '../observability/hooks.js';
import type { TelemetryOptions } from '../observability/telemetry.js';
import type { FetchLike } from '../providers/types.js';
import type { ConversationOptions, ConversationStore } from '../conversations/conversation-store.js';
import type { TaskStore } from '../tasks/task-store.js';
import type { VideoTaskOptions } from '../tasks/video/video-settings.js';
import type { LedgerRecorder } from '../control/ledger/ledger-recorder.js';
import type { ControlPlane } from '../control/control-plane.js';
import type { AuthorizeAdmin } from '../control/admin/admin-auth.js';
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
  authenticate?: AuthenticateKey;
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

/** What a host knows of a request beyond the Request itself (gateway.handle's second argument). */
export interface HandleContext {
  /** An identity the host already authenticated; skips the key check. */
  principal?: Principal;
  /** Aborted when the client goes away; default: request.signal. */
  signal?: AbortSignal;
}
