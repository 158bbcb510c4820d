/**
 * createUndiciFetch (the standalone server's upstream client) on undici's dispatcher API: the result
 * must still behave like fetch — status, headers, streamed body, decompression, abort, null-body
 * statuses — except that redirects are never followed. Body kinds: node-fetch-bodies.test.ts.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../node/index.js';
import { createGateway } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { takesAbortHook, type AbortHook } from '../../src/providers/types.js';
import { bodyReader, responseHeader } from '../../src/upstream/direct-body.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI } from '../helpers/mock-openai.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

const bigChunk = (i: number) => `${String(i).padStart(6, '0')}:`.padEnd(4096, String.fromCharCode(97 + (i % 26)));

let server: Server;
let base: string;
const seen: Seen[] = [];
/** Resolves the next time the streaming route is allowed to write its second chunk. */
let releaseSecondChunk: () => void = () => {};
/** Resolves when the server saw the client's connection close. */
let closedWaiters: Array<() => void> = [];

function route(req: IncomingMessage, res: ServerResponse, body: string): void {
  const path = (req.url ?? '').split('?')[0];
  if (path === '/echo') {
    res.writeHead(201, { 'content-type': 'application/json', 'x-upstream': 'yes', 'set-cookie': ['a=1', 'b=2'] });
    res.end(JSON.stringify({ method: req.method, body }));
  } else if (path === '/gzip') {
    const buf = gzipSync(Buffer.from('{"compressed":true}'));
    res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': buf.length });
    res.end(buf);
  } else if (path === '/stream') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    new Promise<void>((r) => (releaseSecondChunk = r)).then(() => res.end('data: second\n\n'));
  } else if (path === '/hang') {
    res.on('close', () => closedWaiters.forEach((w) => w()));
  } else if (path === '/hang-body') {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: first\n\n');
    res.on('close', () => closedWaiters.forEach((w) => w()));
  } else if (path === '/big') {
    // 2000 numbered 4 KiB chunks, written as fast as the socket takes them.
    res.writeHead(200, { 'content-type': 'application/octet-stream' });
    let i = 0;
    const write = () => {
      while (i < 2000) {
        const ok = res.write(bigChunk(i++));
        if (!ok) return void res.once('drain', write);
      }
      res.end();
    };
    write();
  } else if (path === '/empty') {
    res.writeHead(204, { 'x-empty': '1' });
    res.end();
  } else if (path === '/moved') {
    res.writeHead(307, { location: '/echo' });
    res.end();
  } else if (path === '/fail') {
    res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '7' });
    res.end('{"error":{"message":"slow down"}}');
  } else {
    res.writeHead(404);
    res.end();
  }
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await fetchImpl.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

const fetchImpl = createUndiciFetch({ connections: 4 });

/** A body read to its end, yielding to the event loop every `pauseEvery` reads (a slow reader). */
async function readAll(reader: { read(): Promise<ReadableStreamReadResult<Uint8Array>> }, pauseEvery = 0): Promise<string> {
  const decoder = new TextDecoder();
  let text = '';
  for (let reads = 1; ; reads++) {
    const { done, value } = await reader.read();
    if (done) return text + decoder.decode();
    text += decoder.decode(value, { stream: true });
    if (pauseEvery && reads % pauseEvery === 0) await new Promise((r) => setImmediate(r));
  }
}
const closed = () => new Promise<void>((r) => closedWaiters.push(r));

describe('createUndiciFetch', () => {
  it('sends a string body with its headers and returns status, headers and body', async () => {
    const body = JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'héllo' }] });
    const res = await fetchImpl(`${base}/echo`, { method: 'POST', headers: new Headers({ 'content-type': 'application/json', authorization: 'Bearer up' }), body });
    expect(res.status).toBe(201);
    expect(res.ok).toBe(true);
    // Read from the answer's own header list (no Headers object yet), as headers.get answers.
    expect([responseHeader(res, 'set-cookie'), responseHeader(res, 'x-upstream'), responseHeader(res, 'x-none')]).toEqual(['a=1, b=2', 'yes', null]);
    expect(res.headers.get('x-upstream')).toBe('yes');
    expect(res.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
    expect(await res.json()).toEqual({ method: 'POST', body });
    const last = seen[seen.length - 1] as Seen;
    expect(last.headers.authorization).toBe('Bearer up');
    expect(last.headers['content-type']).toBe('application/json');
    expect(last.headers['content-length']).toBe(String(Buffer.byteLength(body)));
    expect(last.headers['accept-encoding']).toBe('gzip, deflate');
  });

  it('sends a Uint8Array body and record headers', async () => {
    const res = await fetchImpl(`${base}/echo`, { method: 'POST', headers: { 'x-a': '1' }, body: new TextEncoder().encode('bytes!') });
    expect(await res.json()).toEqual({ method: 'POST', body: 'bytes!' });
    expect((seen[seen.length - 1] as Seen).headers['x-a']).toBe('1');
  });

  it('keeps error statuses and their headers', async () => {
    const res = await fetchImpl(`${base}/fail`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(429);
    expect(res.ok).toBe(false);
    expect(res.headers.get('retry-after')).toBe('7');
    expect(await res.text()).toBe('{"error":{"message":"slow down"}}');
  });

  it('decompresses a gzip answer', async () => {
    const res = await fetchImpl(`${base}/gzip`, { method: 'POST', body: '{}' });
    expect(await res.json()).toEqual({ compressed: true });
  });

  it('streams: the first chunk is readable before the upstream sent the rest', async () => {
    const res = await fetchImpl(`${base}/stream`, { method: 'POST', body: '{}' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    const first = await reader.read();
    expect(decoder.decode(first.value)).toBe('data: first\n\n');
    releaseSecondChunk();
    let rest = '';
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      rest += decoder.decode(value, { stream: true });
    }
    expect(rest).toBe('data: second\n\n');
  });

  it('aborting before the answer rejects with an AbortError and closes the upstream connection', async () => {
    const controller = new AbortController();
    const wasClosed = closed();
    const pending = fetchImpl(`${base}/hang`, { method: 'POST', body: '{}', signal: controller.signal });
    while (!seen.some((s) => s.url === '/hang')) await new Promise((r) => setImmediate(r));
    controller.abort(new DOMException('Client disconnected', 'AbortError'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
    await wasClosed;
  });

  it('aborting mid-body errors the body stream and closes the upstream connection', async () => {
    const controller = new AbortController();
    const wasClosed = closed();
    const res = await fetchImpl(`${base}/hang-body`, { method: 'POST', body: '{}', signal: controller.signal });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    controller.abort(new DOMException('Upstream stream idle', 'TimeoutError'));
    await expect(reader.read()).rejects.toMatchObject({ name: 'TimeoutError' });
    await wasClosed;
  });

  it('cancelling the body closes the upstream connection', async () => {
    const wasClosed = closed();
    const res = await fetchImpl(`${base}/hang-body`, { method: 'POST', body: '{}' });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    await reader.cancel();
    await wasClosed;
  });

  it('a large body read slowly arrives complete and in order (backpressure pauses, then resumes the socket)', async () => {
    const res = await fetchImpl(`${base}/big`, { method: 'POST', body: '{}' });
    const text = await readAll((res.body as ReadableStream<Uint8Array>).getReader(), 8);
    expect(text.length).toBe(2000 * 4096);
    for (const i of [0, 1, 999, 1998, 1999]) expect(text.slice(i * 4096, (i + 1) * 4096)).toBe(bigChunk(i));
    expect(text).toBe(Array.from({ length: 2000 }, (_, i) => bigChunk(i)).join(''));
  });

  it('gives a null body for 204', async () => {
    const res = await fetchImpl(`${base}/empty`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(204);
    expect(res.body).toBeNull();
    expect(res.headers.get('x-empty')).toBe('1');
  });

  it('never follows a redirect: the 307 comes back as it is, and the POST was sent once', async () => {
    const before = seen.length;
    for (const redirect of [undefined, 'follow', 'manual'] as const) {
      const res = await fetchImpl(`${base}/moved`, { method: 'POST', body: 'again', ...(redirect ? { redirect } : {}) });
      expect(res.status).toBe(307);
      expect(res.headers.get('location')).toBe('/echo');
      expect(await res.text()).toBe('');
    }
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/moved', '/moved', '/moved']);
  });

  it("redirect: 'error' rejects on a redirect, as fetch does", async () => {
    const before = seen.length;
    await expect(fetchImpl(`${base}/moved`, { method: 'POST', body: 'x', redirect: 'error' })).rejects.toBeInstanceOf(TypeError);
    expect(seen.slice(before).map((s) => s.url)).toEqual(['/moved']);
  });

  it('takes GET without a body and Request inputs', async () => {
    const get = await fetchImpl(`${base}/echo`);
    expect(await get.json()).toEqual({ method: 'GET', body: '' });
    const viaRequest = await fetchImpl(new Request(`${base}/echo`, { method: 'PUT', body: 'req' }));
    expect(await viaRequest.json()).toEqual({ method: 'PUT', body: 'req' });
  });

  it('rejects when the upstream cannot be reached', async () => {
    const probe = createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const port = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));
    await expect(fetchImpl(`http://127.0.0.1:${port}/x`, { method: 'POST', body: '{}' })).rejects.toBeInstanceOf(Error);
  });
});

describe('createUndiciFetch without an AbortSignal (fetchWithAbortHook)', () => {
  /** A call whose abort hook hands the call's abort function to the test. */
  const hooked = (init: RequestInit): { fetch: (url: string) => Promise<Response>; abort: (reason?: unknown) => void } => {
    let cut: ((reason?: unknown) => void) | undefined;
    const hook: AbortHook = (abort) => {
      cut = abort;
    };
    return { fetch: (url) => fetchImpl.fetchWithAbortHook(url, init, hook), abort: (reason) => cut?.(reason) };
  };

  it('is marked as taking the hook', () => {
    expect(takesAbortHook(fetchImpl)).toBe(true);
    expect(takesAbortHook((input, init) => fetch(input, init))).toBe(false);
  });

  it('aborting before the answer rejects with the reason and closes the upstream connection', async () => {
    const wasClosed = closed();
    const call = hooked({ method: 'POST', body: '{}' });
    const hangs = seen.filter((s) => s.url === '/hang').length;
    const pending = call.fetch(`${base}/hang`);
    while (seen.filter((s) => s.url === '/hang').length === hangs) await new Promise((r) => setImmediate(r));
    call.abort(new DOMException('Client disconnected', 'AbortError'));
    await expect(pending).rejects.toMatchObject({ name: 'AbortError', message: 'Client disconnected' });
    await wasClosed;
  });

  it('aborting mid-body errors the body stream and closes the upstream connection', async () => {
    const wasClosed = closed();
    const call = hooked({ method: 'POST', body: '{}' });
    const res = await call.fetch(`${base}/hang-body`);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    call.abort(new DOMException('Upstream stream idle', 'TimeoutError'));
    await expect(reader.read()).rejects.toMatchObject({ name: 'TimeoutError' });
    await wasClosed;
  });

  it('aborting mid-body fails a pending direct read: the pump needs no signal listener', async () => {
    const wasClosed = closed();
    const call = hooked({ method: 'POST', body: '{}' });
    const reader = bodyReader(await call.fetch(`${base}/hang-body`));
    expect(reader?.followsAbort).toBe(true);
    expect(new TextDecoder().decode((await reader?.read())?.value)).toBe('data: first\n\n');
    const pending = reader?.read();
    call.abort(new DOMException('Upstream stream idle', 'TimeoutError'));
    await expect(pending).rejects.toMatchObject({ name: 'TimeoutError' });
    await wasClosed;
  });

  it('a hook that cuts at once (aborted before the call) rejects without sending anything', async () => {
    const before = seen.length;
    const hook: AbortHook = (abort) => abort();
    await expect(fetchImpl.fetchWithAbortHook(`${base}/echo`, { method: 'POST', body: '{}' }, hook)).rejects.toMatchObject({ name: 'AbortError' });
    await new Promise((r) => setTimeout(r, 20));
    expect(seen.length).toBe(before);
  });

  it('an abort after the answer was read changes nothing', async () => {
    const call = hooked({ method: 'POST', body: 'x' });
    const res = await call.fetch(`${base}/echo`);
    expect(await res.json()).toEqual({ method: 'POST', body: 'x' });
    call.abort(new Error('late'));
  });
});

/** The stream pump's reader of a createUndiciFetch body: the parser's chunks, no Web stream. */
describe('createUndiciFetch: the direct body reader', () => {
  const directReader = async (path: string) => {
    const res = await fetchImpl(`${base}${path}`, { method: 'POST', body: '{}' });
    expect(typeof (res as unknown as Record<string, unknown>).directBodyReader).toBe('function');
    const reader = bodyReader(res);
    if (!reader) throw new Error('no reader');
    return { res, reader };
  };
  it('reads a streamed body as it arrives, and the body then counts as used', async () => {
    const { res, reader } = await directReader('/stream');
    expect(res.bodyUsed).toBe(true);
    expect(bodyReader(res)).toBeDefined(); // the Web stream of a used body: empty
    expect(new TextDecoder().decode((await reader.read()).value)).toBe('data: first\n\n');
    releaseSecondChunk();
    expect(await readAll(reader)).toBe('data: second\n\n');
    expect(await reader.read()).toEqual({ done: true, value: undefined });
  });

  it('decompresses, and reads a large body slowly, complete and in order (the socket paused and resumed)', async () => {
    expect(await readAll((await directReader('/gzip')).reader)).toBe('{"compressed":true}');
    const text = await readAll((await directReader('/big')).reader, 8);
    expect(text).toBe(Array.from({ length: 2000 }, (_, i) => bigChunk(i)).join(''));
  });

  it('cancelling ends a pending read and closes the upstream connection', async () => {
    const wasClosed = closed();
    const { reader } = await directReader('/hang-body');
    await reader.read();
    const pending = reader.read();
    await reader.cancel(new Error('client gone'));
    expect(await pending).toEqual({ done: true, value: undefined });
    await wasClosed;
  });
});

describe('the standalone server path: serve() + createUndiciFetch()', () => {
  it('answers sync and streamed chat, keeps upstream errors, and a client abort closes the upstream connection', async () => {
    const mock = await startMockOpenAI();
    const upstreamFetch = createUndiciFetch();
    const gateway = createGateway(openAIConfig(mock), { fetch: upstreamFetch });
    const running = await serve(gateway, { port: 0 });
    const post = (body: unknown, signal?: AbortSignal) =>
      fetch(`${running.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' },
        body: JSON.stringify(body),
        ...(signal ? { signal } : {}),
      });
    try {
      const sync = await post({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello there' }] });
      expect(sync.status).toBe(200);
      expect(((await sync.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: hello there');

      const streamed = await post({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'one two three' }] });
      const text = await streamed.text();
      const content = text
        .split('\n\n')
        .filter((b) => b.startsWith('data: {'))
        .map((b) => (JSON.parse(b.slice(6)) as { choices: Array<{ delta?: { content?: string } }> }).choices[0]?.delta?.content ?? '')
        .join('');
      expect(content).toBe('[openai] you said: one two three');
      expect(text.endsWith('data: [DONE]\n\n')).toBe(true);

      mock.failNext(429, { error: { message: 'slow down', type: 'rate_limit_error', param: null, code: null } }, { 'retry-after': '9' });
      const limited = await post({ model: 'gpt-4o', messages: [{ role: 'user', content: 'x' }] });
      expect(limited.status).toBe(429);
      expect(limited.headers.get('retry-after')).toBe('9');
      expect(((await limited.json()) as { error: { message: string } }).error.message).toContain('slow down');

      mock.holdStreamNext();
      const disconnected = mock.nextDisconnect();
      const ac = new AbortController();
      const held = await post({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'long answer' }] }, ac.signal);
      const reader = (held.body as ReadableStream<Uint8Array>).getReader();
      expect(new TextDecoder().decode((await reader.read()).value)).toContain('chat.completion.chunk');
      ac.abort();
      await disconnected;
    } finally {
      running.server.closeAllConnections();
      await running.close();
      await gateway.close();
      await upstreamFetch.close();
      await mock.close();
    }
  });
});
