/**
 * Errors of the Interactions API. HTTP errors use the Google RPC shape every Gemini endpoint of the
 * gateway writes (`{"error":{"code","message","status"}}`, read by the SDK through `error.message`;
 * shared/error-bodies.ts). Inside a stream, and in a failed interaction's `errors[]`, the API's own
 * `{code: string, message}` is used, with the Google status name as the code.
 */
import type { GatewayError } from '../../core/errors.js';
import { googleStatus } from '../shared/error-bodies.js';

export { geminiErrorMessage as interactionsErrorMessage } from '../gemini/errors.js';

/** `{code, message}` of an Interactions error (`INVALID_ARGUMENT`, `UNAVAILABLE`, ...). */
export function interactionsError(err: GatewayError): { code: string; message: string } {
  return { code: googleStatus(err), message: err.message };
}
