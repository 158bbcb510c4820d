/**
 * The gateway's services as the endpoints use them, built once per gateway (gateway/services.ts),
 * and the context an endpoint handler gets: the request's own context plus these services. Layers
 * below the endpoints never see this object: each takes the few services it uses as a parameter
 * (routing: RoutingServices, limits: AdmissionServices, upstream calls: the idle timeout).
 */
import type { KeyStore } from '../auth/key-store.js';
import type { AuthenticateKey } from '../auth/principal.js';
import type { ResponseCache } from '../cache/response-cache.js';
import type { GatewayConfig } from '../config/schema.js';
import type { AdminAuth } from '../control/admin/admin-auth.js';
import type { ControlPlane } from '../control/control-plane.js';
import type { BackgroundRuns } from '../conversations/background-runs.js';
import type { ConversationOptions, ConversationStore } from '../conversations/conversation-store.js';
import type { AdmissionServices } from '../limits/admission.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import type { GatewayHooks, RequestEvent } from '../observability/hooks.js';
import type { ResponseEnd } from '../observability/response-event.js';
import type { Telemetry } from '../observability/telemetry.js';
import type { FetchLike, Provider } from '../providers/types.js';
import type { RequestContext } from '../request/context.js';
import type { RoutingServices } from '../routing/attempts.js';
import type { DeploymentHealth } from '../routing/deployment-health.js';
import type { ModelRegistry } from '../routing/model-registry.js';
import type { VideoTaskService } from '../tasks/video/video-service.js';

/** Everything a request handler needs; built once per gateway. */
export interface GatewayServices {
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
  authenticate?: AuthenticateKey;
  rateLimiter: RateLimiter;
  /** What the retry loop and the fallback list use (routing/attempts.ts). */
  routing: RoutingServices;
  /** What admission against the limits uses (limits/admission.ts). */
  admission: AdmissionServices;
  conversations: { store: ConversationStore } & Required<Omit<ConversationOptions, 'maxEntries'>>;
  /** Upstream credentials and platform keys, scrubbed from anything sent to callers. */
  secrets: string[];
  /** Video generation tasks (submit, read, cancel, content; the background poller). */
  videoTasks: VideoTaskService;
  /** Background runs of stored responses and interactions (`background: true`). */
  backgroundRuns: BackgroundRuns;
  /** True when the video tasks are the control plane's task records (the task center can list them). */
  tasksInStore: boolean;
  /** Turns a finished request into its ledger row and queues it (absent: no ledger). */
  ledger?: (event: RequestEvent, end: ResponseEnd) => void;
  /** The operator's side, when the host gave one (GatewayOptions.control). */
  control?: ControlPlane;
  /** Admin API credentials; the admin routes exist when it is set and enabled and `control` is there. */
  admin?: AdminAuth;
  /** Where operational warnings go (GatewayOptions.logger, default console). */
  logger: { warn(message: string): void };
  /** The response cache and the deadline of its calls (ms). */
  /** The response cache, its calls' deadline, and until when it is skipped after a failure (cache-io.ts). */
  cache: { store: ResponseCache; timeoutMs: number; skipUntil?: number };
}

/** What an endpoint handler gets: its request's context and the gateway's services. */
export interface EndpointContext extends RequestContext {
  readonly services: GatewayServices;
}
