import type { GatewayError } from '../../errors.js';
import { openAIErrorBody } from '../openai-chat/errors.js';

export type ErrorShape = 'openai' | 'anthropic' | 'gemini';

const ANTHROPIC_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  408: 'timeout_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  503: 'overloaded_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

export function anthropicErrorType(status: number): string {
  return ANTHROPIC_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

/** `{"type":"error","error":{"type","message"}}` */
export function anthropicErrorBody(err: GatewayError, traceId: string): unknown {
  return { type: 'error', error: { type: anthropicErrorType(err.status), message: err.message }, request_id: traceId, traceId };
}

const GOOGLE_STATUS: Record<number, string> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  405: 'UNIMPLEMENTED',
  408: 'DEADLINE_EXCEEDED',
  409: 'ABORTED',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  501: 'UNIMPLEMENTED',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function googleStatus(status: number): string {
  return GOOGLE_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'FAILED_PRECONDITION');
}

/** `{"error":{"code","message","status"}}` */
export function geminiErrorBody(err: GatewayError, traceId: string): unknown {
  return { error: { code: err.status, message: err.message, status: googleStatus(err.status) }, traceId };
}

export function errorBodyFor(shape: ErrorShape, err: GatewayError, traceId: string): unknown {
  if (shape === 'anthropic') return anthropicErrorBody(err, traceId);
  if (shape === 'gemini') return geminiErrorBody(err, traceId);
  return openAIErrorBody(err, traceId);
}
