/**
 * An upstream's error answer as the caller should see it. Most statuses are kept (a 400 about the
 * caller's input is the caller's 400, a 429 is a 429), with one exception: when the upstream
 * refuses the credential, whose credential it was decides.
 *
 * - The gateway's own key (from the config): the caller did nothing wrong, and a 401/403 would
 *   read as "your key failed". It becomes a 502 naming the provider.
 * - The caller's own key (bring your own key, where the caller's request carries the vendor
 *   credential): it stays a 401/403 that says so.
 */
import { codeForStatus, GatewayError } from '../core/errors.js';

/** Who supplied the credential an upstream call carries: the gateway's (the provider's apiKey) or the caller's own (keys[].providerKeys, bring your own key). */
export type CredentialSource = 'gateway' | 'caller';

/**
 * 401/403, and Gemini's 400 with reason API_KEY_INVALID (the Gemini API answers a wrong key with
 * 400, not 401).
 */
function isCredentialRefusal(status: number, bodyText: string): boolean {
  return status === 401 || status === 403 || (status === 400 && bodyText.includes('API_KEY_INVALID') && hasInvalidKeyReason(bodyText));
}

/** Google RPC `{"error":{"details":[{"reason":"API_KEY_INVALID"}]}}`, also in the array form of a stream. */
function hasInvalidKeyReason(bodyText: string): boolean {
  try {
    const json = JSON.parse(bodyText) as unknown;
    const first: unknown = Array.isArray(json) ? json[0] : json;
    const details = (first as { error?: { details?: unknown } } | null)?.error?.details;
    return Array.isArray(details) && details.some((d) => (d as { reason?: unknown } | null)?.reason === 'API_KEY_INVALID');
  } catch {
    return false;
  }
}

/**
 * Marks `err` as raised by an upstream exchange, with the upstream's HTTP status (0: no answer
 * came). A call its client left before the answer is one too: the call was made, so it counts as
 * an attempt (never retried: client_closed is no retryable status).
 */
export function fromUpstream(err: GatewayError, status = 0): GatewayError {
  err.upstreamStatus = status;
  return err;
}

/** True when `err` was raised by an upstream exchange (see routing/retry-policy.ts). */
export function isUpstreamFailure(err: GatewayError): boolean {
  return err.upstreamStatus !== undefined;
}

/** The upstream's HTTP status behind `err` (0: no answer), or undefined for the gateway's own errors. */
export function upstreamStatusOf(err: GatewayError): number | undefined {
  return err.upstreamStatus;
}

/**
 * An upstream 401/403 on the caller's own credential stays a 401/403 and says so (the gateway's
 * own credential failing is the gateway's problem, not the caller's). `message` is already scrubbed.
 */
export function callerCredentialRefused(providerId: string, credential: CredentialSource | undefined, status: number, message: string): GatewayError | undefined {
  if (credential !== 'caller' || (status !== 401 && status !== 403)) return undefined;
  return new GatewayError(status === 401 ? 'authentication' : 'permission_denied', `The provider '${providerId}' refused your own credential for it (keys[].providerKeys), with ${status}: ${message}`, {
    status,
    detail: 'provider_key_refused',
  });
}

export interface UpstreamFailure {
  providerId: string;
  status: number;
  /** The raw error body (only inspected, never shown). */
  bodyText: string;
  /** The upstream's message, already redacted. */
  message: string;
  credential: CredentialSource;
  retryAfter?: number;
  /** `code` and `param` of an OpenAI-shaped error body (read from the redacted body). */
  fields?: { code?: string; param?: string };
}

export function upstreamFailure(f: UpstreamFailure): GatewayError {
  const retry = f.retryAfter !== undefined && Number.isFinite(f.retryAfter) && f.retryAfter > 0 ? { retryAfter: f.retryAfter } : {};
  if (isCredentialRefusal(f.status, f.bodyText)) {
    if (f.credential === 'gateway') {
      return new GatewayError('bad_gateway', `The provider '${f.providerId}' refused the gateway's credential (${f.status}): ${f.message}`, { detail: 'upstream_credential_refused' });
    }
    const status = f.status === 403 ? 403 : 401;
    return new GatewayError(status === 403 ? 'permission_denied' : 'authentication', `The provider '${f.providerId}' refused the credential you supplied (${f.status}): ${f.message}`, {
      status,
      detail: 'upstream_credential_refused',
    });
  }
  const status = f.status >= 400 && f.status < 600 ? f.status : 502;
  // An OpenAI-shaped upstream's own `code` and `param` are what an OpenAI client gets in its error (the other shapes have no such fields).
  const { code, param } = f.fields ?? {};
  return new GatewayError(codeForStatus(status), `Upstream provider '${f.providerId}' returned ${f.status}: ${f.message}`, {
    status,
    ...retry,
    ...(code !== undefined ? { detail: code } : {}),
    ...(param !== undefined ? { param } : {}),
  });
}
