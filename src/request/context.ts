/**
 * The context of one request: its own facts (ids, URL, caller, signal, the client leaving, deadline)
 * and the state it gathers on its way (the event for hooks, the observer, the limits it holds). The
 * gateway's services (models, providers, stores, limiter) are not in it: a layer gets the services
 * it uses as parameters (endpoints: EndpointContext, src/endpoints/services.ts).
 */
import type { Principal } from '../auth/principal.js';
import type { OnClientGone } from '../core/client-gone.js';
import type { RequestLimits } from '../limits/request-lease.js';
import type { RequestEvent } from '../observability/hooks.js';
import type { RequestObserver } from '../observability/request-observer.js';
import type { ErrorShape } from '../protocols/shared/error-bodies.js';
import type { RequestBody } from './body.js';

export interface RequestContext {
  request: Request;
  /** Shared by the requests to the same URL (parsed once): read only. */
  url: Readonly<URL>;
  traceId: string;
  requestId: string | undefined;
  startedAt: number;
  /** An identity the host already authenticated (HandleContext.principal). */
  hostPrincipal: Principal | undefined;
  /** Aborted when the client goes away (HandleContext.signal, else request.signal); use this rather than request.signal. */
  signal: AbortSignal;
  /**
   * The host bridge's own word of the client leaving (HandleContext.onClientGone): this request's
   * upstream calls follow it instead of `signal`. A context derived for work that outlives the
   * client (a background run) sets it to undefined and brings a signal of its own.
   */
  clientGone: OnClientGone | undefined;
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
  /**
   * What this request's answers, errors, logs and hooks never show: the gateway's secrets (upstream
   * keys, platform keys, admin keys), then also the caller's own upstream keys once it is known.
   */
  secrets: readonly string[];
  /** The caller's own upstream credentials (bring your own key), also in `secrets`. */
  callerSecrets?: string[];
}
