/**
 * Liveness and readiness on the standalone server's main port: `GET /healthz` answers 200 while the
 * process serves; `GET /readyz` answers 200 when the gateway can take traffic (Redis answers a PING
 * when it is configured, the server is not shutting down) and 503 naming what is not ready.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';

export interface HealthOptions {
  /** Set when REDIS_URL is configured: PINGs Redis within the timeout. */
  redisPing?: (timeoutMs: number) => Promise<boolean>;
  /** True once shutdown began (readiness fails so load balancers drain the instance). */
  stopping: () => boolean;
  timeoutMs?: number;
}

function send(res: ServerResponse, status: number, body: object, head: boolean): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', 'content-length': Buffer.byteLength(text) });
  res.end(head ? undefined : text);
}

/** The server's `intercept`: answers /healthz and /readyz, leaves every other request to the gateway. */
export function healthRoutes(opts: HealthOptions): (req: IncomingMessage, res: ServerResponse) => boolean {
  return (req, res) => {
    const path = (req.url ?? '').split('?')[0];
    if (path !== '/healthz' && path !== '/readyz') return false;
    const head = req.method === 'HEAD';
    if (req.method !== 'GET' && !head) {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'application/json' }).end(JSON.stringify({ status: 'error', error: 'method not allowed' }));
      return true;
    }
    if (path === '/healthz') {
      send(res, 200, { status: 'ok' }, head);
      return true;
    }
    void (async () => {
      const checks: Record<string, string> = {};
      if (opts.stopping()) checks.server = 'shutting down';
      if (opts.redisPing) checks.redis = (await opts.redisPing(opts.timeoutMs ?? 1000)) ? 'ok' : 'unreachable';
      const ready = !opts.stopping() && Object.values(checks).every((v) => v === 'ok');
      send(res, ready ? 200 : 503, { status: ready ? 'ok' : 'unavailable', ...(Object.keys(checks).length ? { checks } : {}) }, head);
    })().catch(() => send(res, 503, { status: 'unavailable' }, head));
    return true;
  };
}
