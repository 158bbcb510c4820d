import type { Principal } from '../auth/principal.js';
import type { OnClientGone } from '../core/client-gone.js';
import { scrubContent } from '../core/redact.js';
import type { EndpointContext, GatewayServices } from '../endpoints/services.js';
import type { RequestLimits } from '../limits/request-lease.js';
import { RequestObserver } from '../observability/request-observer.js';
import type { ErrorShape } from '../protocols/shared/error-bodies.js';
import type { RequestBody } from '../request/body.js';
import type { RequestContext } from '../request/context.js';
import type { HandleContext } from './options.js';

/**
 * The context of one request, as the gateway builds it for its endpoints. A class rather than an
 * object literal: its `signal` getter is on the prototype, not made for each request (an accessor
 * in a literal costs V8 a slow path every time).
 */
export class GatewayRequestContext implements EndpointContext {
  declare deadline?: number;
  declare principal?: Principal;
  declare limits?: RequestLimits;
  declare callerSecrets?: string[];
  hostPrincipal: Principal | undefined;
  clientGone: OnClientGone | undefined;
  secrets: readonly string[];
  obs: RequestObserver;
  #signal: AbortSignal | undefined;
  /** The host's context, whose `signal` may be a getter that builds an AbortSignal: read only on demand. */
  readonly #host: HandleContext;

  constructor(
    public readonly services: GatewayServices,
    public request: Request,
    public url: Readonly<URL>,
    public traceId: string,
    public requestId: string | undefined,
    public startedAt: number,
    host: HandleContext & { onClientGone?: OnClientGone },
    public body: RequestBody,
    public event: RequestContext['event'],
    public errorShape: ErrorShape,
  ) {
    this.#host = host;
    this.hostPrincipal = host.principal;
    this.clientGone = host.onClientGone;
    this.secrets = services.secrets;
    this.obs = new RequestObserver(
      // One shape for every request (a conditional spread builds and copies an object each time).
      { hooks: services.hooks, now: services.now, telemetry: services.telemetry, scrub: (text) => scrubContent(text, this.secrets), ledger: services.ledger },
      event,
      startedAt,
      request.headers,
    );
  }

  /** Read only when something needs it (upstream calls can follow the host's clientGone instead). */
  get signal(): AbortSignal {
    return (this.#signal ??= this.#host.signal ?? this.request.signal);
  }
}
