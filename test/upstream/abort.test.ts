/**
 * Client abort: when the caller goes away (mid-stream, or while waiting for a sync answer), the
 * upstream sees its connection closed. (Every host is covered by adapters.test.ts; this file checks
 * the node server and gateway.handle in more detail.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { createGateway, type Gateway, type ResponseEvent } from '../../src/index.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

let mock: MockOpenAI;
let gateway: Gateway;
let server: RunningServer;
const responses: ResponseEvent[] = [];

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(openAIConfig(mock), { hooks: { onResponse: (e) => void responses.push(e) } });
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  server?.server.closeAllConnections();
  await server?.close();
  await gateway?.close();
  await mock?.close();
});

function init(body: Record<string, unknown>, signal?: AbortSignal): RequestInit {
  return {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
    ...(signal ? { signal } : {}),
  };
}

/** Reads until `needle` appeared in the stream. */
async function readUntil(reader: ReadableStreamDefaultReader<Uint8Array>, needle: string): Promise<string> {
  const decoder = new TextDecoder();
  let seen = '';
  while (!seen.includes(needle)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`stream ended before ${needle}: ${seen}`);
    seen += decoder.decode(value, { stream: true });
  }
  return seen;
}

describe('over HTTP (node adapter)', () => {
  it('aborting mid-stream closes the upstream connection and reports an incomplete stream', async () => {
    mock.holdStreamNext();
    const disconnected = mock.nextDisconnect();
    const before = mock.disconnects;
    const ac = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, init({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'long answer' }] }, ac.signal));
    const traceId = res.headers.get('x-trace-id');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const seen = await readUntil(reader, '[openai]');
    expect(seen).not.toContain('[DONE]');
    ac.abort();
    await disconnected;
    expect(mock.disconnects).toBe(before + 1);
    // The hook event for that request arrives once the gateway noticed; wait for it without timing.
    await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
    const ev = responses.find((e) => e.traceId === traceId);
    expect(ev?.streamCompleted).toBe(false);
    expect(ev?.error).toBeUndefined();
  });

  it('aborting while the upstream has not answered yet (sync) closes the upstream connection', async () => {
    mock.hangNext(60_000);
    const disconnected = mock.nextDisconnect();
    const ac = new AbortController();
    const pending = fetch(`${server.url}/v1/chat/completions`, init({ model: 'gpt-4o', messages: [{ role: 'user', content: 'slow' }] }, ac.signal));
    await expect.poll(() => mock.requests.at(-1)?.rawBody.includes('"slow"')).toBe(true);
    ac.abort();
    await expect(pending).rejects.toThrow();
    await disconnected;
  });

  it('the gateway keeps serving after aborted requests', async () => {
    const res = await fetch(`${server.url}/v1/chat/completions`, init({ model: 'gpt-4o', messages: [{ role: 'user', content: 'after' }] }));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: after');
  });
});

describe('gateway.handle (fetch hosts)', () => {
  it('cancelling the response body closes the upstream connection', async () => {
    mock.holdStreamNext();
    const disconnected = mock.nextDisconnect();
    const res = await gateway.handle(new Request('http://gw.test/v1/chat/completions', init({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'cancel me' }] })));
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, '[openai]');
    await reader.cancel();
    await disconnected;
    const traceId = res.headers.get('x-trace-id');
    await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
    // A client that left is not an upstream failure.
    expect(responses.find((e) => e.traceId === traceId)).toMatchObject({ streamCompleted: false });
    expect(responses.find((e) => e.traceId === traceId)?.error).toBeUndefined();
  });

  it("aborting the request's signal closes the upstream connection", async () => {
    mock.hangNext(60_000);
    const disconnected = mock.nextDisconnect();
    const ac = new AbortController();
    const pending = gateway.handle(new Request('http://gw.test/v1/chat/completions', init({ model: 'gpt-4o', messages: [{ role: 'user', content: 'signal' }] }, ac.signal)));
    await expect.poll(() => mock.requests.at(-1)?.rawBody.includes('"signal"')).toBe(true);
    ac.abort();
    await disconnected;
    const res = await pending;
    // Nobody is listening any more; the gateway still answers with a non-5xx-looking "cancelled" status.
    expect(res.status).toBe(499);
    await res.text();
  });
});
