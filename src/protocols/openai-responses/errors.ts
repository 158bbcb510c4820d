/**
 * Responses errors: the OpenAI envelope (shared/error-bodies.ts) for HTTP errors; in a stream,
 * `response.failed` / `error` with the SDK's closed set of codes.
 */
import type { GatewayError, GatewayErrorCode } from '../../core/errors.js';

export { openAIErrorMessage as responsesErrorMessage } from '../openai-chat/errors.js';

/** A failed response's `error.code`, from the SDK's closed set (server_error, rate_limit_exceeded, invalid_prompt, ...). */
const RESPONSE_ERROR_CODES: Record<GatewayErrorCode, 'server_error' | 'rate_limit_exceeded' | 'invalid_prompt'> = {
  invalid_request: 'invalid_prompt',
  unsupported: 'invalid_prompt',
  authentication: 'server_error',
  permission_denied: 'server_error',
  not_found: 'server_error',
  method_not_allowed: 'server_error',
  conflict: 'server_error',
  gone: 'server_error',
  payload_too_large: 'server_error',
  unsupported_media_type: 'server_error',
  request_timeout: 'server_error',
  rate_limited: 'rate_limit_exceeded',
  client_closed: 'server_error',
  upstream_error: 'server_error',
  bad_gateway: 'server_error',
  upstream_timeout: 'server_error',
  unavailable: 'server_error',
  internal: 'server_error',
};

export function responseErrorCode(err: GatewayError): string {
  return RESPONSE_ERROR_CODES[err.code];
}
