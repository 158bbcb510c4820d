/**
 * Node-only: the upstream client of the standalone server, on an undici keep-alive pool.
 *
 * Calls with a string/bytes body (every chat call) go through undici's dispatcher API
 * (`request`): one write for headers and body, no WHATWG Request object, no request-body stream,
 * none of fetch's per-call bookkeeping. That was most of the gateway's own CPU per call in the
 * benchmark (bench/). The answer is still a standard Response whose body streams as it arrives.
 * Everything else (Request inputs, stream bodies, redirects) goes through undici's fetch.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream';
import { createBrotliDecompress, createGunzip, createInflate } from 'node:zlib';
import { Agent, fetch as undiciFetch, request as undiciRequest } from 'undici';
import type { FetchLike } from './providers/types.js';

type FetchInit = Parameters<typeof undiciFetch>[1];
type SimpleBody = string | Uint8Array | null | undefined;

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

function responseHeaders(raw: IncomingHttpHeaders): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const v of value) headers.append(key, v);
    else headers.append(key, value);
  }
  return headers;
}

function decoded(body: Readable, encoding: string | null): Readable {
  const coding = (encoding ?? '').trim().toLowerCase();
  const decoder =
    coding === 'gzip' || coding === 'x-gzip' ? createGunzip() : coding === 'deflate' ? createInflate() : coding === 'br' ? createBrotliDecompress() : undefined;
  if (!decoder) return body;
  pipeline(body, decoder, () => {});
  return decoder;
}

/**
 * A node Readable as a byte ReadableStream, with backpressure; cancelling it frees the socket.
 * undici emits one 'data' event per HTTP chunk, synchronously for everything one socket read
 * brought; those are enqueued as one piece (after the burst, in a microtask), so an SSE consumer
 * handles what arrived together in one go instead of one event per read.
 */
function toWebStream(body: Readable): ReadableStream<Uint8Array> {
  let settled = false;
  let pending: Buffer[] = [];
  let scheduled = false;
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const flush = () => {
        scheduled = false;
        if (settled || pending.length === 0) return;
        const chunk = pending.length === 1 ? (pending[0] as Buffer) : Buffer.concat(pending);
        pending = [];
        controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) body.pause();
      };
      body.on('data', (chunk: Buffer) => {
        pending.push(chunk);
        if (!scheduled) {
          scheduled = true;
          queueMicrotask(flush);
        }
      });
      body.once('end', () => {
        flush();
        if (settled) return;
        settled = true;
        controller.close();
      });
      body.once('error', (err) => {
        if (settled) return;
        settled = true;
        controller.error(err);
      });
      body.once('close', () => {
        if (settled) return;
        settled = true;
        controller.error(new DOMException('The upstream body was closed before it ended.', 'AbortError'));
      });
    },
    pull() {
      body.resume();
    },
    cancel() {
      settled = true;
      body.destroy();
    },
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
    const res = await undiciRequest(url, {
      method: method as 'GET',
      headers: plainHeaders(init?.headers, url.protocol === 'https:'),
      body: init?.body ?? null,
      signal: init?.signal ?? undefined,
      dispatcher,
    });
    if (REDIRECTS.has(res.statusCode) && res.headers.location) {
      // Rare for an API; let fetch apply its redirect rules (the body is a string/bytes, so it can be re-sent).
      res.body.resume();
      return viaFetch(input, init);
    }
    const headers = responseHeaders(res.headers);
    if (method === 'HEAD' || NULL_BODY.has(res.statusCode)) {
      res.body.resume();
      return new Response(null, { status: res.statusCode, headers });
    }
    return new Response(toWebStream(decoded(res.body, headers.get('content-encoding'))), { status: res.statusCode, headers });
  };
}
