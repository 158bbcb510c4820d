/**
 * The Node bridge: node:http request/response <-> Fetch Request/Response. Express and Koa reuse it.
 * It reuses a body a parser already read, caps what it buffers, waits for `drain`, flushes each
 * chunk and aborts the gateway's request signal when the client goes away.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway, HandleContext, Principal } from '../src/index.js';
import { knownBodyText } from '../src/http/known-body.js';

export interface NodeBridgeOptions {
  /** Mount path to strip before routing, e.g. `/ai`. */
  prefix?: string;
  /** Largest body buffered before the gateway answers 413 (default 32 MiB). */
  maxBodyBytes?: number;
  /** Turns the host's authenticated user into the gateway principal (skips the key check). */
  principal?: (req: IncomingMessage) => Principal | undefined;
}

const DEFAULT_LIMIT = 32 * 1024 * 1024;

export function stripPrefix(path: string, prefix: string | undefined): string | undefined {
  if (!prefix || prefix === '/') return path;
  const p = prefix.replace(/\/+$/, '');
  if (path === p) return '/';
  if (path.startsWith(`${p}/`) || path.startsWith(`${p}?`)) return path.slice(p.length);
  return undefined;
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

function readAll(req: IncomingMessage, limit: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (c: Buffer) => {
      size += c.length;
      chunks.push(c);
      // Past the limit: stop buffering; the gateway sees an oversized body and answers 413.
      if (size > limit) {
        req.off('data', onData);
        req.resume();
        resolve(Buffer.concat(chunks));
      }
    };
    req.on('data', onData);
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

/** IncomingMessage -> Fetch Request (path relative to the mount point). */
export async function toFetchRequest(req: IncomingMessage, res: ServerResponse, path: string, opts: NodeBridgeOptions & { body?: unknown } = {}): Promise<Request> {
  return (await bridgeRequest(req, res, path, opts, true)).request;
}

interface BridgedRequest {
  request: Request;
  /** Fires when the client goes away. */
  signal: AbortSignal;
  /** The body bytes, when they were not put into the Request. */
  body?: Uint8Array;
}

/**
 * For the gateway (`complete` false) the signal and the body bytes travel in HandleContext rather
 * than inside the Request: on Node a Request that follows a signal and carries a body stream
 * costs several times what the rest of the bridge does.
 */
async function bridgeRequest(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  opts: NodeBridgeOptions & { body?: unknown },
  complete: boolean,
): Promise<BridgedRequest> {
  const controller = new AbortController();
  res.once('close', () => {
    if (!res.writableFinished) controller.abort();
  });
  // A plain record (repeated headers joined as Headers.append would): the Request copies it anyway.
  const headers: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) {
    if (v === undefined || k.startsWith(':')) continue;
    headers[k] = Array.isArray(v) ? v.join(', ') : v;
  }
  const method = req.method ?? 'GET';
  const init: RequestInit = complete ? { method, headers, signal: controller.signal } : { method, headers };
  let bytes: Uint8Array | undefined;
  if (method !== 'GET' && method !== 'HEAD') {
    const reused = parsedBody(req, opts.body);
    const body = reused ?? (await readAll(req, opts.maxBodyBytes ?? DEFAULT_LIMIT));
    if (reused) delete headers['content-length'];
    const view = new Uint8Array(body.buffer as ArrayBuffer, body.byteOffset, body.byteLength);
    if (complete) init.body = view;
    else bytes = view;
  }
  const host = req.headers.host ?? 'localhost';
  const request = new Request(`http://${host}${path}`, init);
  return bytes ? { request, signal: controller.signal, body: bytes } : { request, signal: controller.signal };
}

/** Writes a Fetch Response to a node response, streaming with backpressure. */
export async function writeFetchResponse(res: ServerResponse, response: Response): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, key) => {
    if (key === 'set-cookie') return;
    headers[key] = value;
  });
  const cookies = response.headers.getSetCookie?.() ?? [];
  if (cookies.length) headers['set-cookie'] = cookies;
  const body = response.body;
  const contentType = response.headers.get('content-type') ?? '';
  // Event streams and media downloads (proxied videos) are relayed chunk by chunk, never buffered.
  const isStream = contentType.includes('text/event-stream') || !contentType || /^(video|audio)\/|^application\/octet-stream/.test(contentType);
  if (!body) {
    res.writeHead(response.status, headers);
    res.end();
    return;
  }
  const known = isStream ? undefined : knownBodyText(response);
  if (known !== undefined) {
    // The gateway's own JSON answers: send the text they were built from (reading the body back costs more).
    headers['content-length'] = String(Buffer.byteLength(known));
    res.writeHead(response.status, headers);
    res.end(known);
    return;
  }
  if (!isStream) {
    const buf = Buffer.from(await response.arrayBuffer());
    headers['content-length'] = String(buf.length);
    res.writeHead(response.status, headers);
    res.end(buf);
    return;
  }
  res.writeHead(response.status, headers);
  const reader = body.getReader();
  const onClose = () => {
    reader.cancel().catch(() => {});
  };
  res.once('close', onClose);
  try {
    let next = reader.read();
    // Headers leave with the first chunk when it is ready within this turn of the event loop
    // (one write instead of two), else on their own right away.
    let wrote = false;
    setImmediate(() => {
      if (!wrote && !res.writableEnded && !res.destroyed) res.flushHeaders();
    });
    for (;;) {
      const { done, value } = await next;
      if (done) break;
      if (res.destroyed) break;
      wrote = true;
      const ok = res.write(value);
      (res as ServerResponse & { flush?: () => void }).flush?.();
      if (!ok && !res.destroyed) await new Promise<void>((r) => { res.once('drain', r); res.once('close', r); });
      next = reader.read();
    }
  } catch {
    // the stream failed after headers; the protocol's error frame was already sent by the gateway
  } finally {
    res.off('close', onClose);
    if (!res.destroyed) res.end();
  }
}

/** Handles one node request with the gateway. */
export async function handleNode(gateway: Gateway, req: IncomingMessage, res: ServerResponse, path: string, opts: NodeBridgeOptions & { body?: unknown; context?: HandleContext } = {}): Promise<void> {
  const { request, signal, body } = await bridgeRequest(req, res, path, opts, false);
  const principal = opts.context?.principal ?? opts.principal?.(req);
  const response = await gateway.handle(request, { signal, ...(body ? { body } : {}), ...(principal ? { principal } : {}) });
  await writeFetchResponse(res, response);
}

/** A node:http request listener serving the gateway (404 for paths outside `prefix`). */
export function createRequestListener(gateway: Gateway, opts: NodeBridgeOptions = {}): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const path = stripPrefix(req.url ?? '/', opts.prefix);
    if (path === undefined) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: 'unknown_route' } }));
      return;
    }
    handleNode(gateway, req, res, path, opts).catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  };
}

export interface ServeOptions extends NodeBridgeOptions {
  port?: number;
  host?: string;
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** Starts a node:http server for the gateway. */
export function serve(gateway: Gateway, opts: ServeOptions = {}): Promise<RunningServer> {
  const server = createServer(createRequestListener(gateway, opts));
  server.keepAliveTimeout = 65_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 8080, opts.host ?? '127.0.0.1', () => {
      const addr = server.address() as AddressInfo;
      const host = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
      resolve({
        server,
        url: `http://${host}:${addr.port}`,
        close: () => new Promise<void>((r) => server.close(() => r())),
      });
    });
  });
}
