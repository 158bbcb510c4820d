/** One upstream call as the request observer sees it (see request-observer.ts). */
import type { Context } from '@opentelemetry/api';
import type { ProviderType } from '../config/schema.js';
import type { ProtocolName } from '../ir/types.js';
import { NOOP_SPAN_CONTEXT } from './telemetry.js';

/** The provider an upstream attempt goes to (a subset of Provider, so the observer needs no routing types). */
export interface AttemptTarget {
  id: string;
  type: ProviderType;
  chatProtocol: ProtocolName;
}

/** One upstream call: a client span, its traceparent in the outgoing headers, an outcome. */
export interface UpstreamAttempt {
  /** The call failed (no answer, an error status, a redirect): ends the span with the error type. */
  failed(err: { code: string; status?: number }): void;
  /** Headers arrived with a success status; the span stays open until `ended` (a stream may follow). */
  answered(status: number): void;
  /** The exchange is over (the body was read or the stream ended). */
  ended(): void;
}

/** An attempt that nobody observes (no SDK, no caller trace, no metrics): its span would be a no-op. */
export const UNOBSERVED: { attempt: UpstreamAttempt; context: Context } = Object.freeze({
  attempt: Object.freeze({ failed() {}, answered() {}, ended() {} }),
  context: NOOP_SPAN_CONTEXT,
});
