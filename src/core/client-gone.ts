/**
 * Registers `listener`, called once if the client goes away before the answer is sent (at once if
 * it already has); returns a function that unregisters it. A host bridge that hears of the client
 * leaving from its own events (the node bridge: the response's `close`) passes one in
 * HandleContext.onClientGone; the request's upstream calls then follow it rather than an AbortSignal.
 */
export type OnClientGone = (listener: () => void) => () => void;
