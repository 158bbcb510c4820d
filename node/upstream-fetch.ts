/**
 * Node-only: the upstream client of the standalone server, on an undici keep-alive pool.
 *
 * Every call goes to undici's dispatcher: headers and body leave in one write, and the answer's
 * bytes go from the HTTP parser into the Response's ReadableStream without a WHATWG Request,
 * fetch's per-call bookkeeping or a node Readable in between. Those were most of the gateway's own
 * CPU per call in the benchmark (bench/). The answer is still a standard Response whose body
 * streams as it arrives.
 *
 * Bodies: any body fetch takes is sent as fetch sends it (upstream-fetch-body.ts). Redirects are never
 * followed, whatever `redirect` says: the 3xx comes back as it is (`redirect: 'error'` rejects), so
 * upstream credentials and a POST body never travel to another address.
 */
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib';
import { Agent } from 'undici';
import { directBody, isDirectBody, prepareBody, type PreparedBody } from './upstream-fetch-body.js';
import { UpstreamBody, upstreamResponse } from './upstream-response.js';
import type { AbortHook, HookableFetch } from '../src/providers/types.js';

/** The standalone server's upstream client: a fetch (cut through an abort hook, without a signal, by the gateway) plus `close()` for its connection pool. */
export type NodeUpstreamFetch = HookableFetch & {
  /** Closes the pool: idle keep-alive connections at once, calls still running are cut. */
  close(): Promise<void>;
};

type HeaderBytes = Buffer | string;
type DispatchBody = Parameters<Agent['dispatch']>[0]['body'];

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

function plainHeaders(init: HeadersInit | undefined, secure: boolean, contentType: string | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (init) (init instanceof Headers ? init : new Headers(init)).forEach((value, key) => (out[key] = value));
  // What fetch would ask for; the answer is decompressed below, as fetch does.
  out['accept-encoding'] ??= secure ? 'gzip, deflate, br' : 'gzip, deflate';
  if (contentType !== null) out['content-type'] ??= contentType;
  return out;
}

const latin1 = (b: HeaderBytes): string => (typeof b === 'string' ? b : b.toString('latin1'));

/** undici's raw [name, value, name, value, ...] as pairs for the Response. */
function headerPairs(raw: HeaderBytes[]): Array<[string, string]> {
  const pairs: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) pairs.push([latin1(raw[i] as HeaderBytes).toLowerCase(), latin1(raw[i + 1] as HeaderBytes)]);
  return pairs;
}

function decoderFor(encoding: string | undefined): Gunzip | ReturnType<typeof createInflate> | ReturnType<typeof createBrotliDecompress> | undefined {
  const coding = (encoding ?? '').trim().toLowerCase();
  if (coding === 'gzip' || coding === 'x-gzip') return createGunzip();
  if (coding === 'deflate') return createInflate();
  if (coding === 'br') return createBrotliDecompress();
  return undefined;
}

const abortError = (reason: unknown): unknown => reason ?? new DOMException('This operation was aborted', 'AbortError');
/** undici's abort() wants an Error; the caller still sees the original reason. */
const asError = (reason: unknown): Error => (reason instanceof Error ? reason : new DOMException('This operation was aborted', 'AbortError'));

/** What a call needs of its URL. */
interface Target {
  origin: string;
  /** Path and query. */
  path: string;
  secure: boolean;
}

/**
 * Parsed targets by URL string: a provider calls the same few URLs, each parse costs ~0.4 µs.
 * Bounded: cleared when full. Each upstream client (createUndiciFetch) keeps its own.
 */
class TargetCache {
  private static readonly MAX = 512;
  private readonly targets = new Map<string, Target>();

  of(input: string | URL): Target {
    const cached = typeof input === 'string' ? this.targets.get(input) : undefined;
    if (cached) return cached;
    const url = new URL(input);
    const target = { origin: url.origin, path: `${url.pathname}${url.search}`, secure: url.protocol === 'https:' };
    if (typeof input === 'string') {
      if (this.targets.size >= TargetCache.MAX) this.targets.clear();
      this.targets.set(input, target);
    }
    return target;
  }
}

interface Call {
  url: Target;
  method: string;
  headers: Record<string, string>;
  body: PreparedBody;
  signal: AbortSignal | null | undefined;
  /** The caller's abort without a signal (HookableFetch.fetchWithAbortHook), alone or besides `signal`. */
  abortHook: AbortHook | undefined;
  redirect: RequestRedirect | undefined;
  /** Bound of an answer read whole (UpstreamBody). */
  maxHeld: number | undefined;
}

function dispatchCall(dispatcher: Agent, call: Call): Promise<Response> {
  const { url, method, signal } = call;
  const upload = call.body;
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) {
      upload.cancel?.(signal.reason);
      return reject(abortError(signal.reason));
    }
    let abortCall: ((reason: Error) => void) | undefined;
    let abortReason: unknown;
    let body: UpstreamBody | undefined;
    let settled = false; // the Response (or an error) was handed out
    let ignoreBody = false;
    let decoder: ReturnType<typeof decoderFor>;
    let listening = true;

    const abortWith = (reason: unknown) => {
      if (!listening || abortReason !== undefined) return;
      abortReason = abortError(reason);
      upload.cancel?.(abortReason);
      abortCall?.(asError(abortReason));
    };
    const onAbort = () => abortWith(signal?.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => {
      listening = false;
      signal?.removeEventListener('abort', onAbort);
    };
    // A hook may cut at once (the caller aborted before the call was made).
    call.abortHook?.(abortWith);
    if (abortReason !== undefined) {
      cleanup();
      return reject(abortReason);
    }

    const close = () => {
      cleanup();
      body?.end();
    };
    const fail = (err: unknown) => {
      cleanup();
      upload.cancel?.(err);
      if (!settled) {
        settled = true;
        reject(err);
        return;
      }
      body?.fail(err);
    };

    // undici's dispatcher sends async iterables chunked (client-h1 writeIterable); its types only list Readable.
    const uploadBody = upload.body as DispatchBody;
    dispatcher.dispatch(
      { origin: url.origin, path: url.path, method: method as 'GET', headers: call.headers, body: uploadBody },
      {
        onConnect(abort: (err?: Error) => void) {
          abortCall = abort;
          if (abortReason !== undefined || signal?.aborted) abort(asError(abortReason ?? abortError(signal?.reason)));
        },
        onHeaders(statusCode: number, rawHeaders: HeaderBytes[], resume: () => void): boolean {
          if (statusCode < 200) return true; // 1xx: the final answer follows
          settled = true;
          const pairs = headerPairs(rawHeaders);
          if (call.redirect === 'error' && REDIRECTS.has(statusCode)) {
            // fetch's redirect: 'error'. Any other mode gets the 3xx itself: never followed (see the top).
            ignoreBody = true;
            cleanup();
            reject(new TypeError('fetch failed', { cause: new Error('unexpected redirect') }));
            return true;
          }
          if (method === 'HEAD' || NULL_BODY.has(statusCode)) {
            ignoreBody = true;
            cleanup();
            resolve(upstreamResponse(statusCode, pairs, null));
            return true;
          }
          body = new UpstreamBody(
            resume,
            (reason) => {
              cleanup();
              abortCall?.(asError(abortError(reason)));
            },
            call.maxHeld,
          );
          const sink = body;
          decoder = decoderFor(pairs.find(([k]) => k === 'content-encoding')?.[1]);
          if (decoder) {
            decoder.on('data', (chunk: Buffer) => sink.push(chunk));
            decoder.once('end', close);
            decoder.once('error', (err) => {
              abortCall?.(err);
              fail(err);
            });
          }
          resolve(upstreamResponse(statusCode, pairs, sink));
          return true;
        },
        onData(chunk: Buffer): boolean {
          if (ignoreBody || !body) return true;
          if (!decoder) return body.push(chunk);
          // The decoded bytes reach the body later (zlib is async): pause once it has held enough.
          decoder.write(chunk);
          return !body.paused;
        },
        onComplete() {
          if (ignoreBody) return;
          if (decoder) decoder.end();
          else close();
        },
        onError(err: Error) {
          if (ignoreBody && settled) return;
          fail(abortReason ?? err);
        },
      },
    );
  });
}

/** fetch(Request, init): init's fields win; a Request's body is read whole (its length is then known). */
async function fromRequest(request: Request, init: RequestInit | undefined): Promise<{ url: string; init: RequestInit }> {
  const body = init?.body != null ? init.body : request.body ? new Uint8Array(await request.arrayBuffer()) : null;
  return {
    url: request.url,
    init: {
      method: init?.method ?? request.method,
      headers: init?.headers ?? request.headers,
      signal: init?.signal ?? request.signal,
      redirect: init?.redirect ?? request.redirect,
      body,
    },
  };
}

export interface UndiciFetchOptions {
  /** Connections per upstream origin (default 256). */
  connections?: number;
  /** Time to open a connection (TCP and TLS) before the call fails as unreachable, in ms: the config's `timeouts.connectMs` (default 10 000). */
  connectTimeoutMs?: number;
  /**
   * Longest silence while an answer's body arrives, in ms (undici's `bodyTimeout`, default 300 000):
   * the standalone server sets the config's `timeouts.streamIdleMs`, so a sync answer whose body
   * stalls after its headers is cut like a silent stream, not only by the request's total time.
   */
  bodyTimeoutMs?: number;
  /** Most bytes of an answer read whole (default MAX_HELD_BYTES, 128 MiB): past it the call fails. */
  maxResponseBytes?: number;
}

export function createUndiciFetch(options: UndiciFetchOptions = {}): NodeUpstreamFetch {
  const targets = new TargetCache();
  const dispatcher = new Agent({
    connections: options.connections ?? 256,
    keepAliveTimeout: 30_000,
    pipelining: 1,
    connect: { timeout: options.connectTimeoutMs ?? 10_000 },
    ...(options.bodyTimeoutMs !== undefined ? { bodyTimeout: options.bodyTimeoutMs } : {}),
  });

  const send = (url: Target, method: string, init: RequestInit | undefined, body: PreparedBody, abortHook: AbortHook | undefined): Promise<Response> => {
    const headers = plainHeaders(init?.headers, url.secure, body.contentType);
    return dispatchCall(dispatcher, { url, method, headers, body, signal: init?.signal, abortHook, redirect: init?.redirect, maxHeld: options.maxResponseBytes });
  };
  const call = (input: string | URL, init: RequestInit | undefined, abortHook?: AbortHook): Promise<Response> => {
    const url = targets.of(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    const raw = init?.body;
    if (raw != null && (method === 'GET' || method === 'HEAD')) throw new TypeError('Request with GET/HEAD method cannot have body.');
    // Chat calls (string/bytes) skip the async extraction step.
    if (isDirectBody(raw)) return send(url, method, init, directBody(raw), abortHook);
    return prepareBody(raw).then((body) => send(url, method, init, body, abortHook));
  };
  // Not an async function: the call's own promise is handed back, without the hops an async
  // function's return of a promise takes; what an async function would throw is a rejection.
  const upstreamFetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    try {
      if (input instanceof Request) return fromRequest(input, init).then((r) => call(r.url, r.init));
      return call(input, init);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  const fetchWithAbortHook = (input: string | URL, init: RequestInit, hook: AbortHook): Promise<Response> => {
    try {
      return call(input, init, hook);
    } catch (err) {
      return Promise.reject(err);
    }
  };
  return Object.assign(upstreamFetch, { close: () => dispatcher.destroy(), fetchWithAbortHook });
}
