/**
 * createUndiciFetch sends every body kind fetch accepts exactly as the platform's fetch does: the
 * same bytes (multipart modulo its random boundary), the same content-type, content-length for
 * known sizes and chunked transfer for streams. A loopback recording server compares the two.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUndiciFetch } from '../../node/upstream-fetch.js';

interface Recorded {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  raw: Buffer;
}

let server: Server;
let base: string;
const recorded: Recorded[] = [];
const sockets = new Set<Socket>();
/** Called with each request as soon as its first body chunk arrived. */
let onFirstChunk: ((url: string) => void) | undefined;
let onRequestClosed: ((url: string) => void) | undefined;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => {
      if (chunks.length === 0) onFirstChunk?.(req.url ?? '');
      chunks.push(c);
    });
    req.on('close', () => onRequestClosed?.(req.url ?? ''));
    req.on('end', () => {
      recorded.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks) });
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('recorded');
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

const upstream = createUndiciFetch({ connections: 4 });

afterAll(async () => {
  await upstream.close();
  server.closeAllConnections();
  await new Promise<void>((r) => server.close(() => r()));
});

/** What reached the server, with the random multipart boundary replaced by a placeholder. */
interface Wire {
  method: string;
  contentType: string | undefined;
  contentLength: string | undefined;
  transferEncoding: string | undefined;
  body: string;
  /** Bytes on the wire (the boundary's length is fixed, so this compares too). */
  size: number;
}

function wireOf(r: Recorded): Wire {
  const contentType = r.headers['content-type'];
  const latin1 = r.raw.toString('latin1');
  // The boundary the body really uses (a caller-set content-type may name another one: kept as sent).
  const boundary = /^--(\S+)\r\n/.exec(latin1)?.[1];
  const normalise = (s: string) => (boundary ? s.split(boundary).join('<BOUNDARY>') : s);
  return {
    method: r.method,
    contentType: contentType === undefined ? undefined : normalise(contentType),
    contentLength: r.headers['content-length'],
    transferEncoding: r.headers['transfer-encoding'],
    body: normalise(latin1),
    size: r.raw.length,
  };
}

async function send(via: typeof fetch, path: string, init: RequestInit): Promise<Wire> {
  const res = await via(`${base}${path}`, init);
  expect(await res.text()).toBe('recorded');
  const r = recorded.findLast((x) => x.url === path);
  if (!r) throw new Error(`nothing recorded for ${path}`);
  return wireOf(r);
}

/** Binary bytes that are not valid UTF-8, so any re-encoding shows. */
const BINARY = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a, 0x2d, 0x2d]);

function formWithFiles(): FormData {
  const form = new FormData();
  form.append('prompt', 'a cat wearing a hat — ünïcode');
  form.append('model', 'gpt-image-1');
  form.append('image[]', new File([BINARY], 'one.png', { type: 'image/png' }));
  form.append('image[]', new Blob([BINARY.slice(2)], { type: 'image/webp' }), 'two.webp');
  form.append('mask', new File([BINARY.slice(0, 4)], 'mask.png', { type: 'image/png' }));
  return form;
}

function threeChunks(): ReadableStream<Uint8Array> {
  const parts = ['{"a":', '"streamed', ' body"}'];
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = parts.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(new TextEncoder().encode(next));
    },
  });
}

/** Each body kind fetch accepts, built fresh per call (streams and FormData files are single-use). */
const BODIES: Array<[string, () => BodyInit, Record<string, string>?]> = [
  ['string', () => 'plain text body'],
  ['string with its own content-type', () => '{"json":true}', { 'content-type': 'application/json' }],
  ['Uint8Array', () => BINARY.slice()],
  ['Buffer', () => Buffer.from(BINARY)],
  ['ArrayBuffer', () => BINARY.slice().buffer],
  ['DataView over part of a buffer', () => new DataView(BINARY.slice().buffer, 2, 6)],
  ['Int16Array view with an offset', () => new Int16Array(BINARY.slice().buffer, 2, 4)],
  ['Blob with a type', () => new Blob([BINARY], { type: 'image/png' })],
  ['Blob without a type', () => new Blob(['untyped'])],
  ['File', () => new File([BINARY], 'f.bin', { type: 'application/octet-stream' })],
  ['FormData with fields and files', formWithFiles],
  ['FormData with a caller-set content-type', formWithFiles, { 'content-type': 'multipart/form-data; boundary=caller-chose-this' }],
  ['URLSearchParams', () => new URLSearchParams({ grant_type: 'x', note: 'é & =' })],
  ['ReadableStream', threeChunks],
  ['ReadableStream with a content-type', threeChunks, { 'content-type': 'application/json' }],
];

describe('createUndiciFetch sends each body kind as fetch does', () => {
  for (const [name, make, headers] of BODIES) {
    it(name, async () => {
      const path = `/${encodeURIComponent(name)}`;
      const init = (): RequestInit => ({ method: 'POST', body: make(), ...(headers ? { headers } : {}), duplex: 'half' }) as RequestInit;
      const viaFetch = await send(fetch, path, init());
      const viaUndici = await send(upstream, path, init());
      expect(viaUndici).toEqual(viaFetch);
      // Pin what fetch does, so the comparison cannot pass on two equally wrong sides.
      expect(viaUndici.size).toBeGreaterThan(0);
      if (headers?.['content-type']) expect(viaUndici.contentType).toBe(headers['content-type']);
      if (make() instanceof ReadableStream) {
        expect(viaUndici.transferEncoding).toBe('chunked');
        expect(viaUndici.contentLength).toBeUndefined();
      } else {
        expect(viaUndici.contentLength).toBe(String(viaUndici.size));
      }
    });
  }

  it('FormData arrives as real multipart with its boundary, parts and file bytes intact', async () => {
    const res = await upstream(`${base}/multipart`, { method: 'POST', body: formWithFiles() });
    await res.text();
    const r = recorded.findLast((x) => x.url === '/multipart') as Recorded;
    const type = r.headers['content-type'] ?? '';
    expect(type).toMatch(/^multipart\/form-data; boundary=\S+$/);
    const parsed = await new Request('http://x/', { method: 'POST', headers: { 'content-type': type }, body: new Uint8Array(r.raw) }).formData();
    expect(parsed.get('prompt')).toBe('a cat wearing a hat — ünïcode');
    const images = parsed.getAll('image[]') as File[];
    expect(images.map((f) => [f.name, f.type])).toEqual([
      ['one.png', 'image/png'],
      ['two.webp', 'image/webp'],
    ]);
    expect(new Uint8Array(await (images[0] as File).arrayBuffer())).toEqual(BINARY);
    expect(new Uint8Array(await (images[1] as File).arrayBuffer())).toEqual(BINARY.slice(2));
  });

  it('a Request input sends its method, headers and body as fetch does, and init fields win', async () => {
    const request = () => new Request(`${base}/request-input`, { method: 'PUT', headers: { 'x-from': 'request' }, body: formWithFiles() });
    const viaFetch = await send((_u, init) => fetch(request(), init), '/request-input', {});
    const viaUndici = await send((_u, init) => upstream(request(), init), '/request-input', {});
    expect(viaUndici).toEqual(viaFetch);
    expect(viaUndici.method).toBe('PUT');
    expect(viaUndici.contentType).toBe('multipart/form-data; boundary=<BOUNDARY>');
    expect(recorded.findLast((x) => x.url === '/request-input')?.headers['x-from']).toBe('request');

    const overridden = await upstream(request(), { method: 'POST', headers: { 'x-from': 'init' }, body: 'replaced' });
    await overridden.text();
    const last = recorded.findLast((x) => x.url === '/request-input') as Recorded;
    expect([last.method, last.headers['x-from'], last.raw.toString(), last.headers['content-type']]).toEqual(['POST', 'init', 'replaced', 'text/plain;charset=UTF-8']);
  });

  it('a body on GET or HEAD is refused with a TypeError, as fetch refuses it', async () => {
    for (const method of ['GET', 'HEAD']) {
      await expect(fetch(`${base}/get-body`, { method, body: 'x' })).rejects.toBeInstanceOf(TypeError);
      await expect(upstream(`${base}/get-body`, { method, body: 'x' })).rejects.toBeInstanceOf(TypeError);
    }
    expect(recorded.some((r) => r.url === '/get-body')).toBe(false);
  });

  it('a bad URL or header is a rejection, as with fetch, never a throw', async () => {
    for (const call of [() => upstream('not a url', { method: 'POST', body: 'x' }), () => upstream(`${base}/bad-header`, { method: 'POST', headers: { 'x-bad': 'a\nb' }, body: 'x' }), () => upstream(`${base}/bad-header`, { method: 'POST', headers: { 'x-bad': 'a\nb' }, body: new Blob(['x']) })]) {
      let promise: Promise<Response> | undefined;
      expect(() => (promise = call())).not.toThrow();
      await expect(promise).rejects.toBeInstanceOf(TypeError);
    }
    expect(recorded.some((r) => r.url === '/bad-header')).toBe(false);
  });

  it('a stream that yields something other than bytes fails the call', async () => {
    const body = new ReadableStream<unknown>({
      start(controller) {
        controller.enqueue('not bytes');
        controller.close();
      },
    });
    await expect(upstream(`${base}/bad-chunk`, { method: 'POST', body: body as ReadableStream<Uint8Array> })).rejects.toBeInstanceOf(TypeError);
  });

  it('aborting while a stream body uploads rejects, cancels the source stream and closes the connection', async () => {
    let cancelled: unknown;
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('first part; the rest never comes'));
      },
      cancel(reason) {
        cancelled = reason;
      },
    });
    const arrived = new Promise<void>((r) => (onFirstChunk = (url) => url === '/stalled' && r()));
    const closed = new Promise<void>((r) => (onRequestClosed = (url) => url === '/stalled' && r()));
    const controller = new AbortController();
    const pending = upstream(`${base}/stalled`, { method: 'POST', body, signal: controller.signal });
    await arrived;
    const reason = new DOMException('Client disconnected', 'AbortError');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await closed;
    expect(cancelled).toBe(reason);
    expect(recorded.some((r) => r.url === '/stalled')).toBe(false);
  });
});

describe('createUndiciFetch().close()', () => {
  it('closes its keep-alive connections, and later calls reject', async () => {
    const own = createUndiciFetch({ connections: 1 });
    const before = new Set(sockets);
    await (await own(`${base}/keep-alive`, { method: 'POST', body: 'x' })).text();
    const opened = [...sockets].filter((s) => !before.has(s));
    expect(opened).toHaveLength(1);
    const socketClosed = new Promise<void>((r) => (opened[0] as Socket).once('close', () => r()));
    await own.close();
    await socketClosed;
    await expect(own(`${base}/keep-alive`, { method: 'POST', body: 'x' })).rejects.toBeInstanceOf(Error);
  });
});
