/**
 * `serve()`: a node:http server for the gateway over the Node bridge (node.ts), with timeouts against
 * slow or stalled clients, an optional connection cap and `Expect: 100-continue` deferred until the
 * gateway reads the body.
 */
import { createServer, type IncomingMessage, type ServerOptions, type ServerResponse, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Gateway } from '../src/index.js';
import { createRequestListener, type NodeBridgeOptions } from './node.js';
import { DEFAULT_BODY_IDLE_MS } from './node-body.js';

export interface ServeOptions extends NodeBridgeOptions {
  port?: number;
  host?: string;
  /** Time allowed to receive the request headers, ms (default 60 s). */
  headersTimeoutMs?: number;
  /**
   * Time allowed to receive the whole request, headers and body, ms (default 300 s; 0 = none).
   * It ends once the request is in: answers (streams lasting minutes) are not cut by it.
   */
  requestTimeoutMs?: number;
  /** An idle keep-alive connection is closed after this, ms (default 65 s, above common load balancers' 60 s). */
  keepAliveTimeoutMs?: number;
  /** Connections beyond this many are dropped at once (default: no cap). */
  maxConnections?: number;
  /** Anything else for http.createServer (e.g. `connectionsCheckingInterval`, `maxHeaderSize`). */
  serverOptions?: ServerOptions;
  /** Answers some requests before the gateway sees them (the CLI's `/healthz`, `/readyz`); returns true when it did. */
  intercept?: (req: IncomingMessage, res: ServerResponse) => boolean;
}

export interface RunningServer {
  server: Server;
  url: string;
  close(): Promise<void>;
}

export const SERVE_DEFAULTS = { headersTimeoutMs: 60_000, requestTimeoutMs: 300_000, keepAliveTimeoutMs: 65_000, bodyIdleTimeoutMs: DEFAULT_BODY_IDLE_MS };

function checkMs(name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value >= 0)) throw new RangeError(`${name} must be a whole number of ms >= 0, got ${value}`);
}

/**
 * How often node:http looks for connections past headersTimeout/requestTimeout. Node's default is
 * every 30 s, so a client sending a header line a second outlived a 3 s headersTimeout by up to
 * 30 s (a slowloris connection held for headersTimeout + 30 s). A tenth of the smaller timeout,
 * 100 ms to 1 s: late by at most that. The check walks the server's open connections.
 */
function checkingInterval(headersTimeout: number, requestTimeout: number): number {
  const set = [headersTimeout, requestTimeout].filter((t) => t > 0);
  if (!set.length) return 30_000;
  return Math.min(1000, Math.max(100, Math.floor(Math.min(...set) / 10)));
}

/** Starts a node:http server for the gateway, with timeouts against slow or stalled clients. */
export function serve(gateway: Gateway, opts: ServeOptions = {}): Promise<RunningServer> {
  for (const k of ['headersTimeoutMs', 'requestTimeoutMs', 'keepAliveTimeoutMs', 'bodyIdleTimeoutMs', 'lingeringCloseMs'] as const) checkMs(k, opts[k]);
  if (opts.lingeringCloseBytes !== undefined && !(Number.isInteger(opts.lingeringCloseBytes) && opts.lingeringCloseBytes >= 0)) {
    throw new RangeError(`lingeringCloseBytes must be a whole number >= 0, got ${opts.lingeringCloseBytes}`);
  }
  if (opts.maxConnections !== undefined && !(Number.isInteger(opts.maxConnections) && opts.maxConnections > 0)) {
    throw new RangeError(`maxConnections must be a whole number > 0, got ${opts.maxConnections}`);
  }
  const requestTimeout = opts.requestTimeoutMs ?? SERVE_DEFAULTS.requestTimeoutMs;
  // Node wants headersTimeout <= requestTimeout: the default follows a smaller requestTimeout.
  const headersTimeout = opts.headersTimeoutMs ?? (requestTimeout > 0 ? Math.min(SERVE_DEFAULTS.headersTimeoutMs, requestTimeout) : SERVE_DEFAULTS.headersTimeoutMs);
  if (requestTimeout > 0 && headersTimeout > requestTimeout) throw new RangeError(`headersTimeoutMs (${headersTimeout}) must not be above requestTimeoutMs (${requestTimeout})`);
  const gatewayListener = createRequestListener(gateway, opts);
  const intercept = opts.intercept;
  const listener = (req: IncomingMessage, res: ServerResponse, continueDeferred = false) => {
    if (!intercept?.(req, res)) gatewayListener(req, res, continueDeferred);
  };
  const server = createServer({ connectionsCheckingInterval: checkingInterval(headersTimeout, requestTimeout), ...opts.serverOptions, headersTimeout, requestTimeout }, (req, res) => listener(req, res));
  server.keepAliveTimeout = opts.keepAliveTimeoutMs ?? SERVE_DEFAULTS.keepAliveTimeoutMs;
  if (opts.maxConnections !== undefined) server.maxConnections = opts.maxConnections;
  // `Expect: 100-continue`: the client waits for the go-ahead, which comes only when the gateway
  // reads the body (after the key check); a 401 first means the body is never sent.
  server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => listener(req, res, true));
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
