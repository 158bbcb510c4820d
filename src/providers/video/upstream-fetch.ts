import { GatewayError, isAbortError } from '../../errors.js';
import { openAIErrorMessage } from '../../protocols/openai-chat/errors.js';
import { redact } from '../../redact.js';
import { callerCredentialRefused } from '../caller-credential.js';
import type { Provider } from '../types.js';
import { UPSTREAM_REDIRECT, upstreamRedirectError } from '../upstream-redirect.js';
import { upstreamFailure, type CredentialSource } from '../upstream-failure.js';

export interface MediaRequest {
  url: string;
  method?: string;
  headers: Headers;
  body?: BodyInit | null;
  /** The caller's signal (client disconnect); the provider timeout applies until headers arrive. */
  signal?: AbortSignal;
  /** Whose credential the request carries (default: the gateway's); see UpstreamRequest.credential. */
  credential?: CredentialSource;
}

/**
 * One upstream call outside the chat pipeline (task polls run with no client request). Network
 * failure -> 502, timeout -> 504, upstream 4xx/5xx -> that status with its message, credentials
 * scrubbed, a redirect -> 502 (never followed). The body of a successful answer is left unread for the caller.
 */
export async function fetchMedia(provider: Provider, req: MediaRequest): Promise<Response> {
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('Upstream timed out', 'TimeoutError'));
  }, provider.timeoutMs);
  const onAbort = () => controller.abort(new DOMException('Client disconnected', 'AbortError'));
  if (req.signal?.aborted) onAbort();
  req.signal?.addEventListener('abort', onAbort, { once: true });
  let response: Response;
  try {
    response = await provider.fetch(req.url, { method: req.method ?? 'GET', headers: req.headers, body: req.body ?? null, signal: controller.signal, redirect: UPSTREAM_REDIRECT });
  } catch (err) {
    if (timedOut) throw new GatewayError('upstream_timeout', `The upstream provider '${provider.id}' did not answer within ${provider.timeoutMs} ms.`);
    if (req.signal?.aborted || isAbortError(err)) throw new GatewayError('client_closed', 'The request was cancelled.');
    throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' could not be reached.`, { cause: err });
  } finally {
    clearTimeout(timer);
  }
  const redirect = await upstreamRedirectError(provider.id, response);
  if (redirect) {
    req.signal?.removeEventListener('abort', onAbort);
    throw redirect;
  }
  if (!response.ok) {
    req.signal?.removeEventListener('abort', onAbort);
    const text = await response.text().catch(() => '');
    const message = redact(openAIErrorMessage(response.status, text), provider.secrets);
    const refused = callerCredentialRefused(provider, response.status, message);
    if (refused) throw refused;
    throw upstreamFailure({ providerId: provider.id, status: response.status, bodyText: text, message, credential: provider.credential === 'caller' ? 'caller' : (req.credential ?? 'gateway') });
  }
  return response;
}

/** Reads a JSON object answer; anything else is a 502. */
export async function readMediaJson(response: Response, provider: Provider): Promise<Record<string, unknown>> {
  const text = await response.text().catch(() => {
    throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' broke off its answer.`);
  });
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' answered with something that is not a JSON object.`);
}
