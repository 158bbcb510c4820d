/** writeFetchResponse (node bridge): streamed answers and when their headers leave. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFetchResponse } from '../../node/index.js';

let server: Server;
let base: string;
let release: () => void = () => {};
let cancelled: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer((req, res) => {
    const encoder = new TextEncoder();
    let onCancel: () => void = () => {};
    cancelled = new Promise<void>((r) => (onCancel = r));
    const gate = new Promise<void>((r) => (release = r));
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        if (req.url === '/late') await gate; // nothing to send until the test says so
        controller.enqueue(encoder.encode('data: one\n\n'));
        if (req.url === '/held') return; // stays open
        controller.enqueue(encoder.encode('data: two\n\n'));
        controller.close();
      },
      cancel() {
        onCancel();
      },
    });
    void writeFetchResponse(res, new Response(body, { headers: { 'content-type': 'text/event-stream', 'x-test': 'yes' } }));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('writeFetchResponse with a stream', () => {
  it('sends status and headers before the first chunk exists', async () => {
    const res = await fetch(`${base}/late`); // resolves on headers; the body has nothing yet
    expect(res.status).toBe(200);
    expect(res.headers.get('x-test')).toBe('yes');
    release();
    expect(await res.text()).toBe('data: one\n\ndata: two\n\n');
  });

  it('relays a stream whose chunks are ready at once', async () => {
    const res = await fetch(`${base}/now`);
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    expect(await res.text()).toBe('data: one\n\ndata: two\n\n');
  });

  it('cancels the body when the client goes away', async () => {
    const ac = new AbortController();
    const res = await fetch(`${base}/held`, { signal: ac.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: one\n\n');
    ac.abort();
    await cancelled;
  });
});
