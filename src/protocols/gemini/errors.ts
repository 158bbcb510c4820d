import type { GatewayError } from '../../errors.js';
import { geminiErrorBody, googleStatus } from '../shared/error-shapes.js';

export { geminiErrorBody };

/** `{"error":{"code","message","status"}}` for in-band stream errors (plus the trace id when known). */
export function geminiErrorObject(err: GatewayError, traceId?: string): { error: { code: number; message: string; status: string }; traceId?: string } {
  return { error: { code: err.status, message: err.message, status: googleStatus(err.status) }, ...(traceId ? { traceId } : {}) };
}

interface GoogleErrorWire {
  error?: { message?: unknown; status?: unknown } | string;
  message?: unknown;
}

/**
 * Message of an upstream error body: Google RPC `{"error":{...}}`, the array form `[{"error":...}]`
 * of a non-SSE stream, or anything else.
 */
export function geminiErrorMessage(status: number, bodyText: string): string {
  try {
    let json = JSON.parse(bodyText) as GoogleErrorWire | GoogleErrorWire[];
    if (Array.isArray(json)) json = json[0] ?? {};
    if (typeof json.error === 'string') return json.error;
    // An invalid upstream key (400 API_KEY_INVALID) is named as the gateway's credential problem
    // by the upstream call (upstream/failure.ts), not here.
    if (json.error && typeof json.error.message === 'string') return json.error.message;
    if (typeof json.message === 'string') return json.message;
  } catch {
    // not JSON
  }
  const text = bodyText.trim().slice(0, 500);
  return text || `Upstream answered with status ${status}.`;
}
