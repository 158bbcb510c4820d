/**
 * modelgate on plain node:http.  Run: MODELGATE_API_KEY=sk-demo-key-123 npx tsx examples/node-http.ts
 * In your project: import { createGateway } from 'modelgate'; import { serve, createRequestListener } from 'modelgate/node';
 */
import { createServer } from 'node:http';
import { createRequestListener } from '../node/index.js';
import { createGateway } from '../src/index.js';

const gateway = createGateway({
  providers: [{ id: 'mock', type: 'mock' }], // add { id: 'openai', type: 'openai', apiKey: '${OPENAI_API_KEY}' } etc.
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'demo', key: process.env.MODELGATE_API_KEY ?? 'sk-demo-key-123' }],
});

// Mounted under /ai; other paths answer 404. (`serve(gateway, { port })` does the same in one line.)
const server = createServer(createRequestListener(gateway, { prefix: '/ai' }));
server.listen(Number(process.env.PORT ?? 3000), () => console.log(`POST http://localhost:${process.env.PORT ?? 3000}/ai/v1/chat/completions`));
