/** One error type for the whole gateway; each protocol renders it in its own wire shape. */
export type GatewayErrorCode =
  | 'invalid_request'
  | 'authentication'
  | 'permission_denied'
  | 'not_found'
  | 'method_not_allowed'
  | 'payload_too_large'
  | 'unsupported_media_type'
  | 'request_timeout'
  | 'conflict'
  | 'gone'
  | 'rate_limited'
  | 'client_closed'
  | 'unsupported'
  | 'upstream_error'
  | 'bad_gateway'
  | 'upstream_timeout'
  | 'unavailable'
  | 'internal';

const STATUS: Record<GatewayErrorCode, number> = {
  invalid_request: 400,
  unsupported: 400,
  authentication: 401,
  permission_denied: 403,
  not_found: 404,
  method_not_allowed: 405,
  request_timeout: 408,
  conflict: 409,
  gone: 410,
  payload_too_large: 413,
  unsupported_media_type: 415,
  rate_limited: 429,
  // nginx's "client closed request": nobody reads it; logs and hooks see why the call ended.
  client_closed: 499,
  internal: 500,
  upstream_error: 502,
  bad_gateway: 502,
  unavailable: 503,
  upstream_timeout: 504,
};

export interface GatewayErrorInit {
  /** The request field at fault, e.g. `messages[0].role`. */
  param?: string | null;
  /** Overrides the status from the table (used to keep an upstream's own status). */
  status?: number;
  /** Seconds, for 429/503. */
  retryAfter?: number;
  /** A vendor-style sub-code, e.g. `model_not_found`. */
  detail?: string;
  cause?: unknown;
}

export class GatewayError extends Error {
  readonly code: GatewayErrorCode;
  readonly status: number;
  readonly param: string | null;
  readonly retryAfter: number | undefined;
  readonly detail: string | undefined;
  /**
   * Set when an upstream exchange raised the error (its status, its body, its connection), as
   * opposed to the gateway's own: the upstream's HTTP status, 0 when no answer came
   * (upstream/failure.ts fromUpstream). Retries and attempt records read it.
   */
  upstreamStatus: number | undefined;

  constructor(code: GatewayErrorCode, message: string, init: GatewayErrorInit = {}) {
    super(message, init.cause === undefined ? undefined : { cause: init.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.status = init.status ?? STATUS[code];
    this.param = init.param ?? null;
    this.retryAfter = init.retryAfter;
    this.detail = init.detail;
    this.upstreamStatus = undefined;
  }
}

/** Any thrown value -> GatewayError. Unknown throws become a generic 500 without their text. */
export function toGatewayError(err: unknown): GatewayError {
  if (err instanceof GatewayError) return err;
  if (isAbortError(err)) return new GatewayError('upstream_timeout', 'The request was aborted or timed out.');
  return new GatewayError('internal', 'Internal gateway error.', { cause: err });
}

export function isAbortError(err: unknown): boolean {
  return (
    typeof err === 'object' &&
    err !== null &&
    'name' in err &&
    ((err as { name: unknown }).name === 'AbortError' || (err as { name: unknown }).name === 'TimeoutError')
  );
}

/** Map a status code to the closest gateway code (used for upstream errors). */
export function codeForStatus(status: number): GatewayErrorCode {
  if (status === 400 || status === 422) return 'invalid_request';
  if (status === 401) return 'authentication';
  if (status === 403) return 'permission_denied';
  if (status === 404) return 'not_found';
  if (status === 409) return 'conflict';
  if (status === 410) return 'gone';
  if (status === 413) return 'payload_too_large';
  if (status === 429) return 'rate_limited';
  if (status === 503 || status === 529) return 'unavailable';
  if (status === 504) return 'upstream_timeout';
  if (status >= 500) return 'upstream_error';
  return 'invalid_request';
}
