/**
 * A fetch handler for Fetch-API hosts (Bun.serve, Deno.serve, Workers):
 * `Bun.serve({ fetch: createFetchHandler(gateway, { prefix: '/ai' }) })`.
 */
import type { Gateway, HandleContext, Principal } from '../src/index.js';
import { requestURL } from '../src/host.js';

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
      if (url.pathname !== prefix && !url.pathname.startsWith(`${prefix}/`)) {
        return new Response(JSON.stringify({ error: { message: 'Not found', type: 'invalid_request_error', param: null, code: 'unknown_route' } }), {
          status: 404,
          headers: { 'content-type': 'application/json' },
        });
      }
      url.pathname = url.pathname.slice(prefix.length) || '/';
      req = new Request(url, request);
    }
    const principal = await opts.principal?.(request);
    const context: HandleContext = principal ? { principal } : {};
    return gateway.handle(req, context);
  };
}

export default createFetchHandler;
