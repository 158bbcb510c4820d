/** The upstream HTTP client the gateway calls vendors with (GatewayOptions.fetch). */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/** Receives the function that aborts a call (with the reason the call fails with). */
export type AbortHook = (abort: (reason?: unknown) => void) => void;

/**
 * An upstream client that can also be cut without an AbortSignal (createUndiciFetch() returns one):
 * `fetchWithAbortHook` sends like the fetch itself and calls `hook` once, before it resolves, with
 * the function that aborts the call, its answer body included. An upstream call that ends normally
 * then builds no AbortSignal and no listener for it.
 */
export interface HookableFetch extends FetchLike {
  fetchWithAbortHook(input: string | URL, init: RequestInit, hook: AbortHook): Promise<Response>;
}

/** Whether `fetch` can be cut through an abort hook (see HookableFetch). */
export function takesAbortHook(fetch: FetchLike): fetch is HookableFetch {
  return typeof (fetch as Partial<HookableFetch>).fetchWithAbortHook === 'function';
}
