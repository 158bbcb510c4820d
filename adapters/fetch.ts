/**
 * A fetch handler for Fetch-API hosts (Bun.serve, Deno.serve, Workers):
 * `Bun.serve({ fetch: createFetchHandler(gateway, { prefix: '/ai' }) })`.
 *
 * An answer given before the body was read (413, 401) carries no `Connection: close`: Bun and Deno
 * then read and drop the rest of the body themselves and the client reads the answer (with that
 * header Bun closes at once and the client gets a reset instead). How long they go on reading is
 * the runtime's own: bound it in front (a proxy's body limit) where that matters.
 */
import { GatewayError, type Gateway, type Principal } from '../src/index.js';
import { bodyTooLarge, errorBodyText, requestURL, type BridgeContext } from '../src/gateway/bridge.js';

export interface FetchHandlerOptions {
  /** Mount path to strip before routing, e.g. `/ai`. */
  prefix?: string;
  /** Turns a host-authenticated request into the gateway principal. */
  principal?: (request: Request) => Principal | undefined | Promise<Principal | undefined>;
}

export function createFetchHandler(gateway: Gateway, opts: FetchHandlerOptions = {}): (request: Request) => Promise<Response> {
  const prefix = opts.prefix && opts.prefix !== '/' ? opts.prefix.replace(/\/+$/, '') : '';
  return async (request) => {
    let req = request;
    if (prefix) {
      // The runtime builds request.url from Host + path; with a malformed Host some (Bun) give the
      // bare path. The gateway answers such a Host with a 400 itself.
      const url = requestURL(request.url);
      if (!url) return gateway.handle(request);
      if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) return outsideMount(url.pathname);
      url.pathname = url.pathname.slice(prefix.length) || '/';
      req = new Request(url, request);
    }
    const principal = opts.principal ? await opts.principal(request) : undefined;
    const context: BridgeContext = principal ? { principal } : {};
    const readBody = knownLengthBody(req);
    if (readBody) context.readBody = readBody;
    // A wrapper without the bridge is served through its handle(), given what it takes.
    return gateway.bridge ? gateway.bridge.handle(req, context) : gateway.handle(req, context);
  };
}

/**
 * The 404 of a path outside the mount point, as the gateway writes its own: in the protocol shape
 * of the path (OpenAI, Anthropic for `/v1/messages…`, Google for `/v1beta…`), with a trace id in
 * the body and the `x-trace-id` header.
 */
function outsideMount(path: string): Response {
  const traceId = crypto.randomUUID().replace(/-/g, '');
  const err = new GatewayError('not_found', "Not found: the path is outside the gateway's mount path.", { detail: 'unknown_route' });
  return new Response(errorBodyText(path, err, traceId), { status: 404, headers: { 'content-type': 'application/json', 'x-trace-id': traceId } });
}

/**
 * A body with a Content-Length, read whole by the runtime once the gateway asks for it (after the
 * key and route checks, which also refused a length over the limit): on Bun `arrayBuffer()` is
 * native, where the gateway's generic path reads the body stream chunk by chunk. Other bodies
 * (chunked) stay on that path, which cuts them at the limit.
 */
function knownLengthBody(request: Request): ((limit: number) => Promise<Uint8Array>) | undefined {
  if (request.method === 'GET' || request.method === 'HEAD' || request.headers.get('content-length') === null) return undefined;
  return async (limit) => {
    const bytes = new Uint8Array(await request.arrayBuffer());
    if (bytes.byteLength > limit) throw bodyTooLarge(limit);
    return bytes;
  };
}

export default createFetchHandler;
