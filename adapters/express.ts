/** Express middleware: `app.use('/ai', modelgate(gateway))`. Paths that are not gateway routes go to next(). */
import type { NextFunction, Request as ExpressRequest, Response as ExpressResponse } from 'express';
import type { Gateway, Principal } from '../src/index.js';
import { handleNode } from './node.js';

export interface ExpressOptions {
  /** Turns `req.user` (or anything on req) into the gateway principal, skipping the key check. */
  principal?: (req: ExpressRequest) => Principal | undefined;
  /** Lowers the gateway's `limits.maxBodyBytes` for this mount (never raises it). */
  maxBodyBytes?: number;
  /** A request body that sends nothing for this long is cut (408, connection closed); ms, default 30 s. */
  bodyIdleTimeoutMs?: number;
}

export function modelgate(gateway: Gateway, opts: ExpressOptions = {}) {
  return (req: ExpressRequest, res: ExpressResponse, next: NextFunction): void => {
    // Under app.use('/ai', ...) Express has already stripped the mount path from req.url.
    const path = req.url || '/';
    if (!gateway.matches(path.split('?')[0] ?? '/')) {
      next();
      return;
    }
    const principal = opts.principal?.(req);
    handleNode(gateway, req, res, path, {
      ...(opts.maxBodyBytes ? { maxBodyBytes: opts.maxBodyBytes } : {}),
      ...(opts.bodyIdleTimeoutMs !== undefined ? { bodyIdleTimeoutMs: opts.bodyIdleTimeoutMs } : {}),
      ...(principal ? { context: { principal } } : {}),
    }).catch(next);
  };
}

/** `req.user` as a principal: `{ id }` plus optional `models` patterns. */
export function principalFromUser(req: ExpressRequest): Principal | undefined {
  const user = (req as ExpressRequest & { user?: { id?: unknown; models?: unknown } }).user;
  if (!user || (typeof user.id !== 'string' && typeof user.id !== 'number')) return undefined;
  return { id: String(user.id), ...(Array.isArray(user.models) ? { models: user.models.map(String) } : {}) };
}

export default modelgate;
