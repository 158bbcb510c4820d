/**
 * modelgate as Express middleware, after the host's own middleware, under /ai.
 * Run: MODELGATE_API_KEY=sk-demo-key-123 npx tsx examples/express.ts
 * In your project: import { modelgate, principalFromUser } from 'modelgate/express';
 */
import express from 'express';
import { modelgate, principalFromUser } from '../adapters/express.js';
import { createGateway } from '../src/index.js';

const gateway = createGateway({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'demo', key: process.env.MODELGATE_API_KEY ?? 'sk-demo-key-123' }],
});

const app = express();
app.use(express.json()); // optional: the gateway works with or without a body parser in front
app.get('/health', (_req, res) => void res.json({ ok: true }));
// Your own auth may set req.user = { id, models? }; principalFromUser turns it into the caller
// (no API key needed then). Requests without req.user fall back to the configured keys.
app.use('/ai', modelgate(gateway, { principal: principalFromUser }));
app.listen(Number(process.env.PORT ?? 3000), () => console.log(`POST http://localhost:${process.env.PORT ?? 3000}/ai/v1/chat/completions`));
