/** OpenAI chat errors: the body shape lives in shared/error-bodies.ts; here the stream frame and the upstream readers. */
import { GatewayError } from '../../core/errors.js';
import { sseFrame } from '../../wire/sse.js';
import { openAIErrorObject } from '../shared/error-bodies.js';
import { upstreamErrorMessage } from '../shared/upstream-error-message.js';

/** The in-band error chunk of an OpenAI stream: `data: {"error":{...},"traceId"}`. */
export function openAIErrorFrame(err: GatewayError, traceId: string): string {
  return sseFrame(JSON.stringify({ error: openAIErrorObject(err), traceId }));
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
