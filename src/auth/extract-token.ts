import { GatewayError } from '../core/errors.js';

/**
 * The Gemini routes (`/v1beta/...`, `/v1/models/{model}:{action}`): the only ones whose clients send
 * `?key=`. Elsewhere a key in the URL is refused, as URLs end up in access logs and browser history.
 */
const GEMINI_PATH = /^\/v1beta(?:\/|$)|^\/v1\/models\/.+:(?:generateContent|streamGenerateContent|countTokens)$/;

const WHITESPACE = /\s/;

/**
 * Finds the platform key the way each protocol's clients send it: `Authorization: Bearer` (OpenAI,
 * and accepted everywhere), `x-api-key` (Anthropic), `x-goog-api-key` or `?key=` (Gemini routes only).
 * Returns undefined when no credential is present; throws 401 when one is malformed.
 */
export function extractToken(request: Request, url: URL): string | undefined {
  const auth = request.headers.get('authorization');
  if (auth !== null) {
    // The common form, read without the regex: what follows "Bearer " has no whitespace (so is what the regex captures).
    if (auth.startsWith('Bearer ')) {
      const token = auth.slice(7);
      if (token !== '' && !WHITESPACE.test(token)) return token;
    }
    const m = /^Bearer\s+(\S+)\s*$/i.exec(auth.trim());
    if (!m) throw new GatewayError('authentication', 'Malformed Authorization header; expected "Bearer <key>".', { detail: 'invalid_api_key' });
    return m[1];
  }
  const headerKey = request.headers.get('x-api-key') ?? request.headers.get('x-goog-api-key');
  if (headerKey !== null) {
    const trimmed = headerKey.trim();
    if (!trimmed || /\s/.test(trimmed)) throw new GatewayError('authentication', 'Malformed API key header.', { detail: 'invalid_api_key' });
    return trimmed;
  }
  const queryKey = url.searchParams.get('key');
  if (queryKey !== null) {
    if (!GEMINI_PATH.test(url.pathname)) {
      throw new GatewayError('authentication', 'The key query parameter is accepted on Gemini routes only; send "Authorization: Bearer <key>".', { detail: 'invalid_api_key' });
    }
    if (!queryKey.trim()) throw new GatewayError('authentication', 'Empty key query parameter.', { detail: 'invalid_api_key' });
    return queryKey.trim();
  }
  return undefined;
}
