/**
 * The end-to-end suites' gateway: createGateway with the upstream client `npm start` uses
 * (createUndiciFetch), not the library's default global fetch, so a difference between the two
 * cannot hide a defect of the standalone server (as a FormData body once did). A test that injects
 * its own `fetch` on purpose (fault injection) keeps it. close() also closes the client's pool.
 */
import { createGateway, type Gateway, type GatewayBridge, type GatewayConfigInput, type GatewayOptions } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { serve } from '../../node/index.js';

export function createShippedGateway(config: GatewayConfigInput, options: GatewayOptions = {}): Gateway & { readonly bridge: GatewayBridge } {
  if (options.fetch) return createGateway(config, options);
  // As node/cli.ts builds it.
  const { connectMs, streamIdleMs } = config.timeouts ?? {};
  const upstreamFetch = createUndiciFetch({
    ...(typeof connectMs === 'number' ? { connectTimeoutMs: connectMs } : {}),
    ...(typeof streamIdleMs === 'number' ? { bodyTimeoutMs: streamIdleMs } : {}),
  });
  let gateway: ReturnType<typeof createGateway>;
  try {
    gateway = createGateway(config, { ...options, fetch: upstreamFetch });
  } catch (err) {
    void upstreamFetch.close();
    throw err;
  }
  return {
    handle: (request, context) => gateway.handle(request, context),
    bridge: gateway.bridge,
    matches: (pathname) => gateway.matches(pathname),
    async close() {
      await gateway.close();
      await upstreamFetch.close();
    },
  };
}

/** A shipped gateway on the node server (port 0) with the usual test settings: `url`, and `close()` for both. */
export async function serveShipped(config: GatewayConfigInput): Promise<{ url: string; close: () => Promise<void> }> {
  const gateway = createShippedGateway(config, { env: {}, video: { pollerTickMs: false } });
  const server = await serve(gateway, { port: 0 });
  return {
    url: server.url,
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}
