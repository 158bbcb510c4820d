/**
 * An OpenAI-compatible server that names no model in its answer (some bare servers leave `model`
 * out): a client of another protocol gets the deployment's model, the one that answered, never
 * "unknown" (the answer's model is the concrete model used), sync and streamed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import type { Gateway } from '../../src/index.js';

const KEY = 'mg-unreported-model-key-01';
let upstream: Server;
let gateway: Gateway;

beforeAll(async () => {
  upstream = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c));
    req.on('end', () => {
      const body = JSON.parse(raw) as { stream?: boolean };
      const usage = { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 };
      if (!body.stream) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id: 'c1', object: 'chat.completion', created: 1, choices: [{ index: 0, message: { role: 'assistant', content: 'Hi there' }, finish_reason: 'stop' }], usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const chunk = (delta: object, finish: string | null, extra: object = {}) => `data: ${JSON.stringify({ id: 'c1', object: 'chat.completion.chunk', created: 1, choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
      res.end(chunk({ role: 'assistant', content: 'Hi' }, null) + chunk({ content: ' there' }, null) + chunk({}, 'stop', { usage }) + 'data: [DONE]\n\n');
    });
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', r));
  const port = (upstream.address() as AddressInfo).port;
  gateway = createShippedGateway({
    providers: [{ id: 'local', type: 'openai-compatible', baseURL: `http://127.0.0.1:${port}/v1` }],
    models: [{ id: 'bare', provider: 'local', upstreamModel: 'qwen3-8b' }],
    keys: [{ id: 'k', key: KEY }],
  });
});

afterAll(async () => {
  await gateway?.close();
  await new Promise((r) => upstream?.close(r));
});

const messages = (stream: boolean) =>
  gateway.handle(
    new Request('http://gw/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'bare', max_tokens: 50, stream, messages: [{ role: 'user', content: 'hello' }] }),
    }),
  );

describe('an upstream that names no model', () => {
  it('a translated answer names the deployment model', async () => {
    const res = await messages(false);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe('qwen3-8b');
  });

  it('a translated stream names the deployment model in its first event', async () => {
    const res = await messages(true);
    expect(res.status).toBe(200);
    const text = await res.text();
    const start = text.split('\n').find((l) => l.startsWith('data: ') && l.includes('message_start')) as string;
    expect((JSON.parse(start.slice(6)) as { message: { model: string } }).message.model).toBe('qwen3-8b');
    expect(text).not.toContain('"unknown"');
  });
});
