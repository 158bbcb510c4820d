/**
 * Gemini errors: the Google RPC body (`{"error":{"code","message","status"}}`, also the in-band
 * stream chunk) lives in shared/error-bodies.ts; here the reader of upstream error bodies.
 */
import { upstreamErrorMessage } from '../shared/upstream-error-message.js';

/**
 * Message of an upstream error body: Google RPC `{"error":{...}}`, the array form `[{"error":...}]`
 * of a non-SSE stream, or anything else. An invalid upstream key (400 API_KEY_INVALID) is named as
 * the gateway's credential problem by the upstream call, not here.
 */
export const geminiErrorMessage = upstreamErrorMessage;
