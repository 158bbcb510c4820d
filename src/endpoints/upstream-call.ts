import { GatewayError, isAbortError, toGatewayError } from '../errors.js';
import { RequestObserver } from '../observability/request-observer.js';
import { redact } from '../redact.js';
import { callerCredentialRefused } from '../providers/caller-credential.js';
import type { Provider } from '../providers/types.js';
import { UPSTREAM_REDIRECT, upstreamRedirectError } from '../providers/upstream-redirect.js';
import { upstreamFailure, type CredentialSource } from '../providers/upstream-failure.js';
import type { RequestContext } from '../runtime.js';

export interface UpstreamResult {
  response: Response;
  /** Aborts the upstream request (client gone, idle timeout). */
  abort: (reason?: unknown) => void;
  signal: AbortSignal;
  /** Restarts the idle timer; call on every chunk of a stream. */
  touch: () => void;
  /** Stops timers once the exchange is over. */
  done: () => void;
}

export interface UpstreamRequest {
  url: string;
  method?: string;
  headers: Headers;
  body?: BodyInit | null;
  /**
   * Whose credential the request carries (default: the gateway's, from the config). An upstream
   * that refuses the gateway's credential is a 502 for the caller; one that refuses the caller's
   * own (bring your own key) stays a 401/403.
   */
  credential?: CredentialSource;
}

/**
 * Sends one request upstream with the client's abort signal and a timeout until headers arrive,
 * then an idle timeout while the body streams. Network failure -> 502, timeout -> 504, upstream
 * 4xx/5xx -> the same status with its message (credentials scrubbed), a redirect -> 502 (never followed).
 */
export async function callUpstream(
  ctx: RequestContext,
  provider: Provider,
  req: UpstreamRequest,
  errorMessage: (status: number, bodyText: string) => string,
): Promise<UpstreamResult> {
  // The one seam per upstream attempt: a client span (traceparent sent on), onRequest before the first.
  const { attempt, context } = ctx.obs.startAttempt(provider, req.url, req.headers);
  let result: UpstreamResult;
  try {
    result = await RequestObserver.within(context, () => callOnce(ctx, provider, req, errorMessage));
  } catch (err) {
    attempt.failed({ code: toGatewayError(err).code });
    throw err;
  }
  attempt.answered(result.response.status);
  const done = result.done;
  return {
    ...result,
    done: () => {
      done();
      attempt.ended();
    },
  };
}

async function callOnce(
  ctx: RequestContext,
  provider: Provider,
  req: UpstreamRequest,
  errorMessage: (status: number, bodyText: string) => string,
): Promise<UpstreamResult> {
  const controller = new AbortController();
  const onClientAbort = () => controller.abort(new DOMException('Client disconnected', 'AbortError'));
  if (ctx.signal.aborted) onClientAbort();
  ctx.signal.addEventListener('abort', onClientAbort, { once: true });
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(() => {
    timedOut = true;
    controller.abort(new DOMException('Upstream timed out', 'TimeoutError'));
  }, provider.timeoutMs);
  const idleMs = ctx.rt.config.timeouts.streamIdleMs;
  const clear = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const done = () => {
    clear();
    ctx.signal.removeEventListener('abort', onClientAbort);
  };

  let response: Response;
  try {
    response = await provider.fetch(req.url, {
      method: req.method ?? 'POST',
      headers: req.headers,
      body: req.body ?? null,
      signal: controller.signal,
      redirect: UPSTREAM_REDIRECT,
      // Node's fetch needs this to stream a ReadableStream request body.
      ...(req.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  } catch (err) {
    done();
    if (timedOut) throw new GatewayError('upstream_timeout', `The upstream provider '${provider.id}' did not answer within ${provider.timeoutMs} ms.`);
    if (ctx.signal.aborted || isAbortError(err)) throw new GatewayError('upstream_error', 'The request was cancelled.', { status: 499 });
    throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' could not be reached.`, { cause: err });
  }
  clear();

  const redirect = await upstreamRedirectError(provider.id, response);
  if (redirect) {
    done();
    throw redirect;
  }
  if (!response.ok) {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // body lost; the status still says enough
    }
    done();
    const message = redact(errorMessage(response.status, text), provider.secrets);
    const refused = callerCredentialRefused(provider, response.status, message);
    if (refused) throw refused;
    const retryAfter = Number(response.headers.get('retry-after'));
    throw upstreamFailure({ providerId: provider.id, status: response.status, bodyText: text, message, credential: provider.credential === 'caller' ? 'caller' : (req.credential ?? 'gateway'), retryAfter });
  }

  const touch = () => {
    clear();
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort(new DOMException('Upstream stream idle', 'TimeoutError'));
    }, idleMs);
  };
  return { response, abort: (reason) => controller.abort(reason), signal: controller.signal, touch, done };
}

/** Reads and parses an upstream JSON body; anything else is a 502. */
export async function readUpstreamJson(result: UpstreamResult, providerId: string): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await result.response.text();
  } catch (err) {
    result.done();
    if (isAbortError(err)) throw new GatewayError('upstream_timeout', `The upstream provider '${providerId}' timed out while sending its answer.`);
    throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' broke off its answer.`);
  }
  result.done();
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with something that is not JSON.`);
}
