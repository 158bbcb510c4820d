import type { IRUsage } from '../ir/types.js';

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
  /** The request's cost in USD from the real usage and the model's `pricing` (when both are known); a cache hit's is 0 or the configured fraction. */
  costUsd?: number;
  /** True when the answer came from the response cache (`usage` is then the cached answer's; no upstream was called). */
  cacheHit?: boolean;
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
