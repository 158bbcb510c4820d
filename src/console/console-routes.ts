/**
 * The console under /console (with the gateway's mount prefix): a page and its hashed assets,
 * built from console/ into assets.generated.ts (scripts/build-console.mjs), served by the core so
 * every host that mounts the gateway has it. Mounted only with the admin API (an admin credential
 * and a store), otherwise a 404 like any unknown path. The page reaches the admin API only, by
 * relative URLs (`../admin/v1/...`), so it works under any prefix.
 *
 * Every answer carries a strict Content-Security-Policy (no inline script or style, nothing from
 * another origin, no framing). Assets are gzip-compressed once per gateway when the client takes it.
 */
import { GatewayError } from '../core/errors.js';
import { Reply } from '../reply/reply.js';
import type { EndpointContext } from '../endpoints/services.js';
import { CONSOLE_ASSETS } from './assets.generated.js';

export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self'",
  "connect-src 'self'",
  "font-src 'none'",
  "form-action 'self'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
].join('; ');

const SECURITY_HEADERS: Record<string, string> = {
  'content-security-policy': CONSOLE_CSP,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
  'cross-origin-resource-policy': 'same-origin',
  'permissions-policy': 'camera=(), microphone=(), geolocation=()',
};

/** The gateway's view of a console route (the shape of src/endpoints/routes.ts's Route). */
export interface ConsoleRoute {
  method: string;
  route: string;
  pattern: RegExp;
  errorShape: 'openai';
  handler: (ctx: EndpointContext, params: Record<string, string>) => Promise<Reply>;
}

function acceptsGzip(request: Request): boolean {
  return /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
}

async function gzip(text: string): Promise<Uint8Array> {
  const stream = new Blob([text]).stream().pipeThrough(new CompressionStream('gzip'));
  return new Uint8Array(await new Response(stream).arrayBuffer());
}

/** The console's routes for one gateway (its compressed copies are kept with it, not in the module). */
export function consoleRoutes(): ConsoleRoute[] {
  const byPath = new Map(CONSOLE_ASSETS.map((a) => [a.path, a]));
  const compressed = new Map<string, Promise<Uint8Array>>();

  async function serve(ctx: EndpointContext, path: string): Promise<Reply> {
    const asset = byPath.get(path);
    if (!asset) throw new GatewayError('not_found', 'No such console file.', { detail: 'unknown_route' });
    const headers = new Headers(SECURITY_HEADERS);
    headers.set('content-type', asset.contentType);
    // The page names its assets by content hash: they never change, the page is checked each time.
    headers.set('cache-control', path === '' ? 'no-cache' : 'public, max-age=31536000, immutable');
    headers.set('vary', 'accept-encoding');
    if (!acceptsGzip(ctx.request)) return new Reply(200, headers, asset.body);
    let bytes = compressed.get(path);
    if (!bytes) compressed.set(path, (bytes = gzip(asset.body)));
    headers.set('content-encoding', 'gzip');
    return new Reply(200, headers, await bytes);
  }

  return [
    {
      method: 'GET',
      route: '/console',
      pattern: /^\/console$/,
      errorShape: 'openai',
      // Relative, so the host's mount prefix is kept: /prefix/console -> /prefix/console/.
      handler: async () => new Reply(308, new Headers({ ...SECURITY_HEADERS, location: 'console/' }), null),
    },
    { method: 'GET', route: '/console/', pattern: /^\/console\/$/, errorShape: 'openai', handler: (ctx) => serve(ctx, '') },
    { method: 'GET', route: '/console/assets/{file}', pattern: /^\/console\/assets\/(?<file>[A-Za-z0-9._-]+)$/, errorShape: 'openai', handler: (ctx, p) => serve(ctx, `assets/${p.file ?? ''}`) },
  ];
}
