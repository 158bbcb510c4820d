/** Koa middleware: `app.use(modelgate(gateway, { prefix: '/ai' }))`. Other paths go to next(). */
import type { Context, Next } from 'koa';
import type { Gateway, Principal } from '../src/index.js';
import { handleNode, stripPrefix, type NodeBridgeOptions } from './node.js';

export interface KoaOptions {
  /** Mount path to strip, e.g. `/ai` (not needed under koa-mount, which strips it already). */
  prefix?: string;
  /** Turns `ctx.state.user` (or anything on ctx) into the gateway principal. */
  principal?: (ctx: Context) => Principal | undefined;
  /** Lowers the gateway's `limits.maxBodyBytes` for this mount (never raises it). */
  maxBodyBytes?: number;
  /** A request body that sends nothing for this long is cut (408, connection closed); ms, default 30 s. */
  bodyIdleTimeoutMs?: number;
}

export function modelgate(gateway: Gateway, opts: KoaOptions = {}) {
  const limits: NodeBridgeOptions = {
    ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.bodyIdleTimeoutMs !== undefined ? { bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs } : {}),
  };
  return async (ctx: Context, next: Next): Promise<void> => {
    const path = stripPrefix(ctx.req.url ?? '/', opts.prefix);
    const query = path === undefined ? -1 : path.indexOf('?');
    if (path === undefined || !gateway.matches(query < 0 ? path : path.slice(0, query))) {
      await next();
      return;
    }
    // koa-bodyparser and friends leave the parsed body on ctx.request.body.
    const parsed = (ctx.request as { body?: unknown }).body;
    const principal = opts.principal?.(ctx);
    ctx.respond = false;
    const body = parsed !== undefined && ctx.req.readableEnded ? { body: parsed } : undefined;
    await handleNode(gateway, ctx.req, ctx.res, path, body || principal ? { ...limits, ...body, ...(principal ? { context: { principal } } : {}) } : limits);
  };
}

export default modelgate;
