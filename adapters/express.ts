/** Express middleware: `app.use('/ai', modelgate(gateway))`. Paths that are not gateway routes go to next(). */
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { Gateway, Principal } from '../src/index.js';
import { handleNode, type NodeBridgeOptions } from './node.js';

export interface ExpressOptions {
  /** Turns `req.user` (or anything on req) into the gateway principal, skipping the key check. */
  principal?: (req: ExpressRequest) => Principal | undefined;
  /** Lowers the gateway's `limits.maxBodyBytes` for this mount (never raises it). */
  maxBodyBytes?: number;
  /** A request body that sends nothing for this long is cut (408, connection closed); ms, default 30 s. */
  bodyIdleTimeoutMs?: number;
}

export function modelgate(gateway: Gateway, opts: ExpressOptions = {}) {
  const limits: NodeBridgeOptions = {
    ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
    ...(opts.bodyIdleTimeoutMs !== undefined ? { bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs } : {}),
  };
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
    // Under app.use('/ai', ...) Express has already stripped the mount path from req.url.
    const path = req.url || '/';
    const query = path.indexOf('?');
    if (!gateway.matches(query < 0 ? path : path.slice(0, query))) {
      next();
      return;
    }
    const principal = opts.principal?.(req);
    handleNode(gateway, req, res, path, principal ? { ...limits, context: { principal } } : limits).catch(next);
  };
}

/** `req.user` as a principal: `{ id }` plus optional `models` patterns. */
export function principalFromUser(req: ExpressRequest): Principal | undefined {
  const user = (req as ExpressRequest & { user?: { id?: unknown; models?: unknown } }).user;
  if (!user || (typeof user.id !== 'string' && typeof user.id !== 'number')) return undefined;
  return { id: String(user.id), ...(Array.isArray(user.models) ? { models: user.models.map(String) } : {}) };
}

export default modelgate;
