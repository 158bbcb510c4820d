/**
 * modelgate on Bun.serve.  Run: MODELGATE_API_KEY=sk-demo-key-123 bun examples/bun.ts
 * In your project: import { createFetchHandler } from 'modelgate/fetch';
 */
import { createFetchHandler } from '../adapters/fetch.js';
import { createGateway } from '../src/index.js';

declare const Bun: { serve(opts: { port: number; idleTimeout?: number; fetch: (req: Request) => Promise<Response> }): { port: number } };

const gateway = createGateway({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'demo', key: process.env.MODELGATE_API_KEY ?? 'sk-demo-key-123' }],
});

// idleTimeout 0: long streams must not be cut by Bun's default 10 s idle timeout.
const server = Bun.serve({ port: Number(process.env.PORT ?? 3000), idleTimeout: 0, fetch: createFetchHandler(gateway, { prefix: '/ai' }) });
console.log(`POST http://localhost:${server.port}/ai/v1/chat/completions`);
