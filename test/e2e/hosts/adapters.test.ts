/**
 * One adapter suite, every host: node:http, Express (mounted under /ai, with and without
 * express.json()), Koa, Bun.serve and Deno.serve (child processes using the fetch adapter).
 * Whole answers are read with supertest (`host.http()`: the Express or Koa app itself, else the
 * host's origin) or the OpenAI SDK; streams are read with fetch, whose body can be read chunk by
 * chunk as it arrives and cancelled midway (supertest buffers a response before it resolves).
 */
import { gzipSync } from 'node:zlib';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_ALL, KEY_GPT, openAIConfig } from '../../helpers/gateway-config.js';
import { HOSTS, IN_PROCESS_HOSTS, startHost, type RunningHost } from '../../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { head, rawConnect } from '../../helpers/raw-http.js';

const BODY_LIMIT = 64 * 1024;

describe.each(HOSTS)('host %s', (hostName) => {
  let mock: MockOpenAI;
  let host: RunningHost;
  let client: OpenAI;

  beforeAll(async () => {
    mock = await startMockOpenAI();
    host = await startHost(hostName, { config: openAIConfig(mock, { limits: { maxBodyBytes: BODY_LIMIT } }), prefix: '/ai' });
    client = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
  });
  afterAll(async () => {
    await host?.stop();
    await mock?.close();
  });

  it('answers a chat completion under the mount prefix, with trace id and request id', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello host' }] }, { headers: { 'Request-Id': `rid-${hostName}` } })
      .withResponse();
    expect(data.choices[0]?.message.content).toBe('[openai] you said: hello host');
    expect(data.model).toBe('gpt-4o-2024-08-06');
    const traceId = response.headers.get('x-trace-id');
    expect(traceId).toMatch(/^[0-9a-f]{32}$/);
    expect((data as unknown as { traceId: string }).traceId).toBe(traceId);
    expect(response.headers.get('request-id')).toBe(`rid-${hostName}`);
    const seen = mock.requests.at(-1);
    expect(seen?.path).toBe('/v1/chat/completions');
    expect(seen?.headers.authorization).toBe(`Bearer ${mock.apiKey}`);
  });

  it('streams through the host and ends with [DONE]', async () => {
    const stream = await client.chat.completions.create({
      model: 'gpt-4o',
      stream: true,
      stream_options: { include_usage: true },
      messages: [{ role: 'user', content: 'one two three' }],
    });
    let text = '';
    let finish: string | null | undefined;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
      if (chunk.usage) usage = chunk.usage;
    }
    expect(text).toBe('[openai] you said: one two three');
    expect(finish).toBe('stop');
    expect(usage).toMatchObject({ prompt_tokens: 10, completion_tokens: 6, total_tokens: 16 });

    // fetch, not supertest: the stream is read as a client reads it (see the header comment).
    const raw = await fetch(`${host.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'x' }] }),
    });
    expect(raw.headers.get('content-type')).toContain('text/event-stream');
    expect(raw.headers.get('x-trace-id')).toMatch(/^[0-9a-f]{32}$/);
    const body = await raw.text();
    expect(body.trimEnd().endsWith('data: [DONE]')).toBe(true);
  });

  it('relays stream chunks as they arrive, and a client abort closes the upstream connection', async () => {
    mock.holdStreamNext();
    const disconnected = mock.nextDisconnect();
    const ac = new AbortController();
    // fetch, not supertest: the chunks are read one by one while the upstream holds the stream.
    const res = await fetch(`${host.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'held stream' }] }),
      signal: ac.signal,
    });
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let seen = '';
    // The upstream sent the role chunk and the first word and is now holding the connection open:
    // those bytes must reach us before the upstream finishes (no buffering in any host).
    while (!seen.includes('"content":"[openai]"')) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`stream ended early: ${seen}`);
      seen += decoder.decode(value, { stream: true });
    }
    ac.abort();
    await reader.cancel().catch(() => {});
    await disconnected;
    expect(mock.disconnects).toBeGreaterThanOrEqual(1);
  });

  it('lists models for the key', async () => {
    const limited = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: KEY_GPT, maxRetries: 0 });
    const ids: string[] = [];
    for await (const m of limited.models.list()) ids.push(m.id);
    expect(ids.sort()).toEqual(['gpt-4o', 'gpt-4o-mini']);
  });

  it('answers 401 in OpenAI shape with x-trace-id when the key is missing', async () => {
    const res = await host
      .http()
      .post(`${host.prefix}/v1/chat/completions`)
      .send({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
    expect(res.status).toBe(401);
    const body = res.body as { error: { type: string; code: string }; traceId: string };
    expect(body.error.code).toBe('missing_api_key');
    expect(body.traceId).toBe(res.headers['x-trace-id']);
  });

  it('answers 413 for a body over the configured limit', async () => {
    const big = 'a'.repeat(BODY_LIMIT + 10);
    const res = await host
      .http()
      .post(`${host.prefix}/v1/chat/completions`)
      .set('authorization', `Bearer ${KEY_ALL}`)
      .send({ model: 'gpt-4o', messages: [{ role: 'user', content: big }] });
    expect(res.status).toBe(413);
    const body = res.body as { error: { code: string } };
    expect(body.error.code).toBe('request_too_large');
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await host
      .http()
      .post(`${host.prefix}/v1/chat/completions`)
      .set({ authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' })
      .send('{"model": "gpt-4o", "messages": [');
    // With express.json() in front, Express itself rejects the body (also a 400).
    expect(res.status).toBe(400);
    if (hostName !== 'express-json') {
      const body = res.body as { error: { message: string; type: string } };
      expect(body.error.type).toBe('invalid_request_error');
      expect(body.error.message).toMatch(/not valid JSON/);
    }
  });

  it('routes by the path: a Host header naming another route is refused, a foreign Host changes nothing', async () => {
    const before = mock.requests.length;
    const body = JSON.stringify({ model: 'gpt-4o', prompt: 'x', messages: [{ role: 'user', content: 'host trick' }] });
    const origin = new URL(host.origin);
    const send = async (hostHeader: string) => {
      const conn = await rawConnect(Number(origin.port));
      const headers = { host: hostHeader, authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json', 'content-length': body.length, connection: 'close' };
      conn.socket.write(head(`POST ${new URL(host.baseURL).pathname.replace(/\/$/, '')}/v1/chat/completions HTTP/1.1`, headers) + body);
      return conn.response();
    };
    const trick = await send(`${origin.host}/ai/v1/video/generations#`);
    // Refused by the gateway (400 naming host) or by the host runtime itself (400): never a video task.
    expect(trick.status).toBe(400);
    expect(mock.requests.length).toBe(before);
    const foreign = await send('video.example:9999');
    expect(foreign.status).toBe(200);
    expect(JSON.parse(foreign.body)).toMatchObject({ object: 'chat.completion' });
  });

  it('refuses a text/plain body with 415 and decodes a gzip body', async () => {
    const plain = await host
      .http()
      .post(`${host.prefix}/v1/chat/completions`)
      .set({ authorization: `Bearer ${KEY_ALL}`, 'content-type': 'text/plain' })
      .send(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] }));
    expect(plain.status).toBe(415);
    expect((plain.body as { error: { code: string } }).error.code).toBe('unsupported_media_type');
    // fetch, not supertest: superagent re-serializes a Buffer body as JSON when the content type is JSON.
    const zipped = await fetch(`${host.baseURL}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'zipped' }] })),
    });
    expect(zipped.status).toBe(200);
    expect(((await zipped.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: zipped');
  });

  it('leaves paths outside the gateway to the host', async () => {
    const outside = await host.http().get('/elsewhere');
    expect(outside.status).toBe(404);
    if (hostName === 'express' || hostName === 'express-json' || hostName === 'koa') {
      const own = await host.http().get(`${host.prefix}/host-route`);
      expect(own.status).toBe(200);
      expect(own.body).toEqual({ host: hostName === 'koa' ? 'koa' : 'express' });
      // The host's own middleware ran before the gateway.
      const gw = await host.http().get(`${host.prefix}/v1/models`).set('authorization', `Bearer ${KEY_ALL}`);
      expect(gw.headers['x-host']).toBe(hostName === 'koa' ? 'koa' : 'express');
      const unknown = await host.http().get(`${host.prefix}/not-a-gateway-route`);
      expect(unknown.body).toEqual({ host404: true });
    }
  });
});

describe.each(IN_PROCESS_HOSTS)('host %s: host-authenticated principal', (hostName) => {
  let mock: MockOpenAI;
  let host: RunningHost;

  beforeAll(async () => {
    mock = await startMockOpenAI();
    host = await startHost(hostName, { config: openAIConfig(mock), prefix: '/ai', principalFromHeader: 'x-test-user' });
  });
  afterAll(async () => {
    await host?.stop();
    await mock?.close();
  });

  const chat = (model: string, headers: Record<string, string>) =>
    host
      .http()
      .post(`${host.prefix}/v1/chat/completions`)
      .set(headers)
      .send({ model, messages: [{ role: 'user', content: 'who am i' }] });

  it('uses the host user instead of a key, including its model patterns', async () => {
    const ok = await chat('gpt-4o', { 'x-test-user': 'alice:gpt-*' });
    expect(ok.status).toBe(200);
    expect((ok.body as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: who am i');
    const denied = await chat('fast', { 'x-test-user': 'alice:gpt-*' });
    expect(denied.status).toBe(403);
  });

  it('falls back to the key check without a host user', async () => {
    const none = await chat('gpt-4o', {});
    expect(none.status).toBe(401);
    const keyed = await chat('fast', { authorization: `Bearer ${KEY_ALL}` });
    expect(keyed.status).toBe(200);
  });
});

describe.each(HOSTS)('host %s mounted at a nested prefix', (hostName) => {
  let mock: MockOpenAI;
  let host: RunningHost;

  beforeAll(async () => {
    mock = await startMockOpenAI();
    host = await startHost(hostName, { config: openAIConfig(mock), prefix: '/api/v2/llm' });
  });
  afterAll(async () => {
    await host?.stop();
    await mock?.close();
  });

  it('routes under the nested prefix only', async () => {
    const client = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: KEY_ALL, maxRetries: 0 });
    const res = await client.chat.completions.create({ model: 'fast', messages: [{ role: 'user', content: 'deep' }] });
    expect(res.choices[0]?.message.content).toBe('[openai] you said: deep');
    const unmounted = await host.http().get('/v1/models').set('authorization', `Bearer ${KEY_ALL}`);
    expect(unmounted.status).toBe(404);
    expect(mock.requests).toHaveLength(1);
  });
});

// Hosts where the gateway's bridge sees every path (Express and Koa hand paths outside the mount to the host app).
describe.each(['node', 'bun', 'deno'] as const)('host %s: a path outside the mount', (hostName) => {
  let mock: MockOpenAI;
  let host: RunningHost;

  beforeAll(async () => {
    mock = await startMockOpenAI();
    host = await startHost(hostName, { config: openAIConfig(mock), prefix: '/ai' });
  });
  afterAll(async () => {
    await host?.stop();
    await mock?.close();
  });

  it("is a 404 in the path's protocol shape, with a trace id in the body and the x-trace-id header", async () => {
    const post = (path: string) => host.http().post(path).set({ authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' }).send('{}');
    const openai = await post('/v1/chat/completions');
    const openaiBody = openai.body as { error: { type: string; code: string; message: string }; traceId: string };
    expect(openai.status).toBe(404);
    expect(openaiBody.error).toMatchObject({ type: 'invalid_request_error', code: 'unknown_route' });
    expect(openaiBody.error.message).toContain('outside');
    expect(openaiBody.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(openai.headers['x-trace-id']).toBe(openaiBody.traceId);

    const anthropic = await post('/v1/messages');
    const anthropicBody = anthropic.body as { type: string; error: { type: string }; traceId: string };
    expect(anthropic.status).toBe(404);
    expect(anthropicBody).toMatchObject({ type: 'error', error: { type: 'not_found_error' } });
    expect(anthropic.headers['x-trace-id']).toBe(anthropicBody.traceId);

    const gemini = await post('/v1beta/models/gemini-2.5-flash:generateContent');
    const geminiBody = gemini.body as { error: { code: number; status: string }; traceId: string };
    expect(gemini.status).toBe(404);
    expect(geminiBody.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(gemini.headers['x-trace-id']).toBe(geminiBody.traceId);
    expect(mock.requests).toHaveLength(0);
  });
});
