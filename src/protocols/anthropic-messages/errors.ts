/** Anthropic errors: the body shape lives in shared/error-bodies.ts; here the stream frame and the upstream readers. */
import { GatewayError } from '../../core/errors.js';
import { anthropicErrorBody } from '../shared/error-bodies.js';
import { upstreamErrorMessage } from '../shared/upstream-error-message.js';

/** The in-band error frame of an Anthropic stream (with the trace id, like every gateway error body). */
export function anthropicErrorFrame(err: GatewayError, traceId?: string): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(err, traceId))}\n\n`;
}

/** Message of any upstream error body, Anthropic-shaped (`{type:"error",error:{type,message}}`) or not. */
export const anthropicErrorMessage = upstreamErrorMessage;

/** An upstream's in-stream `event: error` payload -> GatewayError with the closest code. */
export function errorFromAnthropicEvent(data: unknown): GatewayError {
  const e = (data as { error?: { type?: unknown; message?: unknown } } | null)?.error;
  const type = typeof e?.type === 'string' ? e.type : 'api_error';
  const message = typeof e?.message === 'string' ? e.message : 'The upstream reported an error mid-stream.';
  switch (type) {
    case 'overloaded_error':
      return new GatewayError('unavailable', message);
    case 'rate_limit_error':
      return new GatewayError('rate_limited', message);
    case 'timeout_error':
      return new GatewayError('upstream_timeout', message);
    case 'invalid_request_error':
      return new GatewayError('invalid_request', message);
    default:
      return new GatewayError('upstream_error', message);
  }
}
