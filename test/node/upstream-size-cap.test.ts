/**
 * An upstream answer read whole (a JSON answer, an error body) has a size bound in the standalone
 * server's upstream client: past it the call fails and the caller gets a 502 saying so, instead of
 * the process buffering whatever a faulty upstream sends (600 MB once grew it to 3 GB). A stream
 * read as it arrives is not limited by it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { jsonRequest } from '../helpers/requests.js';

const BOUND = 64 * 1024;
const KEY = 'mg-size-cap-key-00001';
let server: Server;
let base: string;
let gateway: Gateway;
const upstream = createUndiciFetch({ maxResponseBytes: BOUND });

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        for (let i = 0; i < 64; i++) res.write(`data: ${'x'.repeat(4096)}\n\n`);
        res.end();
        return;
      }
      // A JSON answer that never stops growing (well past the bound).
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write('{"id":"c1","object":"chat.completion","pad":"');
      let sent = 0;
      const more = () => {
        while (sent < 4 * 1024 * 1024) {
          sent += 16 * 1024;
          if (!res.write('y'.repeat(16 * 1024))) return void res.once('drain', more);
        }
        res.end('"}');
      };
      res.on('error', () => undefined);
      more();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  gateway = createGateway(
    { providers: [{ id: 'up', type: 'openai', baseURL: `${base}/v1`, apiKey: 'sk-up-size-cap-0000001' }], models: [{ id: 'gpt', provider: 'up', upstreamModel: 'gpt-4o' }], retry: { attempts: 1 }, keys: [{ id: 'k', key: KEY }] },
    { fetch: upstream },
  );
});

afterAll(async () => {
  await gateway?.close();
  await upstream.close();
  await new Promise((r) => server?.close(r));
});

describe('the size bound of an answer read whole', () => {
  it('text() past the bound fails; a stream of more than the bound reads through', async () => {
    const big = await upstream(`${base}/big`, { method: 'POST', body: '{}' });
    await expect(big.text()).rejects.toMatchObject({ code: 'MODELGATE_UPSTREAM_TOO_LARGE' });
    const stream = await upstream(`${base}/stream`, { method: 'POST', body: '{}' });
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    let bytes = 0;
    for (let r = await reader.read(); !r.done; r = await reader.read()) bytes += r.value.length;
    expect(bytes).toBeGreaterThan(BOUND * 4);
  });

  it('through the gateway: a 502 in the caller shape naming the bound', async () => {
    const res = await gateway.handle(jsonRequest('/v1/chat/completions', { model: 'gpt', messages: [{ role: 'user', content: 'hi' }] }, { key: KEY }));
    expect(res.status).toBe(502);
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).toContain(`larger than ${BOUND} bytes`);
  });
});
