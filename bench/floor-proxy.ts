/**
 * Child process: the floor. A minimal node:http server that forwards the request body to the
 * upstream with undici.request over a keep-alive pool and pipes the answer back as it arrives.
 * No parsing; it only swaps the caller's key for the upstream key, as any proxy must.
 */
import { createServer, type IncomingHttpHeaders } from 'node:http';
import { pipeline } from 'node:stream';
import { Pool } from 'undici';
import { serveChild } from './child-ipc.js';
import { UPSTREAM_KEY } from './settings.js';
import { variantServer } from './floor-variants.js';

const upstream = process.env.BENCH_UPSTREAM;
if (!upstream) throw new Error('BENCH_UPSTREAM is required');
// BENCH_UPSTREAM_CONNECTIONS: raised by the memory scenario (1,000 concurrent streams).
const pool = new Pool(upstream, { connections: Number(process.env.BENCH_UPSTREAM_CONNECTIONS ?? 256), keepAliveTimeout: 30_000, pipelining: 1 });

function upstreamHeaders(path: string, inbound: IncomingHttpHeaders): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': inbound['content-type'] ?? 'application/json' };
  if (inbound['content-length']) headers['content-length'] = inbound['content-length'];
  if (path.startsWith('/v1/messages')) {
    headers['x-api-key'] = UPSTREAM_KEY;
    headers['anthropic-version'] = String(inbound['anthropic-version'] ?? '2023-06-01');
  } else headers.authorization = `Bearer ${UPSTREAM_KEY}`;
  return headers;
}

const server = createServer((req, res) => {
  const path = req.url ?? '/';
  pool
    .request({ path, method: 'POST', headers: upstreamHeaders(path, req.headers), body: req })
    .then(({ statusCode, headers, body }) => {
      const contentType = headers['content-type'];
      res.writeHead(statusCode, contentType ? { 'content-type': contentType } : {});
      pipeline(body, res, () => {});
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
});
serveChild(process.env.BENCH_FLOOR_MODE ? variantServer(process.env.BENCH_FLOOR_MODE, upstream) : server);
