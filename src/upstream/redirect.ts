import { GatewayError } from '../core/errors.js';

/**
 * Every upstream call is made with `redirect: 'manual'` and a 3xx answer is an error: following it
 * would send the provider's credentials (x-api-key, x-goog-api-key, ...) to another address and
 * send a POST body twice. A browser-style fetch hands back an opaque redirect (status 0) instead.
 */
export const UPSTREAM_REDIRECT: RequestRedirect = 'manual';

/** A 3xx, or a browser-style fetch's opaque redirect. */
export function isRedirect(response: Response): boolean {
  return (response.status >= 300 && response.status < 400) || response.type === 'opaqueredirect';
}

/** A 502 naming the provider when `response` is a redirect (its body is discarded), else undefined. */
export async function upstreamRedirectError(providerId: string, response: Response): Promise<GatewayError | undefined> {
  if (!isRedirect(response)) return undefined;
  await response.body?.cancel().catch(() => undefined);
  const status = response.status >= 300 ? String(response.status) : '3xx';
  return new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with a redirect (${status}), which the gateway does not follow.`, { detail: 'upstream_redirect' });
}
