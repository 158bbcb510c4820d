/**
 * The HTTP edge against real node:http servers (serve() and Express): the route comes from the
 * path only, one body limit held from Content-Length on and while reading, the key checked before
 * any body byte is read, stalled bodies cut, JSON endpoints refuse non-JSON bodies (415), gzip
 * bodies decoded under the limit, 405 with Allow, `?key=` only on Gemini routes.
 */
import { gzipSync, deflateSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { EDGE_HOSTS, startEdgeHost, type EdgeHost } from '../helpers/edge-hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { head, parseResponse, rawConnect } from '../helpers/raw-http.js';
import { hasDotSegment, requestURL } from '../../src/request/guards.js';

const LIMIT = 256 * 1024;
const AUTH = { authorization: `Bearer ${KEY_ALL}` };
const JSON_AUTH = { ...AUTH, 'content-type': 'application/json' };
const chatBody = (content = 'hi edge') => JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content }] });

let mock: MockOpenAI;
beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  await mock?.close();
});

describe.each(EDGE_HOSTS)('HTTP edge on %s', (hostName) => {
  let host: EdgeHost;
  beforeAll(async () => {
    host = await startEdgeHost(hostName, openAIConfig(mock, { limits: { maxBodyBytes: LIMIT } }), { bodyIdleTimeoutMs: 300 });
  });
  afterAll(async () => {
    await host?.stop();
  });

  const hostHead = (requestLine: string, headers: Record<string, string | number>) => head(requestLine, headers);
  const path = (p: string) => `${host.base}${p}`;

  it('routes by the path only: a Host header cannot turn a chat call into a video task', async () => {
    const before = mock.requests.length;
    const body = JSON.stringify({ model: 'gpt-4o', prompt: 'x', messages: [{ role: 'user', content: 'host trick' }] });
    const trick = await rawConnect(host.port);
    trick.socket.write(
      hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: `127.0.0.1:${host.port}${host.base}/v1/video/generations#`, ...JSON_AUTH, 'content-length': body.length, connection: 'close' }) + body,
    );
    const refused = await trick.response();
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.body)).toMatchObject({ error: { param: 'host', type: 'invalid_request_error' } });
    expect(mock.requests.length).toBe(before);

    // Any well-formed Host is fine and changes nothing: the path picks the route.
    const other = await rawConnect(host.port);
    other.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'video.example:9999', ...JSON_AUTH, 'content-length': body.length, connection: 'close' }) + body);
    const ok = await other.response();
    expect(ok.status).toBe(200);
    expect(JSON.parse(ok.body)).toMatchObject({ object: 'chat.completion', choices: [{ message: { content: '[openai] you said: host trick' } }] });
    expect(mock.requests.at(-1)?.path).toBe('/v1/chat/completions');
  });

  it('routes by the path as sent: dot segments (also percent-encoded or with backslashes) are a 400, never resolved into another route', async () => {
    // A rule in front that matches the path as sent (an Express route, a proxy ACL on /v1/video/*)
    // must see the route the gateway serves: the URL parser would resolve these to /v1/video/generations.
    const body = JSON.stringify({ model: 'gpt-4o', prompt: 'x', messages: [{ role: 'user', content: 'dots' }] });
    for (const p of [
      '/v1/chat/%2e%2e/video/generations',
      '/v1/chat/%2E%2e/video/generations',
      '/v1/chat/.%2e/video/generations',
      '/v1/chat/../video/generations',
      '/v1/chat\\..\\video/generations',
      '/v1/./video/generations',
      '/v1/chat/%2e/completions',
    ]) {
      const before = mock.requests.length;
      const conn = await rawConnect(host.port);
      conn.socket.write(hostHead(`POST ${path(p)} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': body.length, connection: 'close' }) + body);
      const res = await conn.response();
      // Express may not hand such a path to its mount point at all (its own 404): refused either way.
      const verdict = res.status === 404 && res.body.includes('host404') ? 'host 404' : `${res.status} ${JSON.parse(res.body).error?.message}`;
      expect({ p, verdict }).toEqual({ p, verdict: hostName === 'express' && verdict === 'host 404' ? 'host 404' : expect.stringMatching(/^400 .*dot segment/) });
      expect(mock.requests.length).toBe(before);
    }
    // The absolute form (as proxies send it) is judged before it is reduced to a path.
    const before = mock.requests.length;
    const abs = await rawConnect(host.port);
    abs.socket.write(hostHead(`POST http://localhost:${host.port}${path('/v1/chat/%2e%2e/video/generations')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': body.length, connection: 'close' }) + body);
    const absRes = await abs.response();
    const absVerdict = absRes.status === 404 && absRes.body.includes('host404') ? 'host 404' : `${absRes.status} ${JSON.parse(absRes.body).error?.message}`;
    expect(absVerdict).toEqual(hostName === 'express' && absVerdict === 'host 404' ? 'host 404' : expect.stringMatching(/^400 .*dot segment/));
    expect(mock.requests.length).toBe(before);
    // A dot inside a segment is an ordinary character.
    const ok = await rawConnect(host.port);
    ok.socket.write(hostHead(`GET ${path('/v1/models/gpt-4o.1')} HTTP/1.1`, { host: 'localhost', ...AUTH, connection: 'close' }));
    expect((await ok.response()).status).toBe(404);
  });

  it('answers a malformed Host with a 400 in the protocol shape, never a bare 500', async () => {
    for (const [p, shape] of [
      ['/v1/models', 'openai'],
      ['/v1/messages', 'anthropic'],
      ['/v1beta/models', 'gemini'],
    ] as const) {
      const conn = await rawConnect(host.port);
      conn.socket.write(hostHead(`GET ${path(p)} HTTP/1.1`, { host: '[::1', ...AUTH, connection: 'close' }));
      const res = await conn.response();
      expect(res.status).toBe(400);
      const json = JSON.parse(res.body);
      if (shape === 'openai') expect(json.error.param).toBe('host');
      if (shape === 'anthropic') expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
      if (shape === 'gemini') expect(json).toMatchObject({ error: { code: 400, status: 'INVALID_ARGUMENT' } });
      expect(json.error.message).toMatch(/Host/);
    }
  });

  it('refuses a Content-Length over the limit before the body is sent: 413, connection: close, socket closed', async () => {
    const conn = await rawConnect(host.port);
    const clientPort = conn.socket.localPort ?? 0;
    // Only the head: the body is never sent, so an answer proves nothing waited for it.
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': LIMIT * 40 }));
    const { data } = await conn.closed;
    const res = parseResponse(data);
    expect(res?.status).toBe(413);
    expect(res?.headers.connection).toBe('close');
    expect(JSON.parse(res?.body ?? '{}')).toMatchObject({ error: { code: 'request_too_large' } });
    // The client closed its side on the server's FIN; the server's socket follows at once.
    await expect.poll(() => host.serverSocket(clientPort)?.destroyed, { timeout: 1000 }).toBe(true);
  });

  it('answers a chunked body past the limit with 413, discards the rest it is sent (lingering close) and closes', async () => {
    const conn = await rawConnect(host.port);
    const clientPort = conn.socket.localPort ?? 0;
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'transfer-encoding': 'chunked' }));
    const piece = Buffer.alloc(64 * 1024, 'a');
    // 32x the limit, all handed to the socket at once: the server decides how much of it it reads.
    let sent = 0;
    for (let i = 0; i < (32 * LIMIT) / piece.length; i++) sent += Buffer.byteLength(`${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`, 'latin1');
    for (let i = 0; i < (32 * LIMIT) / piece.length; i++) conn.socket.write(`${piece.length.toString(16)}\r\n${piece.toString('latin1')}\r\n`);
    const { data, error } = await conn.closed;
    // The client wrote all of it without a reset: the server read (and dropped) the rest after its answer.
    expect(error).toBeUndefined();
    await expect.poll(() => host.serverSocket(clientPort)?.destroyed, { timeout: 2000 }).toBe(true);
    const read = host.serverSocket(clientPort)?.bytesRead ?? Number.POSITIVE_INFINITY;
    expect(read).toBeGreaterThan(sent);
    expect(read).toBeLessThan(sent + 1024);
    const res = parseResponse(data);
    expect(res?.status).toBe(413);
    expect(res?.headers.connection).toBe('close');
  });

  it('answers an anonymous caller 401 at once, without reading its body, and closes', async () => {
    const conn = await rawConnect(host.port);
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', 'content-type': 'application/json', 'content-length': 50 * 1024 * 1024 }));
    const { data } = await conn.closed;
    const res = parseResponse(data);
    expect(res?.status).toBe(401);
    expect(res?.headers.connection).toBe('close');
    expect(JSON.parse(res?.body ?? '{}')).toMatchObject({ error: { code: 'missing_api_key' } });
  });

  it('cuts a stalled body after the idle timeout with a 408 and closes the connection', async () => {
    const conn = await rawConnect(host.port);
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': 1000 }) + '{"model":');
    const { data } = await conn.closed; // ends only because the server cut it
    const res = parseResponse(data);
    expect(res?.status).toBe(408);
    expect(res?.headers.connection).toBe('close');
    expect(JSON.parse(res?.body ?? '{}')).toMatchObject({ error: { code: 'request_timeout' } });
  });

  it('keeps the connection open after an answer to a body read in full', async () => {
    const conn = await rawConnect(host.port);
    const body = chatBody('keep me');
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': body.length }) + body);
    const res = await conn.response();
    expect(res.status).toBe(200);
    expect(res.headers.connection).not.toBe('close');
    expect(conn.socket.destroyed).toBe(false);
    conn.socket.destroy();
  });

  it('keeps the connection open after an error answer to a body read in full (400 for invalid JSON)', async () => {
    const conn = await rawConnect(host.port);
    const body = '{"model": nope}';
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'content-length': body.length }) + body);
    const res = await conn.response();
    expect(res.status).toBe(400);
    expect(res.headers.connection).not.toBe('close');
    conn.socket.destroy();
  });

  it('reads a chunked body that arrived in full in several pieces whole, and one past the limit is a 413', async () => {
    const conn = await rawConnect(host.port);
    const body = chatBody('several pieces');
    const pieces = [body.slice(0, 7), body.slice(7, 30), body.slice(30)].map((p) => `${Buffer.byteLength(p).toString(16)}\r\n${p}\r\n`);
    // Head, every chunk and the last chunk in one write: the body is complete before the gateway asks for it.
    conn.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'transfer-encoding': 'chunked' }) + pieces.join('') + '0\r\n\r\n');
    expect((await conn.response()).status).toBe(200);
    expect(mock.requests.at(-1)?.body).toMatchObject({ messages: [{ role: 'user', content: 'several pieces' }] });
    const big = chatBody('x'.repeat(LIMIT));
    const before = mock.requests.length;
    const rest = await rawConnect(host.port);
    rest.socket.write(hostHead(`POST ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', ...JSON_AUTH, 'transfer-encoding': 'chunked' }) + `${Buffer.byteLength(big).toString(16)}\r\n${big}\r\n0\r\n\r\n`);
    const res = await rest.response();
    expect(res.status).toBe(413);
    expect(mock.requests.length).toBe(before);
    conn.socket.destroy();
    rest.socket.destroy();
  });

  it('refuses text/plain, form and Content-Type-less bodies with 415 in each protocol shape', async () => {
    const before = mock.requests.length;
    const endpoints = [
      { p: '/v1/chat/completions', shape: 'openai' },
      { p: '/v1/images/generations', shape: 'openai' },
      { p: '/v1/images/edits', shape: 'openai' },
      { p: '/v1/video/generations', shape: 'openai' },
      { p: '/v1/messages', shape: 'anthropic' },
      { p: '/v1/messages/count_tokens', shape: 'anthropic' },
      { p: '/v1beta/models/gpt-4o:generateContent', shape: 'gemini' },
      { p: '/v1/models/gpt-4o:countTokens', shape: 'gemini' },
    ] as const;
    const bodies: Array<[string, BodyInit]> = [
      ['text/plain', chatBody()],
      ['form', new URLSearchParams({ model: 'gpt-4o' })],
      ['none', new Blob([chatBody()])],
      ['none', new TextEncoder().encode(chatBody())],
    ];
    for (const { p, shape } of endpoints) {
      for (const [label, body] of bodies) {
        const res = await fetch(`${host.url}${p}`, { method: 'POST', headers: { ...AUTH, 'x-api-key': KEY_ALL, 'anthropic-version': '2023-06-01' }, body });
        expect(res.status, `${p} with ${label}`).toBe(415);
        const json = (await res.json()) as Record<string, { message: string; param?: string; type?: string; status?: string }>;
        if (shape === 'openai') expect(json.error).toMatchObject({ type: 'invalid_request_error', param: 'content-type', code: 'unsupported_media_type' });
        if (shape === 'anthropic') expect(json).toMatchObject({ type: 'error', error: { type: 'invalid_request_error' } });
        if (shape === 'gemini') expect(json.error).toMatchObject({ code: 415, status: 'INVALID_ARGUMENT' });
        expect(json.error?.message).toMatch(/application\/json/);
      }
    }
    expect(mock.requests.length).toBe(before);
  });

  it('takes application/json with parameters and +json types; multipart on /v1/images/edits only', async () => {
    for (const type of ['application/json; charset=utf-8', 'Application/JSON', 'application/vnd.modelgate+json']) {
      const res = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: { ...AUTH, 'content-type': type }, body: chatBody(type) });
      expect(res.status, type).toBe(200);
      await res.arrayBuffer();
    }
    const form = new FormData();
    form.set('model', 'no-such-image-model');
    form.set('prompt', 'a cat');
    form.set('image', new Blob([new Uint8Array([137, 80, 78, 71])], { type: 'image/png' }), 'in.png');
    const edits = await fetch(`${host.url}/v1/images/edits`, { method: 'POST', headers: AUTH, body: form });
    // Past the media-type check into the endpoint, which looks the model up.
    expect(edits.status).toBe(404);
    expect(((await edits.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
    const chat = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: AUTH, body: form });
    expect(chat.status).toBe(415);
    await chat.arrayBuffer();
    // Past 200 parts, refused before any parsing (500,000 tiny fields held the event loop for 20 s).
    for (let i = 0; i < 300; i++) form.append(`f${i}`, 'x');
    const many = await fetch(`${host.url}/v1/images/edits`, { method: 'POST', headers: AUTH, body: form });
    expect(many.status).toBe(400);
    expect(((await many.json()) as { error: { message: string } }).error.message).toContain('more than 200 parts');
  });

  it('answers a malformed percent-escape in the path with 400 in the protocol shape, not 500', async () => {
    const openai = await fetch(`${host.url}/v1/models/%`, { headers: AUTH });
    expect(openai.status).toBe(400);
    expect(((await openai.json()) as { error: { type: string; param: string } }).error).toMatchObject({ type: 'invalid_request_error', param: 'id' });
    const gemini = await fetch(`${host.url}/v1beta/models/%E0%A4%A`, { headers: AUTH });
    expect(gemini.status).toBe(400);
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('INVALID_ARGUMENT');
  });

  it('decodes gzip and deflate bodies, the limit holding for the decoded bytes', async () => {
    for (const [coding, encode] of [
      ['gzip', gzipSync],
      ['deflate', deflateSync],
    ] as const) {
      const res = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: { ...JSON_AUTH, 'content-encoding': coding }, body: encode(chatBody(`zipped ${coding}`)) });
      expect(res.status, coding).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe(`[openai] you said: zipped ${coding}`);
    }
    // A small gzip body that inflates past the limit.
    const bomb = gzipSync(chatBody('z'.repeat(LIMIT * 4)));
    expect(bomb.length).toBeLessThan(LIMIT);
    const tooBig = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: { ...JSON_AUTH, 'content-encoding': 'gzip' }, body: bomb });
    expect(tooBig.status).toBe(413);
    await tooBig.arrayBuffer();
    const broken = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: { ...JSON_AUTH, 'content-encoding': 'gzip' }, body: chatBody() });
    expect(broken.status).toBe(400);
    expect(((await broken.json()) as { error: { param: string } }).error.param).toBe('content-encoding');
    const brotli = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: { ...JSON_AUTH, 'content-encoding': 'br' }, body: chatBody() });
    expect(brotli.status).toBe(415);
    expect(((await brotli.json()) as { error: { param: string } }).error.param).toBe('content-encoding');
  });

  it('answers 405 with an Allow header listing the methods of the path', async () => {
    const get = await fetch(`${host.url}/v1/chat/completions`, { headers: AUTH });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
    await get.arrayBuffer();
    const put = await fetch(`${host.url}/v1/video/generations/task_1`, { method: 'PUT', headers: JSON_AUTH, body: '{}' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')).toBe('GET, HEAD, DELETE');
    await put.arrayBuffer();
    // A GET route answers HEAD: its status and headers, no body.
    const head = await fetch(`${host.url}/v1/models`, { method: 'HEAD', headers: AUTH });
    expect([head.status, head.headers.get('content-type'), (await head.arrayBuffer()).byteLength]).toEqual([200, 'application/json', 0]);
    // A Request-Id is echoed, unless it is longer than any id scheme (it is not stored or echoed then).
    const ids = await Promise.all(['rid-1', 'r'.repeat(300)].map((id) => fetch(`${host.url}/v1/models`, { headers: { ...AUTH, 'request-id': id } }).then(async (r) => (await r.arrayBuffer(), r.headers.get('request-id')))));
    expect(ids).toEqual(['rid-1', null]);
    const gemini = await fetch(`${host.url}/v1beta/models/gpt-4o:generateContent`, { method: 'DELETE', headers: AUTH });
    expect(gemini.status).toBe(405);
    expect(gemini.headers.get('allow')).toBe('POST, GET, HEAD');
    expect(((await gemini.json()) as { error: { status: string } }).error.status).toBe('UNIMPLEMENTED');
    // A method a Fetch Request cannot carry is answered by the bridge, same shape, same header.
    const conn = await rawConnect(host.port);
    conn.socket.write(hostHead(`TRACE ${path('/v1/chat/completions')} HTTP/1.1`, { host: 'localhost', connection: 'close' }));
    const trace = await conn.response();
    expect(trace.status).toBe(405);
    expect(trace.headers.allow).toBe('POST');
    expect(JSON.parse(trace.body)).toMatchObject({ error: { type: 'invalid_request_error' } });
  });

  it('accepts ?key= on Gemini routes only', async () => {
    const chat = await fetch(`${host.url}/v1/chat/completions?key=${KEY_ALL}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: chatBody() });
    expect(chat.status).toBe(401);
    expect(((await chat.json()) as { error: { message: string } }).error.message).toMatch(/Gemini routes only/);
    const models = await fetch(`${host.url}/v1/models?key=${KEY_ALL}`);
    expect(models.status).toBe(401);
    await models.arrayBuffer();
    const gemini = await fetch(`${host.url}/v1beta/models/gpt-4o:generateContent?key=${KEY_ALL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'via query key' }] }] }),
    });
    expect(gemini.status).toBe(200);
    expect(((await gemini.json()) as { candidates: Array<{ content: { parts: Array<{ text: string }> } }> }).candidates[0]?.content.parts[0]?.text).toBe('[openai] you said: via query key');
    const list = await fetch(`${host.url}/v1beta/models?key=${KEY_ALL}`);
    expect(list.status).toBe(200);
    await list.arrayBuffer();
    const v1Action = await fetch(`${host.url}/v1/models/gpt-4o:countTokens?key=${KEY_ALL}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'count me' }] }] }),
    });
    expect(v1Action.status).toBe(200);
    await v1Action.arrayBuffer();
  });
});

describe('dot segments in a request target', () => {
  it('are found raw, percent-encoded (any case) and behind backslashes; dots inside a segment and in the query are not', () => {
    for (const t of ['/v1/chat/%2e%2e/video', '/v1/%2E/x', '/v1/.%2E/x', '/v1/../x', '/v1\\..\\x', '/v1/./x', '/..', 'http://h/v1/%2e%2e/x']) expect(hasDotSegment(t), t).toBe(true);
    for (const t of ['/v1/chat/completions', '/v1/models/gpt-4o.1', '/v1beta/models/gemini-2.5-flash:generateContent', '/v1/x?a=../..', '/v1/...', '/v1/.well-known', '/v1/x#/../y']) expect(hasDotSegment(t), t).toBe(false);
  });

  it('a bare path a Fetch host hands over (Bun with a malformed Host) is not resolved into another route', () => {
    expect(requestURL('/v1/chat/%2e%2e/video/generations')).toBeUndefined();
    expect(requestURL('/v1/chat/completions')?.pathname).toBe('/v1/chat/completions');
  });
});
