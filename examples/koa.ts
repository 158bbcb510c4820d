/**
 * modelgate as Koa middleware under /ai.  Run: MODELGATE_API_KEY=sk-demo-key-123 npx tsx examples/koa.ts
 * In your project: import { modelgate } from 'modelgate/koa';
 */
import Koa from 'koa';
import { modelgate } from '../adapters/koa.js';
import { createGateway } from '../src/index.js';

const gateway = createGateway({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'demo', key: process.env.MODELGATE_API_KEY ?? 'sk-demo-key-123' }],
});

const app = new Koa();
app.use(async (ctx, next) => {
  ctx.set('x-powered-by', 'koa'); // the host's own middleware runs first
  await next();
});
app.use(modelgate(gateway, { prefix: '/ai', principal: (ctx) => ctx.state.user }));
app.listen(Number(process.env.PORT ?? 3000), () => console.log(`POST http://localhost:${process.env.PORT ?? 3000}/ai/v1/chat/completions`));
