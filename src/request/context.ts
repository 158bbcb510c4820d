import type { Principal } from '../auth/principal.js';
import { requestSecrets } from '../endpoints/common.js';
import type { RequestBody } from './body.js';
import type { RequestLimits } from '../limits/request-lease.js';
import { RequestObserver } from '../observability/request-observer.js';
import type { ErrorShape } from '../protocols/shared/error-bodies.js';
import type { GatewayRuntime, HandleContext, RequestContext } from '../gateway/options.js';
import { scrubContent } from '../core/redact.js';

/**
 * The context of one request. A class rather than an object literal: its `signal` getter is on the
 * prototype, not made for each request (an accessor in a literal costs V8 a slow path every time).
 */
export class GatewayRequestContext implements RequestContext {
  declare deadline?: number;
  declare principal?: Principal;
  declare limits?: RequestLimits;
  declare callerSecrets?: string[];
  hostPrincipal: Principal | undefined;
  obs: RequestObserver;
  #signal: AbortSignal | undefined;
  readonly #host: HandleContext;

  constructor(
    public rt: GatewayRuntime,
    public request: Request,
    public url: Readonly<URL>,
    public traceId: string,
    public requestId: string | undefined,
    public startedAt: number,
    host: HandleContext,
    public body: RequestBody,
    public event: RequestContext['event'],
    public errorShape: ErrorShape,
  ) {
    this.#host = host;
    this.hostPrincipal = host.principal;
    this.obs = new RequestObserver(
      { hooks: rt.hooks, now: rt.now, telemetry: rt.telemetry, scrub: (text) => scrubContent(text, requestSecrets(this)), ...(rt.ledger ? { ledger: rt.ledger } : {}) },
      event,
      startedAt,
      request.headers,
    );
  }

  /** Read only when something needs it (upstream calls can follow the host's onClientGone instead). */
  get signal(): AbortSignal {
    return (this.#signal ??= this.#host.signal ?? this.request.signal);
  }
}
