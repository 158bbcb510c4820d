/**
 * Node-only: the upstream client of the standalone server, on an undici keep-alive pool.
 *
 * Calls with a string/bytes body (every chat call) go straight to undici's dispatcher: headers
 * and body leave in one write, and the answer's bytes go from the HTTP parser into the Response's
 * ReadableStream without a WHATWG Request, a request-body stream, fetch's per-call bookkeeping or
 * a node Readable in between. Those were most of the gateway's own CPU per call in the benchmark
 * (bench/). The answer is still a standard Response whose body streams as it arrives.
 * Everything else (Request inputs, stream bodies, redirects) goes through undici's fetch.
 */
import { createBrotliDecompress, createGunzip, createInflate, type Gunzip } from 'node:zlib';
import { Agent, fetch as undiciFetch } from 'undici';
import type { FetchLike } from './providers/types.js';

type FetchInit = Parameters<typeof undiciFetch>[1];
type SimpleBody = string | Uint8Array | null | undefined;
type HeaderBytes = Buffer | string;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const NULL_BODY = new Set([101, 204, 205, 304]);

function isSimpleBody(body: unknown): body is SimpleBody {
  return body === null || body === undefined || typeof body === 'string' || body instanceof Uint8Array;
}

function plainHeaders(init: HeadersInit | undefined, secure: boolean): Record<string, string> {
  const out: Record<string, string> = {};
  if (init) (init instanceof Headers ? init : new Headers(init)).forEach((value, key) => (out[key] = value));
  // What fetch would ask for; the answer is decompressed below, as fetch does.
  out['accept-encoding'] ??= secure ? 'gzip, deflate, br' : 'gzip, deflate';
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

/**
 * One call through `dispatcher.dispatch` with undici's handler callbacks. Resolves with the
 * Response once the status line and headers arrived; the body then streams with backpressure
 * (the socket pauses while the consumer has an unread chunk). Bytes that one socket read brought
 * are enqueued as one chunk, so an SSE consumer handles what arrived together in one go.
 */
function dispatchCall(dispatcher: Agent, url: URL, method: string, headers: Record<string, string>, body: SimpleBody, signal: AbortSignal | null | undefined, onRedirect: () => Promise<Response>): Promise<Response> {
  return new Promise<Response>((resolve, reject) => {
    if (signal?.aborted) return reject(abortError(signal.reason));
    let abortCall: ((reason: Error) => void) | undefined;
    let abortReason: unknown;
    let stream: ReadableStreamDefaultController<Uint8Array> | undefined;
    let settled = false; // the Response (or an error) was handed out
    let finished = false; // the body stream was closed or errored
    let ignoreBody = false;
    let paused = false;
    let resume: (() => void) | undefined;
    let pending: Buffer[] = [];
    let scheduled = false;
    let decoder: ReturnType<typeof decoderFor>;

    const onAbort = () => {
      abortReason = abortError(signal?.reason);
      abortCall?.(asError(abortReason));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    const cleanup = () => signal?.removeEventListener('abort', onAbort);

    const flush = () => {
      scheduled = false;
      if (finished || !stream || pending.length === 0) return;
      const chunk = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
      pending = [];
      stream.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
    };
    const push = (chunk: Buffer) => {
      pending.push(chunk);
      if (!scheduled) {
        scheduled = true;
        queueMicrotask(flush);
      }
    };
    const close = () => {
      flush();
      if (finished) return;
      finished = true;
      cleanup();
      stream?.close();
    };
    const fail = (err: unknown) => {
      cleanup();
      if (!settled) {
        settled = true;
        reject(err);
        return;
      }
      if (finished) return;
      finished = true;
      pending = [];
      stream?.error(err);
    };

    dispatcher.dispatch(
      { origin: url.origin, path: `${url.pathname}${url.search}`, method: method as 'GET', headers, body: body ?? null },
      {
        onConnect(abort: (err?: Error) => void) {
          abortCall = abort;
          if (abortReason !== undefined || signal?.aborted) abort(asError(abortReason ?? abortError(signal?.reason)));
        },
        onHeaders(statusCode: number, rawHeaders: HeaderBytes[], resumeFn: () => void): boolean {
          if (statusCode < 200) return true; // 1xx: the final answer follows
          resume = resumeFn;
          settled = true;
          const pairs = headerPairs(rawHeaders);
          const location = pairs.some(([k]) => k === 'location');
          if (REDIRECTS.has(statusCode) && location) {
            // Rare for an API; let fetch apply its redirect rules (the body is a string/bytes, so it can be re-sent).
            ignoreBody = true;
            cleanup();
            onRedirect().then(resolve, reject);
            return true;
          }
          if (method === 'HEAD' || NULL_BODY.has(statusCode)) {
            ignoreBody = true;
            cleanup();
            resolve(new Response(null, { status: statusCode, headers: pairs }));
            return true;
          }
          decoder = decoderFor(pairs.find(([k]) => k === 'content-encoding')?.[1]);
          if (decoder) {
            decoder.on('data', push);
            decoder.once('end', close);
            decoder.once('error', (err) => {
              abortCall?.(err);
              fail(err);
            });
          }
          const body = new ReadableStream<Uint8Array>({
            start(controller) {
              stream = controller;
            },
            pull() {
              if (paused) {
                paused = false;
                resume?.();
              }
            },
            cancel(reason) {
              finished = true;
              pending = [];
              cleanup();
              abortCall?.(asError(abortError(reason)));
            },
          });
          resolve(new Response(body, { status: statusCode, headers: pairs }));
          return true;
        },
        onData(chunk: Buffer): boolean {
          if (ignoreBody || finished) return true;
          if (decoder) decoder.write(chunk);
          else push(chunk);
          // An unread chunk is already waiting: stop reading the socket until the consumer pulls.
          if ((stream?.desiredSize ?? 1) <= 0) {
            paused = true;
            return false;
          }
          return true;
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

export function createUndiciFetch(options: { connections?: number } = {}): FetchLike {
  const dispatcher = new Agent({ connections: options.connections ?? 256, keepAliveTimeout: 30_000, pipelining: 1 });
  const viaFetch = (input: Request | string | URL, init?: RequestInit): Promise<Response> =>
    undiciFetch(input as Parameters<typeof undiciFetch>[0], { ...(init as object), dispatcher } as FetchInit) as unknown as Promise<Response>;

  return async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    if (input instanceof Request) {
      // The global Request is not the npm undici's class: hand its parts over.
      const { url, method, headers, body, signal, redirect } = input;
      return viaFetch(url, { method, headers, body, signal, redirect, ...(body ? { duplex: 'half' } : {}), ...init } as RequestInit);
    }
    if (!isSimpleBody(init?.body) || (init?.redirect !== undefined && init.redirect !== 'follow')) return viaFetch(input, init);
    const url = new URL(input);
    const method = (init?.method ?? 'GET').toUpperCase();
    return dispatchCall(dispatcher, url, method, plainHeaders(init?.headers, url.protocol === 'https:'), init?.body as SimpleBody, init?.signal, () => viaFetch(input, init));
  };
}
