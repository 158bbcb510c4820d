/**
 * The one way to call an upstream, for chat, images and video alike: the caller's abort signal,
 * a timeout until headers arrive, an idle timeout while the body streams, the credential's owner,
 * the error body read in the shape of the protocol the upstream speaks, secrets scrubbed from it,
 * and redirects refused.
 */
import type { OnClientGone } from '../core/client-gone.js';
import { GatewayError, isAbortError, toGatewayError } from '../core/errors.js';
import type { ProtocolName } from '../ir/types.js';
import type { AttemptTarget } from '../observability/attempt.js';
import { RequestObserver, type UpstreamAttempt } from '../observability/request-observer.js';
import { upstreamErrorText } from '../protocols/registry.js';
import { openAIErrorFields } from '../protocols/shared/upstream-error-message.js';
import { callerCredentialRefused, fromUpstream, upstreamFailure, upstreamStatusOf, type CredentialSource } from './failure.js';
import { takesAbortHook, type AbortHook, type FetchLike } from './fetch.js';
import { redact } from '../core/redact.js';
import { isRedirect, UPSTREAM_REDIRECT, upstreamRedirectError } from './redirect.js';

export interface UpstreamResult {
  response: Response;
  /** Aborts the upstream request (client gone, idle timeout). */
  abort: (reason?: unknown) => void;
  signal: AbortSignal;
  /** Restarts the idle timer (before every read of a stream's body); pauseIdle stops it counting while the client holds the stream back. */
  touch: () => void;
  pauseIdle?: () => void;
  /** Stops timers and lets go of the caller's signal once the exchange is over. */
  done: () => void;
  /** Which timeout cut the exchange, if one did. */
  timedOut: () => UpstreamTimeout | undefined;
}

/** `headers`: no answer within the provider's timeoutMs; `idle`: a stream went silent; `total`: the request's whole time ran out. */
export type UpstreamTimeout = 'headers' | 'idle' | 'total';

/** What a call needs of the vendor it goes to (a configured Provider is one). */
export interface UpstreamEndpoint extends AttemptTarget {
  fetch: FetchLike;
  /** How long the upstream may take to send its answer's headers (ms). */
  timeoutMs: number;
  /** Credentials scrubbed from the upstream's error messages. */
  secrets: readonly string[];
  /** Whose credential the calls carry (default: the gateway's). */
  credential?: CredentialSource;
}

/** What an upstream call takes of the client request it is made for. */
export interface UpstreamCaller {
  /** Aborted when the client goes away. */
  signal: AbortSignal;
  /** The bridge's word of the client leaving; when set, the call follows it instead of `signal`. */
  clientGone: OnClientGone | undefined;
  /** When the request's total time runs out (Date.now() ms). */
  deadline?: number;
  /** The client request's observer: one client span per attempt, onRequest before the first. */
  obs: RequestObserver;
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

/** Every field of T named (so a field added to UpstreamRequest is not dropped by upstreamRequest). */
type AllFields<T> = { [K in keyof Required<T>]: T[K] };

/**
 * An upstream request on behalf of this client request: it follows the client leaving (the
 * bridge's clientGone, else its signal), stops at the request's deadline and a stream silent for
 * `idleMs` (`timeouts.streamIdleMs`), and reports to the request's observer.
 */
export function upstreamRequest(ctx: UpstreamCaller, req: UpstreamRequest, idleMs: number): UpstreamRequest {
  const onClientGone = ctx.clientGone;
  // One object of one shape: adding fields to the caller's object (or spreading it) costs more.
  const out: AllFields<UpstreamRequest> = {
    url: req.url,
    method: req.method,
    headers: req.headers,
    body: req.body,
    credential: req.credential,
    protocol: req.protocol,
    signal: onClientGone ? req.signal : ctx.signal,
    onClientGone: onClientGone ?? req.onClientGone,
    idleMs,
    totalMs: ctx.deadline === undefined ? req.totalMs : Math.max(0, ctx.deadline - Date.now()),
    observer: ctx.obs,
  };
  return out;
}

/**
 * Sends one request upstream. Network failure -> 502, timeout -> 504, the caller gone -> 499,
 * upstream 4xx/5xx -> the same status with its message (credentials scrubbed), a redirect -> 502
 * (never followed). The body of a successful answer is left unread for the caller.
 */
export function callUpstream(provider: UpstreamEndpoint, req: UpstreamRequest): Promise<UpstreamResult> {
  const obs = req.observer;
  if (!obs) return callOnce(provider, req, undefined);
  // The one seam per upstream attempt: a client span (traceparent sent on), onRequest before the first.
  const { attempt, context } = obs.startAttempt(provider, req.url, req.headers);
  return RequestObserver.within(context, () => callOnce(provider, req, attempt));
}

/**
 * One upstream exchange: its abort, its timers, the caller going away. Node builds an
 * AbortController's signal only when it is read, and this builds the controller only then too: a
 * fetch that takes an abort hook (HookableFetch) is cut through it instead, so an exchange that ends
 * normally builds neither (the stream pump may read `signal`; sync calls do not).
 */
class Exchange implements UpstreamResult {
  response!: Response;
  #controller: AbortController | undefined;
  #cut = false;
  #cutReason: unknown;
  #cutFetch: ((reason?: unknown) => void) | undefined;
  #clientGone = false;
  #unfollow: (() => void) | undefined;
  #timedOut: UpstreamTimeout | undefined;
  /** The headers timeout (or the total one, when that comes first); once the headers are in, the total's rest. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  #timerKind: 'headers' | 'total';
  #headersIn = false;
  /** When the total time runs out (Date.now() ms), while the timer still counts the headers timeout. */
  #totalAt: number | undefined;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;
  /** The stream waits on its client (pauseIdle): an idle timer firing now does not cut it. */
  #idlePaused = false;
  readonly #idleMs: number | undefined;
  readonly #attempt: UpstreamAttempt | undefined;

  constructor(provider: UpstreamEndpoint, req: UpstreamRequest, attempt: UpstreamAttempt | undefined) {
    this.#attempt = attempt;
    this.#idleMs = req.idleMs;
    if (!takesAbortHook(provider.fetch)) this.#controller = new AbortController();
    const clientSignal = req.signal;
    if (req.onClientGone || clientSignal) {
      const onClientAbort = () => {
        this.#clientGone = true;
        this.abort(new DOMException('Client disconnected', 'AbortError'));
      };
      if (req.onClientGone) this.#unfollow = req.onClientGone(onClientAbort);
      else if (clientSignal) {
        if (clientSignal.aborted) onClientAbort();
        clientSignal.addEventListener('abort', onClientAbort, { once: true });
        this.#unfollow = () => clientSignal.removeEventListener('abort', onClientAbort);
      }
    }
    // One timer where there were two (headers, total): the first to run out is armed.
    const totalMs = req.totalMs;
    if (totalMs !== undefined && totalMs < provider.timeoutMs) {
      this.#timerKind = 'total';
      this.#timer = setTimeout(() => this.#onTimer(), totalMs);
    } else {
      this.#timerKind = 'headers';
      if (totalMs !== undefined) this.#totalAt = Date.now() + totalMs;
      this.#timer = setTimeout(() => this.#onTimer(), provider.timeoutMs);
    }
  }

  /** Sends the request: through the fetch's abort hook when it takes one, else with a signal; redirects refused. */
  send(fetch: FetchLike, req: UpstreamRequest): Promise<Response> {
    const method = req.method ?? (req.body ? 'POST' : 'GET');
    const body = req.body ?? null;
    if (this.#controller || !takesAbortHook(fetch)) {
      return fetch(req.url, this.#withDuplex({ method, headers: req.headers, body, signal: this.signal, redirect: UPSTREAM_REDIRECT }));
    }
    const hook: AbortHook = (cutCall) => {
      if (this.#cut) cutCall(this.#cutReason);
      else this.#cutFetch = cutCall;
    };
    return fetch.fetchWithAbortHook(req.url, this.#withDuplex({ method, headers: req.headers, body, redirect: UPSTREAM_REDIRECT }), hook);
  }

  #withDuplex(init: RequestInit): RequestInit {
    // Node's fetch needs this to stream a ReadableStream request body.
    if (init.body instanceof ReadableStream) (init as RequestInit & { duplex?: 'half' }).duplex = 'half';
    return init;
  }

  abort(reason?: unknown): void {
    if (!this.#cut) {
      this.#cut = true;
      this.#cutReason = reason;
      // The fetch first, as when it listened on the signal.
      this.#cutFetch?.(reason);
    }
    this.#controller?.abort(reason);
  }

  /** Aborted already if the exchange was. */
  get signal(): AbortSignal {
    if (!this.#controller) {
      this.#controller = new AbortController();
      if (this.#cut) this.#controller.abort(this.#cutReason);
    }
    return this.#controller.signal;
  }

  get clientGone(): boolean {
    return this.#clientGone;
  }

  /** The headers are in: the headers timeout no longer applies. */
  answered(): void {
    this.#headersIn = true;
    if (this.#timerKind === 'headers' && this.#totalAt === undefined) this.#clearTimer();
  }

  touch(): void {
    const idleMs = this.#idleMs;
    if (idleMs === undefined) return;
    this.#idlePaused = false;
    // One idle timer per stream, restarted in place where the runtime can (Node, Bun: refresh()).
    const running = this.#idleTimer as { refresh?: () => unknown } | undefined;
    if (typeof running?.refresh === 'function') {
      running.refresh();
      return;
    }
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => this.#onIdle(), idleMs);
  }

  pauseIdle(): void {
    this.#idlePaused = true;
  }

  /** Idle time ran out: the stream is cut, unless it waits on its client (the next read starts a new timer). */
  #onIdle(): void {
    if (this.#idlePaused) this.#idleTimer = undefined;
    else this.#expire('idle');
  }

  /** Stops the timers and lets go of the caller (without ending the attempt: see done). */
  release(): void {
    this.#clearTimer();
    if (this.#idleTimer) clearTimeout(this.#idleTimer);
    this.#idleTimer = undefined;
    this.#unfollow?.();
    this.#unfollow = undefined;
  }

  done(): void {
    this.release();
    this.#attempt?.ended();
  }

  timedOut(): UpstreamTimeout | undefined {
    return this.#timedOut;
  }

  #clearTimer(): void {
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  #onTimer(): void {
    this.#timer = undefined;
    if (this.#timerKind === 'headers' && this.#headersIn) {
      // The headers came in time; the total time runs on.
      this.#timerKind = 'total';
      const totalAt = this.#totalAt as number;
      this.#timer = setTimeout(() => this.#onTimer(), Math.max(0, totalAt - Date.now()));
      return;
    }
    this.#expire(this.#timerKind);
  }

  #expire(kind: UpstreamTimeout): void {
    this.#timedOut ??= kind;
    this.abort(new DOMException(`Upstream ${kind} timeout`, 'TimeoutError'));
  }
}

async function callOnce(provider: UpstreamEndpoint, req: UpstreamRequest, attempt: UpstreamAttempt | undefined): Promise<UpstreamResult> {
  const x = new Exchange(provider, req, attempt);
  try {
    let response: Response;
    try {
      response = await x.send(provider.fetch, req);
    } catch (err) {
      x.release();
      const timedOut = x.timedOut();
      if (timedOut === 'total') throw fromUpstream(new GatewayError('upstream_timeout', `The request's total time ran out before the upstream provider '${provider.id}' answered.`));
      if (timedOut) throw fromUpstream(new GatewayError('upstream_timeout', `The upstream provider '${provider.id}' did not answer within ${provider.timeoutMs} ms.`));
      if (x.clientGone || req.signal?.aborted || isAbortError(err)) throw fromUpstream(new GatewayError('client_closed', 'The request was cancelled.'));
      throw fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${provider.id}' could not be reached.`, { cause: err }));
    }
    x.answered();
    x.response = response;
    if (isRedirect(response)) {
      const redirect = (await upstreamRedirectError(provider.id, response)) as GatewayError;
      x.release();
      throw fromUpstream(redirect, response.status);
    }
    if (!response.ok) {
      let text = '';
      try {
        text = await response.text();
      } catch {
        // body lost; the status still says enough
      }
      x.release();
      const message = redact(upstreamErrorText(req.protocol ?? provider.chatProtocol, response.status, text), provider.secrets);
      const refused = callerCredentialRefused(provider.id, provider.credential, response.status, message);
      if (refused) throw fromUpstream(refused, response.status);
      const retryAfter = retryAfterSeconds(response.headers, Date.now());
      const fields = openAIErrorFields(redact(text, provider.secrets));
      throw fromUpstream(upstreamFailure({ providerId: provider.id, status: response.status, bodyText: text, message, fields, credential: provider.credential === 'caller' ? 'caller' : (req.credential ?? 'gateway'), ...(retryAfter !== undefined ? { retryAfter } : {}) }), response.status);
    }
  } catch (err) {
    if (attempt) {
      const g = toGatewayError(err);
      const status = upstreamStatusOf(g);
      attempt.failed(status ? { code: g.code, status } : { code: g.code });
    }
    throw err;
  }
  attempt?.answered(x.response.status);
  return x;
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
/**
 * A 200 body that is not an answer of the protocol the upstream speaks (an error object sent with
 * 200, another API's body): a 502 with the upstream's message (secrets scrubbed), retried and
 * failed over like a malformed answer instead of relayed, or stored, as a success.
 */
export function notAnAnswer(providerId: string, protocol: ProtocolName, text: string, secrets: readonly string[]): GatewayError {
  const message = redact(upstreamErrorText(protocol, 200, text), secrets);
  return fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered 200 without an answer: ${message}`), 200);
}

/**
 * The upstream client gave up on a body that stopped arriving (undici's bodyTimeout, which the
 * standalone server sets to `timeouts.streamIdleMs`): a timeout, not a broken answer.
 */
export function isBodyTimeout(err: unknown): boolean {
  const e = err as { code?: unknown; name?: unknown } | null;
  return typeof e === 'object' && e !== null && (e.code === 'UND_ERR_BODY_TIMEOUT' || e.name === 'BodyTimeoutError');
}

/** An upstream client refused an answer past its size bound (node/upstream-response.ts). */
function isTooLarge(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === 'MODELGATE_UPSTREAM_TOO_LARGE';
}

export async function readUpstreamJson(result: UpstreamResult, providerId: string, raw?: { text: string }): Promise<Record<string, unknown>> {
  let text: string;
  try {
    text = await result.response.text();
  } catch (err) {
    result.done();
    if (result.timedOut() || isBodyTimeout(err)) throw fromUpstream(new GatewayError('upstream_timeout', `The upstream provider '${providerId}' timed out while sending its answer.`));
    if (isTooLarge(err)) throw fromUpstream(new GatewayError('bad_gateway', `The upstream provider '${providerId}' sent an answer too large to read (${(err as Error).message})`));
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
