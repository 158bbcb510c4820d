/**
 * The Node bridge: node:http request/response <-> the gateway. Express and Koa reuse it. The
 * request is a lazy Request (node-request.ts: a real one is built only if something asks for more
 * than method, URL, signal and headers); the route comes from the request path only (the URL
 * origin is fixed; Host never picks it). The body is read lazily, once the gateway has checked
 * key, route and method, and is held to the one limit (`limits.maxBodyBytes`, or this bridge's
 * when lower; 413 past it); an answer sent before the body was read in full closes the connection
 * instead of draining it. The answer comes from `gateway.bridge.reply()` and is written without building
 * a Response: JSON in one write, streams chunk by chunk waiting for `drain`; the gateway's request
 * signal aborts (and the stream's source is cancelled) when the client goes away.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { GatewayError, type Gateway, type HandleContext, type Principal } from '../src/index.js';
import type { BridgeContext } from '../src/gateway/bridge.js';
import { allowedMethods, bodyTooLarge, errorBodyText, FIXED_ORIGIN, hasDotSegment, isTextStream, KEEP_ALIVE_TEXT, pipeChunks, Reply, type ChunkSource } from '../src/gateway/bridge.js';
import { DEFAULT_BODY_IDLE_MS, nodeBodyReader, receivedInFull, type BodyMarks } from './node-body.js';
import { LINGER_DEFAULTS, lingerOnClose, type LingerBounds } from './node-linger.js';
import { clientGone, FORBIDDEN_METHODS, nodeRequest, type ClientGone } from './node-request.js';

export interface NodeBridgeOptions {
  /** Mount path to strip before routing, e.g. `/ai`. */
  prefix?: string;
  /**
   * Lowers the body limit for this bridge. The gateway's `limits.maxBodyBytes` is the limit; this
   * can only make it smaller (used by toFetchRequest, which has no gateway: default 32 MiB there).
   */
  maxBodyBytes?: number;
  /** A request body that sends nothing for this long is cut (408, connection closed); ms, default 30 s, 0 = off. */
  bodyIdleTimeoutMs?: number;
  /** Turns the host's authenticated user into the gateway principal (skips the key check). */
  principal?: (req: IncomingMessage) => Principal | undefined;
  /**
   * After an answer sent before the body was read in full (413, 401, ...), the rest of the body is
   * read and discarded for at most this long before the connection closes, so the client can read
   * the answer (lingering close); ms, default 30 s.
   */
  lingeringCloseMs?: number;
  /** ... and at most this many bytes of it; default 64 MiB. */
  lingeringCloseBytes?: number;
}

const STANDALONE_LIMIT = 32 * 1024 * 1024;

export function stripPrefix(path: string, prefix: string | undefined): string | undefined {
  if (!prefix || prefix === '/') return path;
  const p = prefix.replace(/\/+$/, '');
  if (path === p) return '/';
  if (path.startsWith(`${p}/`) || path.startsWith(`${p}?`)) return path.slice(p.length);
  return undefined;
}

/**
 * The request target as path + query: origin-form as is; absolute-form (`GET http://h/p`, which
 * proxies send) reduced to its path; anything else (`*`, garbage) is undefined.
 */
function originForm(target: string): string | undefined {
  if (target.startsWith('/')) return target;
  if (!/^https?:\/\//i.test(target)) return undefined;
  try {
    const u = new URL(target);
    return u.pathname + u.search;
  } catch {
    return undefined;
  }
}

/** Body already consumed by express.json()/koa-bodyparser etc., as bytes. */
function parsedBody(req: IncomingMessage, explicit?: unknown): Buffer | undefined {
  const body = explicit !== undefined ? explicit : (req as IncomingMessage & { body?: unknown }).body;
  if (body === undefined || (!req.readableEnded && explicit === undefined && !(req as { _body?: boolean })._body)) return undefined;
  if (Buffer.isBuffer(body)) return body;
  if (typeof body === 'string') return Buffer.from(body);
  if (body instanceof Uint8Array) return Buffer.from(body);
  return Buffer.from(JSON.stringify(body));
}

/** A plain record (repeated headers joined as Headers.append would): the Request copies it anyway. */
function headerRecord(req: IncomingMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  return headers;
}

function abortOnClose(res: ServerResponse): AbortSignal {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  return controller.signal;
}

/**
 * IncomingMessage -> a complete Fetch Request with body and signal (path relative to the mount
 * point), for code outside the gateway. The body limit is `maxBodyBytes` (default 32 MiB).
 */
export async function toFetchRequest(req: IncomingMessage, res: ServerResponse, path: string, opts: NodeBridgeOptions & { body?: unknown } = {}): Promise<Request> {
  const target = originForm(path);
  if (target === undefined || hasDotSegment(path)) throw new GatewayError('invalid_request', 'Malformed request target.');
  const headers = headerRecord(req);
  const method = req.method ?? 'GET';
  const init: RequestInit = { method, headers, signal: abortOnClose(res) };
  if (method !== 'GET' && method !== 'HEAD') {
    const reused = parsedBody(req, opts.body);
    if (reused) {
      const limit = opts.maxBodyBytes ?? STANDALONE_LIMIT;
      if (reused.byteLength > limit) throw bodyTooLarge(limit);
      delete headers['content-length'];
      delete headers['content-encoding'];
      init.body = new Uint8Array(reused.buffer as ArrayBuffer, reused.byteOffset, reused.byteLength);
    } else {
      const read = nodeBodyReader(req, res, { bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_MS });
      init.body = (await read(opts.maxBodyBytes ?? STANDALONE_LIMIT)) as Uint8Array<ArrayBuffer>;
      delete headers['transfer-encoding'];
    }
  }
  return new Request(FIXED_ORIGIN + target, init);
}

function dotSegmentError(): GatewayError {
  return new GatewayError('invalid_request', 'Malformed request target: the path has a dot segment (".", "..", or "%2e").');
}

/** The lingering-close bounds of a bridge's options. */
function lingerBounds(opts: NodeBridgeOptions): LingerBounds {
  if (opts.lingeringCloseMs === undefined && opts.lingeringCloseBytes === undefined) return LINGER_DEFAULTS;
  return { ms: opts.lingeringCloseMs ?? LINGER_DEFAULTS.ms, bytes: opts.lingeringCloseBytes ?? LINGER_DEFAULTS.bytes };
}

/** An error the bridge answers itself (before the gateway could), in the path's protocol shape. */
function bridgeError(req: IncomingMessage, res: ServerResponse, path: string, err: GatewayError, headers: Record<string, string> = {}, linger = LINGER_DEFAULTS): void {
  if (!req.complete) lingerOnClose(req, linger);
  const traceId = randomUUID().replace(/-/g, '');
  const text = errorBodyText(path, err, traceId);
  res.writeHead(err.status, {
    ...headers,
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
    'x-trace-id': traceId,
    ...(req.complete ? {} : { connection: 'close' }),
  });
  res.end(text);
}

/**
 * Writes a Fetch Response to a node response, streaming with backpressure. `close`: the request
 * body was not read to its end, so the connection closes after this answer (Node would otherwise
 * read and discard the rest to keep the connection alive), with a lingering close (node-linger.ts:
 * the rest of the body is discarded within `linger`'s bounds first, so the client reads the answer).
 */
export function writeFetchResponse(res: ServerResponse, response: Response, opts: WriteOptions = {}): Promise<void> {
  return writeReply(res, Reply.of(response), opts);
}

export interface WriteOptions {
  close?: boolean;
  linger?: LingerBounds;
}

/** A Reply's headers for writeHead (Set-Cookie kept apart, as Headers joins nothing else). */
function nodeHeaders(from: Headers, close: boolean | undefined): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = {};
  let cookies = false;
  from.forEach((value, key) => {
    if (key === 'set-cookie') cookies = true;
    else headers[key] = value;
  });
  if (cookies) headers['set-cookie'] = from.getSetCookie();
  if (close) headers.connection = 'close';
  return headers;
}

/**
 * Writes the gateway's Reply to a node response: a text or byte body in one write with its
 * Content-Length, a text stream chunk by chunk (writeStream: backpressure, keep-alive comments,
 * the source cancelled when the client goes away), a byte stream likewise; no Response and no Web
 * stream is built for the gateway's own answers. `close` as for writeFetchResponse.
 */
export async function writeReply(res: ServerResponse, reply: Reply, opts: WriteOptions = {}): Promise<void> {
  if (opts.close && res.req) lingerOnClose(res.req, opts.linger);
  const headers = nodeHeaders(reply.headers, opts.close);
  const body = reply.body;
  if (body === null) {
    res.writeHead(reply.status, headers);
    res.end();
    return;
  }
  if (typeof body === 'string' || body instanceof Uint8Array) {
    headers['content-length'] = String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength);
    res.writeHead(reply.status, headers);
    res.end(body);
    return;
  }
  if (isTextStream(body)) return writeStream(res, reply.status, headers, body.chunks, body.cancel, body.keepAlive ? KEEP_ALIVE_TEXT : undefined);
  const contentType = reply.headers.get('content-type') ?? '';
  // Event streams and media downloads (proxied videos) are relayed chunk by chunk, never buffered.
  const isStream = contentType.includes('text/event-stream') || !contentType || /^(video|audio)\/|^application\/octet-stream/.test(contentType);
  if (!isStream) {
    const buf = Buffer.from(await new Response(body).arrayBuffer());
    headers['content-length'] = String(buf.length);
    res.writeHead(reply.status, headers);
    res.end(buf);
    return;
  }
  const reader = body.getReader();
  return writeStream(res, reply.status, headers, { next: () => reader.read(), return: () => reader.cancel() }, () => {
    reader.cancel().catch(() => {});
  });
}

/**
 * Headers leave with the first chunk when it is ready within this turn of the event loop (one
 * write instead of two), else on their own right away.
 */
function headersSoon(res: ServerResponse): { wrote: boolean } {
  const state = { wrote: false };
  setImmediate(() => {
    if (!state.wrote && !res.writableEnded && !res.destroyed) res.flushHeaders();
  });
  return state;
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.once('drain', done);
    res.once('close', done);
  });
}

/**
 * A stream written to the socket through the one stream writer (pipeChunks: backpressure waits for
 * `drain`, keep-alive comments for text streams), flushed per chunk (compression middleware);
 * `cancel` stops the source at once when the client goes away.
 */
async function writeStream<C extends string | Uint8Array>(res: ServerResponse, status: number, headers: Record<string, string | string[]>, source: ChunkSource<C>, cancel: () => void, keepAlive?: C): Promise<void> {
  res.writeHead(status, headers);
  let closed = false;
  const onClose = () => {
    closed = true;
    cancel();
  };
  res.once('close', onClose);
  const flushHeaders = headersSoon(res);
  const flush = (res as ServerResponse & { flush?: () => void }).flush;
  try {
    await pipeChunks(
      source,
      {
        write(chunk) {
          flushHeaders.wrote = true;
          const ok = res.write(chunk);
          flush?.call(res);
          return ok;
        },
        drained: () => drained(res),
        closed: () => closed || res.destroyed,
      },
      keepAlive,
    );
  } catch {
    // the source failed after headers; the protocol's error frame was already written
  } finally {
    res.off('close', onClose);
    if (!res.destroyed) res.end();
  }
}

/**
 * The bridge's BridgeContext. A class, so the lazy `signal` getter sits on the prototype (an object
 * literal with an accessor is a dictionary-mode object in V8, slow to make and to read).
 */
class NodeHandleContext implements BridgeContext {
  declare principal?: Principal;
  declare body?: Uint8Array;
  declare readBody?: (limit: number) => Promise<Uint8Array>;
  readonly onClientGone: ClientGone['onGone'];
  readonly #client: ClientGone;

  constructor(client: ClientGone) {
    this.#client = client;
    this.onClientGone = client.onGone;
  }

  get signal(): AbortSignal {
    return this.#client.signal();
  }
}

/**
 * Handles one node request with the gateway. `continueDeferred`: the server left the client's
 * `Expect: 100-continue` unanswered (serve() does), so the body reader answers it when it reads.
 */
export async function handleNode(gateway: Gateway, req: IncomingMessage, res: ServerResponse, path: string, opts: NodeBridgeOptions & { body?: unknown; context?: HandleContext } = {}, continueDeferred = false): Promise<void> {
  const target = originForm(path);
  const linger = lingerBounds(opts);
  if (target === undefined) return bridgeError(req, res, '/', new GatewayError('invalid_request', 'Malformed request target; expected a path.'), {}, linger);
  if (hasDotSegment(path)) return bridgeError(req, res, target, dotSegmentError(), {}, linger);
  const method = req.method ?? 'GET';
  if (FORBIDDEN_METHODS.has(method)) {
    // Methods a Fetch Request cannot carry (TRACE, TRACK, CONNECT): no route takes them.
    const allow = allowedMethods(target.split('?')[0] ?? '/');
    if (!allow.length) return bridgeError(req, res, target, new GatewayError('not_found', `No route for ${method} ${target}.`, { detail: 'unknown_route' }), {}, linger);
    return bridgeError(req, res, target, new GatewayError('method_not_allowed', `Method ${method} is not allowed on ${target}.`), { allow: allow.join(', ') }, linger);
  }
  let headers = req.headers;
  const client = clientGone(res);
  const context = new NodeHandleContext(client);
  const marks: BodyMarks = { continueDeferred, readInFull: false };
  if (method !== 'GET' && method !== 'HEAD') {
    const reused = parsedBody(req, opts.body);
    if (reused) {
      // A parser in front already read (and decoded) it: its bytes are what the gateway gets,
      // held to the same limit (the gateway's, or this bridge's when lower).
      headers = { ...headers };
      delete headers['content-length'];
      delete headers['content-encoding'];
      const bytes = new Uint8Array(reused.buffer as ArrayBuffer, reused.byteOffset, reused.byteLength);
      const own = opts.maxBodyBytes;
      if (own) context.readBody = async (limit) => {
        if (bytes.byteLength > Math.min(limit, own)) throw bodyTooLarge(Math.min(limit, own));
        return bytes;
      };
      else context.body = bytes;
    } else {
      context.readBody = nodeBodyReader(
        req,
        res,
        {
          ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
          bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs ?? DEFAULT_BODY_IDLE_MS,
        },
        marks,
      );
    }
  }
  const request = nodeRequest(method, FIXED_ORIGIN + target, headers, client.signal);
  const principal = opts.context?.principal ?? opts.principal?.(req);
  if (principal) context.principal = principal;
  // A wrapper without the bridge (handle() only) still works, through a Response.
  const reply = gateway.bridge ? await gateway.bridge.reply(request, context) : Reply.of(await gateway.handle(request, context));
  await writeReply(res, reply, { close: !receivedInFull(req, marks), linger });
}

/** A node:http request listener serving the gateway (404 for paths outside `prefix`). */
export function createRequestListener(gateway: Gateway, opts: NodeBridgeOptions = {}): (req: IncomingMessage, res: ServerResponse, continueDeferred?: boolean) => void {
  const linger = lingerBounds(opts);
  return (req, res, continueDeferred = false) => {
    // Before originForm: it resolves an absolute-form target (`POST http://h/v1/chat/%2e%2e/...`).
    if (hasDotSegment(req.url ?? '/')) return bridgeError(req, res, '/', dotSegmentError(), {}, linger);
    const target = originForm(req.url ?? '/');
    const path = target === undefined ? undefined : stripPrefix(target, opts.prefix);
    if (path === undefined) {
      // In the protocol shape of the path as sent (an Anthropic client outside the mount gets Anthropic's).
      return bridgeError(req, res, target ?? '/', new GatewayError('not_found', "Not found: the path is outside the gateway's mount path.", { detail: 'unknown_route' }), {}, linger);
    }
    handleNode(gateway, req, res, path, opts, continueDeferred).catch(() => {
      if (!res.headersSent) return bridgeError(req, res, path, new GatewayError('internal', 'Internal gateway error.'), {}, linger);
      res.end();
    });
  };
}
