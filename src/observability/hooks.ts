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
 * Emitted when a request has been authenticated and routed, right before it goes upstream (after
 * translation, when the upstream speaks another protocol). Never carries secrets.
 */
export interface RequestEvent {
  traceId: string;
  requestId?: string;
  method: string;
  path: string;
  endpoint: string;
  keyId?: string;
  model?: string;
  provider?: string;
  upstreamModel?: string;
  stream?: boolean;
  /** Settings dropped or adjusted on the way to the upstream (also in the x-modelgate-warnings header). */
  warnings?: SettingWarning[];
  /** `caller` when the key holder's own upstream credential was used (bring your own key). */
  providerCredential?: 'caller';
}

/** Emitted once per request when the response is complete (for streams: when the stream ends). */
export interface ResponseEvent extends RequestEvent {
  status: number;
  latencyMs: number;
  usage?: IRUsage;
  /** Error code and message (already redacted) when the request failed. */
  error?: { code: string; message: string };
  /** True when the response was streamed and the stream ended normally. */
  streamCompleted?: boolean;
  /** The request's cost in USD from the real usage and the model's `pricing` (when both are known). */
  costUsd?: number;
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
