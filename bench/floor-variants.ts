/**
 * Diagnostic floors (BENCH_FLOOR_MODE): the floor's relay built from the gateway's own network
 * layers, to tell what each layer costs per request without the gateway's work in between.
 * - `fetch`: node:http + the gateway's upstream client (createUndiciFetch), body buffered, answer
 *   written in one write with its length;
 * - `bridge`: the gateway's node bridge (createRequestListener) around a stub gateway that only
 *   forwards with createUndiciFetch (no auth, no parsing, no routing).
 */
import { createServer, type IncomingHttpHeaders, type RequestListener } from 'node:http';
import { createRequestListener } from '../node/index.js';
import { createUndiciFetch } from '../node/upstream-fetch.js';
import { Reply } from '../src/reply/reply.js';
import type { Gateway } from '../src/index.js';
import { UPSTREAM_KEY } from './settings.js';

function upstreamHeaders(path: string, get: (name: string) => string | undefined): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': get('content-type') ?? 'application/json' };
  if (path.startsWith('/v1/messages')) {
    headers['x-api-key'] = UPSTREAM_KEY;
    headers['anthropic-version'] = get('anthropic-version') ?? '2023-06-01';
  } else headers.authorization = `Bearer ${UPSTREAM_KEY}`;
  return headers;
}

export function variantListener(mode: string, upstream: string): RequestListener {
  const fetch = createUndiciFetch();
  if (mode === 'fetch') {
    return (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const path = req.url ?? '/';
        const h = req.headers as IncomingHttpHeaders;
        fetch(upstream + path, { method: 'POST', headers: upstreamHeaders(path, (n) => h[n] as string | undefined), body: Buffer.concat(chunks).toString() })
          .then(async (r) => {
            const text = await r.text();
            res.writeHead(r.status, { 'content-type': r.headers.get('content-type') ?? 'application/json', 'content-length': String(Buffer.byteLength(text)) });
            res.end(text);
          })
          .catch(() => {
            if (!res.headersSent) res.writeHead(502);
            res.end();
          });
      });
    };
  }
  if (mode === 'bridge') {
    const gateway = {
      async handle() {
        throw new Error('unused');
      },
      async reply(request: Request, context: { readBody?: (limit: number) => Promise<Uint8Array>; body?: Uint8Array }) {
        const bytes = context.body ?? (await context.readBody?.(32 << 20)) ?? new Uint8Array();
        const path = new URL(request.url).pathname;
        const r = await fetch(upstream + path, { method: 'POST', headers: upstreamHeaders(path, (n) => request.headers.get(n) ?? undefined), body: new TextDecoder().decode(bytes) });
        const text = await r.text();
        return new Reply(r.status, new Headers({ 'content-type': r.headers.get('content-type') ?? 'application/json' }), text);
      },
      matches: () => true,
      close: async () => {},
    } as unknown as Gateway;
    return createRequestListener(gateway);
  }
  throw new Error(`BENCH_FLOOR_MODE must be fetch or bridge, got ${mode}`);
}

export function variantServer(mode: string, upstream: string) {
  return createServer(variantListener(mode, upstream));
}
