/** The upstream HTTP client the gateway calls vendors with (GatewayOptions.fetch). */
export type FetchLike = (input: Request | string | URL, init?: RequestInit) => Promise<Response>;

/**
 * A fetch marked with this key (`createUndiciFetch()` is) can be cut without an AbortSignal: given
 * `init[ABORT_HOOK]`, it calls that once with a function that aborts the call, its answer body
 * included. On Node 20 an AbortSignal and its listener cost a few µs per call, so an upstream call
 * that ends normally builds none.
 */
export const ABORT_HOOK = Symbol.for('modelgate.fetch.abortHook');

/** `init[ABORT_HOOK]`: receives the function that aborts the call (with the reason the call fails with). */
export type AbortHook = (abort: (reason?: unknown) => void) => void;

/** Whether `fetch` takes `init[ABORT_HOOK]` (see ABORT_HOOK). */
export function takesAbortHook(fetch: FetchLike): boolean {
  return (fetch as FetchLike & { [ABORT_HOOK]?: boolean })[ABORT_HOOK] === true;
}
