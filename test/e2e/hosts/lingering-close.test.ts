/**
 * An oversized body gets its 413, not a reset connection (lingering close, adapters/node-linger.ts).
 * Clients that send the whole body before reading (Node's fetch, the SDKs) used to get EPIPE /
 * ECONNRESET: the server answered and closed while they were still sending. Through the shipped
 * CLI (`node dist/node/cli.js`) with the default 32 MiB limit: a 33 MiB body with Content-Length
 * from undici's fetch, the openai and Anthropic SDKs and a multipart image edit with one part over
 * the limit; through serve(): a client that never stops sending is cut after the bounds, and the
 * server goes on serving.
 */
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import { createGateway, type Gateway } from '../../../src/index.js';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { KEY_ALL, openAIConfig } from '../../helpers/gateway-config.js';
import { startHost, stopChild, type RunningHost } from '../../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { head, parseResponse, rawConnect } from '../../helpers/raw-http.js';

const PLATFORM_KEY = 'mg-linger-key-0001';
const MiB = 1024 * 1024;
/** One MiB over the default limit: sent whole by every client below before it reads. */
const OVERSIZED = 33 * MiB;

let mock: MockOpenAI;
let child: ChildProcess | undefined;
let url: string;

beforeAll(async () => {
  await ensureCliBuilt();
  mock = await startMockOpenAI();
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-linger-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      providers: [{ id: 'chat', type: 'openai', baseURL: mock.baseURL, apiKey: '${CHAT_KEY}' }],
      models: [
        { id: 'gpt-4o', provider: 'chat' },
        { id: 'gpt-image-1', provider: 'chat' },
      ],
      keys: [{ id: 'k', key: PLATFORM_KEY }],
    }),
  );
  const started = await spawnCli(['--config', configPath], { CHAT_KEY: mock.apiKey });
  child = started.child;
  url = started.url;
}, 180_000);

afterAll(async () => {
  if (child) await stopChild(child);
  await mock?.close();
});

const bigText = (bytes: number) => 'x'.repeat(bytes);

/**
 * A client that sends `bytes` of body (Content-Length) before it reads anything, as Python's
 * requests and http.client do; the answer is what it reads afterwards, the errors what its socket
 * reported (EPIPE, ECONNRESET).
 */
async function sendThenRead(base: URL, path: string, bytes: number): Promise<{ errors: string[]; answer: ReturnType<typeof parseResponse> }> {
  const socket = connect({ port: Number(base.port), host: '127.0.0.1' });
  await once(socket, 'connect');
  socket.pause(); // nothing is read until the body is out
  const errors: string[] = [];
  socket.on('error', (e: NodeJS.ErrnoException) => errors.push(e.code ?? e.message));
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.write(head(`POST ${base.pathname.replace(/\/$/, '')}${path} HTTP/1.1`, { host: 'localhost', authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json', 'content-length': bytes }));
  const piece = Buffer.alloc(MiB, 0x20);
  for (let sent = 0; sent < bytes && !socket.destroyed; sent += piece.length) {
    if (!socket.write(piece)) await Promise.race([once(socket, 'drain').catch(() => {}), closed]);
  }
  let data = '';
  socket.setEncoding('latin1');
  const answered = new Promise<void>((r) =>
    socket.on('data', (c: string) => {
      data += c;
      if (parseResponse(data)) r();
    }),
  );
  socket.resume();
  await Promise.race([answered, closed]);
  socket.destroy();
  return { errors, answer: parseResponse(data) };
}


describe('the shipped CLI answers a body over the limit with 413, read by the client', () => {
  it("Node's fetch (undici), 33 MiB JSON with Content-Length: 413 in the OpenAI shape, Connection: close", async () => {
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: bigText(OVERSIZED) }] });
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    expect(res.status).toBe(413);
    expect(res.headers.get('connection')).toBe('close');
    expect(await res.json()).toMatchObject({ error: { type: 'invalid_request_error', code: 'request_too_large', message: expect.stringContaining(`${32 * MiB} bytes`) } });
    // The server is fine afterwards.
    const ok = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'after' }] }),
    });
    expect(((await ok.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: after');
  });

  it('the openai SDK: chat.completions.create with 33 MiB gets an APIError 413, not a connection error', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: PLATFORM_KEY, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: bigText(OVERSIZED) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('request_too_large');
  });

  it('the openai SDK: images.edit with one multipart part over the limit gets an APIError 413', async () => {
    const client = new OpenAI({ baseURL: `${url}/v1`, apiKey: PLATFORM_KEY, maxRetries: 0 });
    const image = await toFile(Buffer.alloc(OVERSIZED, 0x41), 'huge.png', { type: 'image/png' });
    const err = await client.images.edit({ model: 'gpt-image-1', prompt: 'a cat', image }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.APIError);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
    expect((err as InstanceType<typeof OpenAI.APIError>).code).toBe('request_too_large');
  });

  it('the Anthropic SDK: messages.create with 33 MiB gets a 413 in the Anthropic shape', async () => {
    const client = new Anthropic({ baseURL: url, apiKey: PLATFORM_KEY, maxRetries: 0 });
    const err = await client.messages.create({ model: 'gpt-4o', max_tokens: 16, messages: [{ role: 'user', content: bigText(OVERSIZED) }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Anthropic.APIError);
    expect(err).not.toBeInstanceOf(Anthropic.APIConnectionError);
    expect((err as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
    expect((err as InstanceType<typeof Anthropic.APIError>).error).toMatchObject({ type: 'error', error: { type: 'request_too_large' } });
  });

  it("a client that reads only once its whole body is sent (as Python's requests does) reads the 413", async () => {
    const { errors, answer } = await sendThenRead(new URL(url), '/v1/chat/completions', OVERSIZED);
    expect(errors).toEqual([]);
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ error: { code: 'request_too_large' } });
  });

  it('a caller with a wrong key and a 33 MiB body reads its 401 too', async () => {
    const res = await fetch(`${url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: 'Bearer mg-wrong-key', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: bigText(OVERSIZED) }] }),
    });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('invalid_api_key');
  });
});

describe('lingering close is bounded (serve())', () => {
  const LIMIT = 64 * 1024;
  let gateway: Gateway;
  let server: RunningServer;
  let port: number;

  beforeAll(async () => {
    gateway = createGateway(openAIConfig(mock, { limits: { maxBodyBytes: LIMIT } }));
    server = await serve(gateway, { port: 0, host: '127.0.0.1', lingeringCloseMs: 1500, lingeringCloseBytes: 2 * MiB });
    port = Number(new URL(server.url).port);
  });
  afterAll(async () => {
    server.server.closeAllConnections();
    await server.close();
    await gateway.close();
  });

  /**
   * Sends a chunked body forever (bounded here by `maxMs`), `piece` bytes every `everyMs`, and goes
   * on after the server's FIN (allowHalfOpen): a client that never stops.
   */
  async function neverStops(piece: number, everyMs: number, maxMs: number) {
    const socket = connect({ port, host: '127.0.0.1', allowHalfOpen: true });
    await once(socket, 'connect');
    let data = '';
    socket.setEncoding('latin1');
    socket.on('data', (c: string) => (data += c));
    socket.on('error', () => {});
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' }));
    const chunk = `${piece.toString(16)}\r\n${'a'.repeat(piece)}\r\n`;
    const started = Date.now();
    let sent = 0;
    let answeredAt: number | undefined;
    while (!socket.destroyed && Date.now() - started < maxMs) {
      if (answeredAt === undefined && parseResponse(data)) answeredAt = Date.now();
      if (!socket.write(chunk)) await Promise.race([once(socket, 'drain').catch(() => {}), closed]);
      sent += piece;
      await new Promise((r) => setTimeout(r, everyMs));
    }
    const stillOpen = !socket.destroyed;
    socket.destroy();
    await closed;
    return { stillOpen, closedAfterMs: Date.now() - started, answeredAfterMs: (answeredAt ?? Number.NaN) - started, sent, answer: parseResponse(data) };
  }

  it('a fast client that never stops is cut after the byte bound, having got its 413', async () => {
    const result = await neverStops(64 * 1024, 0, 20_000);
    expect(result.stillOpen).toBe(false);
    expect(result.answer?.status).toBe(413);
    expect(result.answer?.headers.connection).toBe('close');
    // Cut by the 2 MiB bound (plus what was in flight), well before the time bound or the test's own.
    expect(result.sent).toBeGreaterThan(2 * MiB);
    expect(result.sent).toBeLessThan(16 * MiB);
    expect(result.closedAfterMs).toBeLessThan(1500);
  }, 30_000);

  it('a slow client that never stops is cut after the time bound, having got its 413', async () => {
    const result = await neverStops(LIMIT, 100, 20_000);
    expect(result.stillOpen).toBe(false);
    expect(result.answer?.status).toBe(413);
    // 1.5 s after the answer, with far less than the 2 MiB bound sent.
    expect(result.closedAfterMs - result.answeredAfterMs).toBeGreaterThan(1300);
    expect(result.closedAfterMs).toBeLessThan(5000);
    expect(result.sent).toBeLessThan(2 * MiB);
  }, 30_000);

  it('a client that stops sending after the answer is not waited for beyond its close', async () => {
    const conn = await rawConnect(port);
    conn.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json', 'content-length': 10 * LIMIT }));
    const res = await conn.response();
    expect(res.status).toBe(413);
    const started = Date.now();
    conn.socket.end();
    await conn.closed;
    expect(Date.now() - started).toBeLessThan(1000);
    // And the server still answers.
    const models = await fetch(`${server.url}/v1/models`, { headers: { authorization: `Bearer ${KEY_ALL}` } });
    expect(models.status).toBe(200);
  });
});

describe.each(['bun', 'deno'] as const)('on %s (fetch adapter), the runtime reads the rest itself', (name) => {
  let host: RunningHost;
  beforeAll(async () => {
    host = await startHost(name, { config: { ...openAIConfig(mock, { limits: { maxBodyBytes: MiB } }), keys: [{ id: 'k', key: PLATFORM_KEY }] }, prefix: '' });
  }, 60_000);
  afterAll(async () => {
    await host?.stop();
  });

  it('a send-then-read client and the openai SDK read the 413 for a body 8x the limit', async () => {
    const { errors, answer } = await sendThenRead(new URL(host.baseURL), '/v1/chat/completions', 8 * MiB);
    expect(errors).toEqual([]);
    expect(answer?.status).toBe(413);
    expect(JSON.parse(answer?.body ?? '{}')).toMatchObject({ error: { code: 'request_too_large' } });
    const client = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: PLATFORM_KEY, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: bigText(8 * MiB) }] }).catch((e: unknown) => e);
    expect(err).not.toBeInstanceOf(OpenAI.APIConnectionError);
    expect((err as InstanceType<typeof OpenAI.APIError>).status).toBe(413);
  });
});
