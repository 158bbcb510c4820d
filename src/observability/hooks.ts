import type { PricingConfig } from '../config/schema.js';
import type { IRFinishReason, IRUsage } from '../ir/types.js';

/** A setting the upstream could not take as the client sent it, named as the client's request names it. */
export interface SettingWarning {
  /** e.g. `generationConfig.topK`, `safetySettings`, `max_tokens`. */
  setting: string;
  /** e.g. `dropped (not supported by openai)`, `clamped to 24576`. */
  action: string;
  message: string;
}

/**
 * Emitted once for every request: right before its first upstream attempt (after authentication,
 * routing and translation, so warnings are known), or, for a request that never goes upstream (a
 * model list, a stored response, an error), right before its onResponse. Never carries secrets.
 */
export interface RequestEvent {
  traceId: string;
  requestId?: string;
  method: string;
  path: string;
  /** Method and route template, e.g. `POST /v1/chat/completions`, `GET /v1/responses/{id}`; `unknown` when no route matched. */
  endpoint: string;
  /** The route template (`/v1/responses/{id}`), absent when no route matched. */
  route?: string;
  keyId?: string;
  /** The model id as the client named it (set before the model is checked, so a refused request has it too). */
  requestedModel?: string;
  /** The model id that serves the request (a fallback's own id once the routing moved to it). */
  model?: string;
  provider?: string;
  upstreamModel?: string;
  stream?: boolean;
  /** Settings dropped or adjusted on the way to the upstream (also in the x-modelgate-warnings header). */
  warnings?: SettingWarning[];
  /** `caller` when the key holder's own upstream credential was used (bring your own key). */
  providerCredential?: 'caller';
  /** Each upstream call made so far, in order (retries and fallbacks included). */
  attempts?: UpstreamAttemptRecord[];
}

/** One upstream call of a request: where it went, what came back, why the gateway moved on. */
export interface UpstreamAttemptRecord {
  /** The model id this attempt served (a fallback's own id when it came from `fallbacks`). */
  model: string;
  provider: string;
  upstreamModel: string;
  /** The upstream's HTTP status; 0 when no answer came (connection error, timeout). */
  status: number;
  /** Why the next attempt was made or the request ended (error code and message, secrets scrubbed); absent on success. */
  reason?: string;
  /** True when the gateway skipped this model without calling it (a fallback at its own limit): not an upstream call. */
  skipped?: true;
}

/**
 * Emitted once for every request when the response is complete (for a streamed body: when it
 * ended, failed or the client left), whichever route served it and however it ended.
 */
export interface ResponseEvent extends RequestEvent {
  status: number;
  latencyMs: number;
  usage?: IRUsage;
  /** Error code and plain message (already redacted) when the request failed, also mid-stream. */
  error?: { code: string; message: string };
  /** True when the response was streamed and the stream ended normally. */
  streamCompleted?: boolean;
  /**
   * Why the model stopped, for model calls that got that far: `unified` across vendors (`stop`,
   * `length`, `tool-calls`, `content-filter`, `error`, `other`) and `raw` as the upstream said it
   * (`end_turn`, `STOP`, `tool_calls`, `max_output_tokens`, `requires_action`, ...). Streams too, pass-through ones included.
   */
  finishReason?: IRFinishReason;
  /** The request's cost in USD from the real usage and the model's `pricing` (when both are known). */
  costUsd?: number;
  /** The model's `pricing` the cost was computed with. */
  pricing?: PricingConfig;
  /** The model the vendor reported using (its answer's `model`), when it named one. */
  resolvedModel?: string;
  /** The client's protocol on a model route (`openai-chat`, `anthropic-messages`, `gemini`, ...). */
  protocol?: string;
  /** Streamed answers: milliseconds from the request to the first generated token (else the first chunk). */
  ttftMs?: number;
  /** Media generated: images in the answer, seconds of video asked for. */
  media?: MediaUsage;
  /** True when the answer came from the response cache (`usage` is then the cached answer's; no upstream was called); its cost is 0 or the configured fraction. */
  cacheHit?: boolean;
}

/** What a media request produced (images) or asked for (seconds of video). */
export interface MediaUsage {
  images?: number;
  videoSeconds?: number;
}

export interface GatewayHooks {
  onRequest?: (event: RequestEvent) => void | Promise<void>;
  onResponse?: (event: ResponseEvent) => void | Promise<void>;
}

/** Runs a hook without letting it break or slow the request. */
export function fireHook<E>(fn: ((e: E) => void | Promise<void>) | undefined, event: E): void {
  if (!fn) return;
  try {
    const r = fn(event);
    if (r && typeof (r as Promise<void>).catch === 'function') (r as Promise<void>).catch(() => {});
  } catch {
    // a host's hook must not break the gateway
  }
}
