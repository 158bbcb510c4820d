import type { IRUsage } from '../ir/types.js';

/** Emitted when a request has been authenticated and routed. Never carries secrets. */
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
