/**
 * A GatewayError in each wire shape the gateway answers in: OpenAI (`{"error":{message,type,param,
 * code}}`, also Responses, images and videos), Anthropic (`{"type":"error","error":{type,message}}`)
 * and Google RPC (`{"error":{code,message,status}}`, Gemini and Interactions). Every table is keyed
 * by the gateway's error code, so a new code does not compile until each shape names it. Bodies
 * carry the trace id; stream frames built from them too, when it is known.
 */
import type { GatewayError, GatewayErrorCode } from '../../core/errors.js';

export type ErrorShape = 'openai' | 'anthropic' | 'gemini';

const OPENAI_TYPES: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  unsupported: 'invalid_request_error',
  authentication: 'authentication_error',
  permission_denied: 'permission_error',
  not_found: 'invalid_request_error',
  method_not_allowed: 'invalid_request_error',
  conflict: 'invalid_request_error',
  gone: 'invalid_request_error',
  payload_too_large: 'invalid_request_error',
  unsupported_media_type: 'invalid_request_error',
  request_timeout: 'invalid_request_error',
  rate_limited: 'rate_limit_error',
  client_closed: 'invalid_request_error',
  upstream_error: 'upstream_error',
  bad_gateway: 'upstream_error',
  upstream_timeout: 'timeout_error',
  unavailable: 'server_error',
  internal: 'server_error',
};

const OPENAI_CODES: Record<GatewayErrorCode, string | null> = {
  invalid_request: null,
  unsupported: 'unsupported_parameter',
  authentication: 'invalid_api_key',
  permission_denied: 'model_not_allowed',
  not_found: 'not_found',
  method_not_allowed: null,
  conflict: null,
  gone: null,
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'unsupported_media_type',
  request_timeout: 'request_timeout',
  rate_limited: 'rate_limit_exceeded',
  client_closed: null,
  upstream_error: null,
  bad_gateway: null,
  upstream_timeout: 'upstream_timeout',
  unavailable: null,
  internal: null,
};

export function openAIErrorObject(err: GatewayError): { message: string; type: string; param: string | null; code: string | null } {
  return {
    message: err.message,
    // A spent budget reads as OpenAI's own: type and code `insufficient_quota`.
    type: err.detail === 'insufficient_quota' ? 'insufficient_quota' : OPENAI_TYPES[err.code],
    param: err.param,
    code: err.detail ?? OPENAI_CODES[err.code],
  };
}

function openAIErrorBody(err: GatewayError, traceId: string): unknown {
  return { error: openAIErrorObject(err), traceId };
}

const ANTHROPIC_TYPES: Record<GatewayErrorCode, string> = {
  invalid_request: 'invalid_request_error',
  unsupported: 'invalid_request_error',
  authentication: 'authentication_error',
  permission_denied: 'permission_error',
  not_found: 'not_found_error',
  method_not_allowed: 'invalid_request_error',
  conflict: 'invalid_request_error',
  gone: 'invalid_request_error',
  payload_too_large: 'request_too_large',
  unsupported_media_type: 'invalid_request_error',
  request_timeout: 'timeout_error',
  rate_limited: 'rate_limit_error',
  client_closed: 'invalid_request_error',
  upstream_error: 'api_error',
  bad_gateway: 'api_error',
  upstream_timeout: 'timeout_error',
  unavailable: 'overloaded_error',
  internal: 'api_error',
};

function anthropicErrorType(err: GatewayError): string {
  return ANTHROPIC_TYPES[err.code];
}

/** `{"type":"error","error":{"type","message"}}`, with the trace id when it is known. */
export function anthropicErrorBody(err: GatewayError, traceId?: string): Record<string, unknown> {
  return { type: 'error', error: { type: anthropicErrorType(err), message: err.message }, ...(traceId ? { request_id: traceId, traceId } : {}) };
}

const GOOGLE_STATUS: Record<GatewayErrorCode, string> = {
  invalid_request: 'INVALID_ARGUMENT',
  unsupported: 'INVALID_ARGUMENT',
  authentication: 'UNAUTHENTICATED',
  permission_denied: 'PERMISSION_DENIED',
  not_found: 'NOT_FOUND',
  method_not_allowed: 'UNIMPLEMENTED',
  conflict: 'ABORTED',
  gone: 'FAILED_PRECONDITION',
  payload_too_large: 'INVALID_ARGUMENT',
  unsupported_media_type: 'INVALID_ARGUMENT',
  request_timeout: 'DEADLINE_EXCEEDED',
  rate_limited: 'RESOURCE_EXHAUSTED',
  client_closed: 'CANCELLED',
  upstream_error: 'UNAVAILABLE',
  bad_gateway: 'UNAVAILABLE',
  upstream_timeout: 'DEADLINE_EXCEEDED',
  unavailable: 'UNAVAILABLE',
  internal: 'INTERNAL',
};

/** The Google RPC status name of an error (`INVALID_ARGUMENT`, `UNAVAILABLE`, ...); a 500 (an upstream's too) is `INTERNAL`, as Google's own. */
export function googleStatus(err: GatewayError): string {
  return err.status === 500 ? 'INTERNAL' : GOOGLE_STATUS[err.code];
}

/** `{"error":{"code","message","status"}}`, with the trace id when it is known. */
export function geminiErrorBody(err: GatewayError, traceId?: string): { error: { code: number; message: string; status: string }; traceId?: string } {
  return { error: { code: statusInShape('gemini', err), message: err.message, status: googleStatus(err) }, ...(traceId ? { traceId } : {}) };
}

/**
 * The HTTP status an error answers with in a shape: its own, except Anthropic's 529 ("overloaded",
 * not a standard status, which some HTTP stacks and proxies treat as fatal or unknown) is a 503
 * for every client but an Anthropic one (retryable the same way).
 */
export function statusInShape(shape: ErrorShape, err: GatewayError): number {
  return err.status === 529 && shape !== 'anthropic' ? 503 : err.status;
}

const BODIES: Record<ErrorShape, (err: GatewayError, traceId: string) => unknown> = {
  openai: openAIErrorBody,
  anthropic: anthropicErrorBody,
  gemini: geminiErrorBody,
};

export function errorBodyFor(shape: ErrorShape, err: GatewayError, traceId: string): unknown {
  return BODIES[shape](err, traceId);
}
