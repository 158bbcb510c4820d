/**
 * The one way to call an upstream, for chat, images and video alike: the caller's abort signal,
 * a timeout until headers arrive, an idle timeout while the body streams, the credential's owner,
 * the error body read in the shape of the protocol the upstream speaks, secrets scrubbed from it,
 * and redirects refused.
 */
import { GatewayError, isAbortError, toGatewayError } from '../errors.js';
import type { ProtocolName } from '../ir/types.js';
import { RequestObserver } from '../observability/request-observer.js';
import { callerCredentialRefused } from '../providers/caller-credential.js';
import { ABORT_HOOK, takesAbortHook, type AbortHook, type Provider } from '../providers/types.js';
import type { OnClientGone, RequestContext } from '../runtime.js';
import { upstreamErrorText } from './error-message.js';
import { upstreamFailure, type CredentialSource } from './failure.js';
import { redact } from './redact.js';
import { UPSTREAM_REDIRECT, upstreamRedirectError } from './redirect.js';

export interface UpstreamResult {
  response: Response;
  /** Aborts the upstream request (client gone, idle timeout). */
  abort: (reason?: unknown) => void;
  signal: AbortSignal;
  /** Restarts the idle timer; call on every chunk of a stream. */
  touch: () => void;
  /** Stops timers and lets go of the caller's signal once the exchange is over. */
  done: () => void;
  /** Which timeout cut the exchange, if one did. */
  timedOut: () => UpstreamTimeout | undefined;
}

/** `headers`: no answer within the provider's timeoutMs; `idle`: a stream went silent; `total`: the request's whole time ran out. */
export type UpstreamTimeout = 'headers' | 'idle' | 'total';

/**
 * Errors raised by an upstream exchange (its status, its body, its connection), as opposed to the
 * gateway's own, with the upstream's HTTP status (0 when none came).
 */
const upstreamFailures = new WeakMap<GatewayError, number>();

function fromUpstream(err: GatewayError, status = 0): GatewayError {
  upstreamFailures.set(err, status);
  return err;
}

/** True when `err` was raised by an upstream exchange (see routing/retry-policy.ts). */
export function isUpstreamFailure(err: GatewayError): boolean {
  return upstreamFailures.has(err);
}

/** The upstream's HTTP status behind `err` (0: no answer), or undefined for the gateway's own errors. */
export function upstreamStatusOf(err: GatewayError): number | undefined {
  return upstreamFailures.get(err);
}

export interface UpstreamRequest {
  url: string;
  /** Default: POST with a body, GET without. */
  method?: string;
  headers: Headers;
  body?: BodyInit | null;
  /**
   * Whose credential the request carries (default: the gateway's, from the config). An upstream
   * that refuses the gateway's credential is a 502 for the caller; one that refuses the caller's
   * own (bring your own key) stays a 401/403.
   */
  credential?: CredentialSource;
  /** The protocol whose shape the upstream's error bodies have (default: the provider's chat protocol). */
  protocol?: ProtocolName;
  /** Aborted when the caller goes away (none for background work such as task polls). */
  signal?: AbortSignal;
  /** Instead of `signal`: the bridge's own word of the caller going away (HandleContext.onClientGone). */
  onClientGone?: OnClientGone;
  /** Longest silence between chunks of a streamed answer, once `touch` was first called (ms). */
  idleMs?: number;
  /** Longest the whole exchange may take, body included (ms; the rest of the request's total time). */
  totalMs?: number;
  /** The client request's observer: one client span per attempt, onRequest before the first. */
  observer?: RequestObserver;
}

/**
 * The bridges' client-gone hooks by request context. Only the context the gateway built for the
 * request is here: a context derived from it (a background run, with a signal of its own) is not,
 * so its upstream calls follow its own signal.
 */
const clientGoneHooks = new WeakMap<RequestContext, OnClientGone>();

/** Upstream calls made for `ctx` learn of the client leaving through `hook` rather than `ctx.signal`. */
export function followClientGone(ctx: RequestContext, hook: OnClientGone): void {
  clientGoneHooks.set(ctx, hook);
}

/** An upstream request on behalf of this client request (the client leaving, the stream idle timeout, onRequest). */
export function upstreamRequest(ctx: RequestContext, req: UpstreamRequest): UpstreamRequest {
  const total = ctx.deadline === undefined ? {} : { totalMs: Math.max(0, ctx.deadline - Date.now()) };
  const onClientGone = clientGoneHooks.get(ctx);
  const client = onClientGone ? { onClientGone } : { signal: ctx.signal };
  return { ...req, ...client, idleMs: ctx.rt.config.timeouts.streamIdleMs, observer: ctx.obs, ...total };
}

/**
 * Sends one request upstream. Network failure -> 502, timeout -> 504, the caller gone -> 499,
 * upstream 4xx/5xx -> the same status with its message (credentials scrubbed), a redirect -> 502
 * (never followed). The body of a successful answer is left unread for the caller.
 */
export async function callUpstream(provider: Provider, req: UpstreamRequest): Promise<UpstreamResult> {
  const obs = req.observer;
  if (!obs) return callOnce(provider, req);
  // The one seam per upstream attempt: a client span (traceparent sent on), onRequest before the first.
  const { attempt, context } = obs.startAttempt(provider, req.url, req.headers);
  let result: UpstreamResult;
  try {
    result = await RequestObserver.within(context, () => callOnce(provider, req));
  } catch (err) {
    const g = toGatewayError(err);
    const status = upstreamStatusOf(g);
    attempt.failed(status ? { code: g.code, status } : { code: g.code });
    throw err;
  }
  attempt.answered(result.response.status);
  const done = result.done;
  // In place: a copy would read `signal` (and build it).
  result.done = () => {
    done();
    attempt.ended();
  };
  return result;
}

/**
 * The abort of one upstream exchange. Node builds an AbortController's signal only when it is
 * read: a fetch that takes an abort hook (ABORT_HOOK) is cut through it instead, so an exchange
 * that ends normally builds no signal (the stream pump reads it; sync calls do not).
 */
function exchangeAbort(fetch: Provider['fetch']): { abort: (reason?: unknown) => void; init: Pick<RequestInit, 'signal'> & { [ABORT_HOOK]?: AbortHook }; controller: AbortController } {
  const controller = new AbortController();
  if (!takesAbortHook(fetch)) return { abort: (reason) => controller.abort(reason), init: { signal: controller.signal }, controller };
  let cutFetch: ((reason?: unknown) => void) | undefined;
  let cut: { reason: unknown } | undefined;
  const hook: AbortHook = (cutCall) => {
    if (cut) cutCall(cut.reason);
    else cutFetch = cutCall;
  };
  const abort = (reason?: unknown) => {
    if (!cut) {
      cut = { reason };
      // The fetch first, as when it listened on the signal.
      cutFetch?.(reason);
    }
    controller.abort(reason);
  };
  return { abort, init: { [ABORT_HOOK]: hook }, controller };
}

async function callOnce(provider: Provider, req: UpstreamRequest): Promise<UpstreamResult> {
  const { abort, init: abortInit, controller } = exchangeAbort(provider.fetch);
  const clientSignal = req.signal;
  let clientGone = false;
  const onClientAbort = () => {
    clientGone = true;
    abort(new DOMException('Client disconnected', 'AbortError'));
  };
  let unfollow: (() => void) | undefined;
  if (req.onClientGone) unfollow = req.onClientGone(onClientAbort);
  else if (clientSignal) {
    if (clientSignal.aborted) onClientAbort();
    clientSignal.addEventListener('abort', onClientAbort, { once: true });
    unfollow = () => clientSignal.removeEventListener('abort', onClientAbort);
  }
  let timedOut: UpstreamTimeout | undefined;
  const cut = (kind: UpstreamTimeout) => () => {
    timedOut ??= kind;
    abort(new DOMException(`Upstream ${kind} timeout`, 'TimeoutError'));
  };
  let timer: ReturnType<typeof setTimeout> | undefined = setTimeout(cut('headers'), provider.timeoutMs);
  let totalTimer = req.totalMs === undefined ? undefined : setTimeout(cut('total'), req.totalMs);
  const clear = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  const done = () => {
    clear();
    if (totalTimer) clearTimeout(totalTimer);
    totalTimer = undefined;
    unfollow?.();
    unfollow = undefined;
  };

  let response: Response;
  try {
    response = await provider.fetch(req.url, {
      method: req.method ?? (req.body ? 'POST' : 'GET'),
      headers: req.headers,
      body: req.body ?? null,
      ...abortInit,
      redirect: UPSTREAM_REDIRECT,
      // Node's fetch needs this to stream a ReadableStream request body.
      ...(req.body instanceof ReadableStream ? { duplex: 'half' } : {}),
    } as RequestInit);
  } catch (err) {
    done();
    if (timedOut === 'total') throw fromUpstream(new GatewayError('upstream_timeout', `The request's total time ran out before the upstream provider '${provider.id}' answered.`));
    if (timedOut) throw fromUpstream(new GatewayError('upstream_timeout', `The upstream provider '${provider.id}' did not answer within ${provider.timeoutMs} ms.`));
    if (clientGone || clientSignal?.aborted || isAbortError(err)) throw new GatewayError('client_closed', 'The request was cancelled.');
    throw fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${provider.id}' could not be reached.`, { cause: err }));
  }
  clear();

  const redirect = await upstreamRedirectError(provider.id, response);
  if (redirect) {
    done();
    throw fromUpstream(redirect, response.status);
  }
  if (!response.ok) {
    let text = '';
    try {
      text = await response.text();
    } catch {
      // body lost; the status still says enough
    }
    done();
    const message = redact(upstreamErrorText(req.protocol ?? provider.chatProtocol, response.status, text), provider.secrets);
    const refused = callerCredentialRefused(provider, response.status, message);
    if (refused) throw fromUpstream(refused, response.status);
    const retryAfter = retryAfterSeconds(response.headers, Date.now());
    throw fromUpstream(upstreamFailure({ providerId: provider.id, status: response.status, bodyText: text, message, credential: provider.credential === 'caller' ? 'caller' : (req.credential ?? 'gateway'), ...(retryAfter !== undefined ? { retryAfter } : {}) }), response.status);
  }

  const idleMs = req.idleMs;
  const onIdle = cut('idle');
  const touch = () => {
    if (idleMs === undefined) return;
    // One idle timer per stream, restarted in place where the runtime can (Node, Bun: refresh()).
    const running = timer as { refresh?: () => unknown } | undefined;
    if (typeof running?.refresh === 'function') {
      running.refresh();
      return;
    }
    clear();
    timer = setTimeout(onIdle, idleMs);
  };
  return {
    response,
    abort,
    // Built when read (the stream pump reads it); aborted already if the exchange was.
    get signal() {
      return controller.signal;
    },
    touch,
    done,
    timedOut: () => timedOut,
  };
}

/** The upstream's `retry-after-ms` (OpenAI, Anthropic) or `retry-after` (seconds or an HTTP date), in seconds. */
export function retryAfterSeconds(headers: Headers, now: number): number | undefined {
  const ms = Number(headers.get('retry-after-ms') ?? Number.NaN);
  if (Number.isFinite(ms) && ms >= 0) return ms / 1000;
  const raw = headers.get('retry-after');
  if (raw === null || raw.trim() === '') return undefined;
  const seconds = Number(raw);
  if (Number.isFinite(seconds)) return seconds >= 0 ? seconds : undefined;
  const at = Date.parse(raw);
  return Number.isNaN(at) ? undefined : Math.max(0, (at - now) / 1000);
}

/** Reads and parses an upstream JSON object answer; anything else is a 502. `raw.text` gets the text as read. */
export async function readUpstreamJson(result: UpstreamResult, providerId: string, raw?: { text: string }): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await result.response.text();
  } catch (err) {
    result.done();
    if (result.timedOut()) throw fromUpstream(new GatewayError('upstream_timeout', `The upstream provider '${providerId}' timed out while sending its answer.`));
    if (isAbortError(err)) throw new GatewayError('client_closed', 'The request was cancelled.');
    throw fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${providerId}' broke off its answer.`));
  }
  result.done();
  if (raw) raw.text = text;
  try {
    const json = JSON.parse(text) as unknown;
    if (json && typeof json === 'object' && !Array.isArray(json)) return json as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with something that is not JSON.`));
}
