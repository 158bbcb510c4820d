/**
 * BridgeContext.body / readBody / signal: a host bridge may hand over the body bytes (or a lazy
 * reader) and the client-disconnect signal beside a bare Request (the node bridge does, to skip the
 * cost of a Request body stream and signal on Node, and to read nothing before the key check). The
 * gateway must behave exactly as with a full Request.
 */
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, GatewayError, type ResponseEvent } from '../../src/index.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

let mock: MockOpenAI;
let gateway: ReturnType<typeof createGateway>;
const responses: ResponseEvent[] = [];
const HEADERS = { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' };

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(openAIConfig(mock, { limits: { maxBodyBytes: 2000 } }), { hooks: { onResponse: (e) => void responses.push(e) } });
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

const bare = () => new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: HEADERS });
const bytes = (body: unknown) => new TextEncoder().encode(JSON.stringify(body));

describe('BridgeContext.body', () => {
  it('is the request body when the Request carries none', async () => {
    const res = await gateway.bridge.handle(bare(), { body: bytes({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from context' }] }) });
    expect(res.status).toBe(200);
    const json = (await res.json()) as { choices: Array<{ message: { content: string } }> };
    expect(json.choices[0]?.message.content).toBe('[openai] you said: from context');
    expect(JSON.parse(mock.requests.at(-1)?.rawBody ?? '{}')).toMatchObject({ model: 'gpt-4o', messages: [{ role: 'user', content: 'from context' }] });
  });

  it('is held to limits.maxBodyBytes (413)', async () => {
    const res = await gateway.bridge.handle(bare(), { body: bytes({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x'.repeat(3000) }] }) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('2000 bytes');
  });

  it('still gets a 400 naming the field for a bad body', async () => {
    const res = await gateway.bridge.handle(bare(), { body: bytes({ model: 'gpt-4o', messages: [{ role: 'robot', content: 'hi' }] }) });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('messages[0].role');
  });
});

describe('BridgeContext.readBody', () => {
  /** A reader that records each call and answers with `bytes` (or throws `error`). */
  function reader(bytes: Uint8Array, error?: unknown) {
    const calls: number[] = [];
    return {
      calls,
      readBody: async (limit: number) => {
        calls.push(limit);
        if (error) throw error;
        return bytes;
      },
    };
  }
  const post = (path: string, headers: Record<string, string>) => new Request(`http://gw.test${path}`, { method: 'POST', headers: { ...headers, 'content-length': '64' } });
  const chat = bytes({ model: 'gpt-4o', messages: [{ role: 'user', content: 'lazy' }] });

  it('is called once, with limits.maxBodyBytes, after the key check passed', async () => {
    const r = reader(chat);
    const res = await gateway.bridge.handle(post('/v1/chat/completions', HEADERS), { readBody: r.readBody });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: lazy');
    expect(r.calls).toEqual([2000]);
  });

  it('is never called for a request refused before its body matters (401, 404, 405, 415)', async () => {
    const cases: Array<[string, string, Record<string, string>, number]> = [
      ['POST', '/v1/chat/completions', { 'content-type': 'application/json' }, 401],
      ['POST', '/v1/nowhere', HEADERS, 404],
      ['PUT', '/v1/chat/completions', HEADERS, 405],
      ['POST', '/v1/chat/completions', { ...HEADERS, 'content-type': 'text/plain' }, 415],
    ];
    for (const [method, path, headers, status] of cases) {
      const r = reader(chat);
      const res = await gateway.bridge.handle(new Request(`http://gw.test${path}`, { method, headers: { ...headers, 'content-length': '64' } }), { readBody: r.readBody });
      expect(res.status, `${method} ${path}`).toBe(status);
      await res.arrayBuffer();
      expect(r.calls, `${method} ${path}`).toEqual([]);
    }
  });

  it('passes a 413 from the reader through in the protocol shape', async () => {
    const r = reader(chat, new GatewayError('payload_too_large', 'Request body is larger than the limit of 2000 bytes.'));
    const res = await gateway.bridge.handle(post('/v1/messages', { 'x-api-key': KEY_ALL, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }), { readBody: r.readBody });
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it('turns any other reader failure into a 400, not a 500', async () => {
    const r = reader(chat, new Error('socket hang up'));
    const res = await gateway.bridge.handle(post('/v1/chat/completions', HEADERS), { readBody: r.readBody });
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { message: string } };
    expect(json.error.message).toMatch(/could not be read/);
    expect(json.error.message).not.toContain('socket hang up');
  });

  it('gets the bytes as sent: a gzip body is decoded by the gateway', async () => {
    const r = reader(gzipSync(Buffer.from(chat)));
    const res = await gateway.bridge.handle(post('/v1/chat/completions', { ...HEADERS, 'content-encoding': 'gzip' }), { readBody: r.readBody });
    expect(res.status).toBe(200);
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: lazy');
  });
});

describe('HandleContext.signal', () => {
  it('aborting it closes the upstream connection (the Request has no signal of its own)', async () => {
    mock.hangNext(60_000);
    const disconnected = mock.nextDisconnect();
    const ac = new AbortController();
    const pending = gateway.bridge.handle(bare(), { signal: ac.signal, body: bytes({ model: 'gpt-4o', messages: [{ role: 'user', content: 'ctx-signal' }] }) });
    await expect.poll(() => mock.requests.at(-1)?.rawBody.includes('"ctx-signal"')).toBe(true);
    ac.abort();
    await disconnected;
    const res = await pending;
    expect(res.status).toBe(499);
    await res.text();
  });

  it('aborting it mid-stream ends the stream as incomplete without an error event', async () => {
    mock.holdStreamNext();
    const disconnected = mock.nextDisconnect();
    const ac = new AbortController();
    const res = await gateway.bridge.handle(bare(), { signal: ac.signal, body: bytes({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'long' }] }) });
    const traceId = res.headers.get('x-trace-id');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('chat.completion.chunk');
    ac.abort();
    await disconnected;
    await reader.cancel().catch(() => {});
    await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
    expect(responses.find((e) => e.traceId === traceId)).toMatchObject({ streamCompleted: false });
    expect(responses.find((e) => e.traceId === traceId)?.error).toBeUndefined();
  });
});
