/**
 * The end-to-end suites' gateway: createGateway with the upstream client `npm start` uses
 * (createUndiciFetch), not the library's default global fetch, so a difference between the two
 * cannot hide a defect of the standalone server (as a FormData body once did). A test that injects
 * its own `fetch` on purpose (fault injection) keeps it. close() also closes the client's pool.
 */
import { createGateway, type Gateway, type GatewayBridge, type GatewayConfigInput, type GatewayOptions } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';

export function createShippedGateway(config: GatewayConfigInput, options: GatewayOptions = {}): Gateway & { readonly bridge: GatewayBridge } {
  if (options.fetch) return createGateway(config, options);
  const connectMs = config.timeouts?.connectMs;
  const upstreamFetch = createUndiciFetch(typeof connectMs === 'number' ? { connectTimeoutMs: connectMs } : {});
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
