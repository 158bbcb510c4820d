import { GatewayError } from '../../errors.js';
import { upstreamErrorMessage } from '../shared/upstream-error-message.js';

const TYPES: Record<string, string> = {
  invalid_request: 'invalid_request_error',
  unsupported: 'invalid_request_error',
  authentication: 'authentication_error',
  permission_denied: 'permission_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  request_timeout: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  upstream_error: 'upstream_error',
  bad_gateway: 'upstream_error',
  upstream_timeout: 'timeout_error',
  unavailable: 'server_error',
  internal: 'server_error',
};

const CODES: Record<string, string> = {
  authentication: 'invalid_api_key',
  permission_denied: 'model_not_allowed',
  not_found: 'not_found',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'unsupported_media_type',
  request_timeout: 'request_timeout',
  rate_limited: 'rate_limit_exceeded',
  upstream_timeout: 'upstream_timeout',
  unsupported: 'unsupported_parameter',
};

export function openAIErrorObject(err: GatewayError): { message: string; type: string; param: string | null; code: string | null } {
  return {
    message: err.message,
    // A spent budget reads as OpenAI's own: type and code `insufficient_quota`.
    type: err.detail === 'insufficient_quota' ? 'insufficient_quota' : (TYPES[err.code] ?? 'server_error'),
    param: err.param,
    code: err.detail ?? CODES[err.code] ?? null,
  };
}

export function openAIErrorBody(err: GatewayError, traceId: string): unknown {
  return { error: openAIErrorObject(err), traceId };
}

/** Message of any upstream error body, OpenAI-shaped or not. */
export const openAIErrorMessage = upstreamErrorMessage;

/** An OpenAI-compatible upstream's error chunk mid-stream (`{"error":{"message"}}` or `{"error":"..."}`), else undefined. */
export function openAIChunkError(json: unknown): GatewayError | undefined {
  const err = json && typeof json === 'object' && !Array.isArray(json) ? (json as { error?: unknown }).error : undefined;
  if (!err) return undefined;
  const message = typeof err === 'string' ? err : typeof (err as { message?: unknown }).message === 'string' ? (err as { message: string }).message : undefined;
  return new GatewayError('upstream_error', message ?? 'The upstream reported an error mid-stream.');
}
