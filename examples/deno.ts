/**
 * modelgate on Deno.serve.
 * Run: MODELGATE_API_KEY=sk-demo-key-123 deno run --allow-net --allow-env --allow-read --unstable-sloppy-imports examples/deno.ts
 * (--unstable-sloppy-imports maps the source's `.js` imports to `.ts`; with the published package
 * use `import { createGateway } from 'npm:modelgate'` and `'npm:modelgate/fetch'` instead.)
 */
import { createFetchHandler } from '../adapters/fetch.js';
import { createGateway } from '../src/index.js';

declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(opts: { port: number }, handler: (req: Request) => Promise<Response>): unknown;
};

const gateway = createGateway({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'demo', key: Deno.env.get('MODELGATE_API_KEY') ?? 'sk-demo-key-123' }],
});

Deno.serve({ port: Number(Deno.env.get('PORT') ?? 3000) }, createFetchHandler(gateway, { prefix: '/ai' }));
