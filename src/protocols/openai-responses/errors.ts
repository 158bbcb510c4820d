/**
 * Responses errors: the OpenAI envelope (shared/error-bodies.ts) for HTTP errors; in a stream,
 * `response.failed` / `error` with the SDK's closed set of codes.
 */
import type { GatewayError } from '../../errors.js';

export { openAIErrorMessage as responsesErrorMessage } from '../openai-chat/errors.js';

/** A failed response's `error.code` (the SDK's closed set: server_error, rate_limit_exceeded, invalid_prompt, ...). */
export function responseErrorCode(err: GatewayError): string {
  if (err.code === 'rate_limited') return 'rate_limit_exceeded';
  if (err.code === 'invalid_request' || err.code === 'unsupported') return 'invalid_prompt';
  return 'server_error';
}
