/**
 * Stream faults found from outside (fault injection against the shipped server), through the
 * gateway with the standalone server's upstream fetch (undici, its body timeout set from
 * `streamIdleMs` as node/cli.ts sets it) and a scripted OpenAI-style upstream:
 * - a stream request answered 200 with an HTML page (a proxy's or CDN's) is no stream: a 502,
 *   retried and failed over like a JSON body, not relayed as events;
 * - a client that stops reading for longer than `streamIdleMs` holds the stream back: that is not
 *   the upstream's silence, so the stream is not cut (nor blamed on the upstream);
 * - an event that is not JSON in a pass-through stream ends it with the client's in-band error
 *   and the ledger's failure, as translated streams do;
 * - one event may not grow without bound (a stream that never sends the blank line that ends it).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type ResponseEvent } from '../../src/index.js';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { MAX_SSE_EVENT_CHARS } from '../../src/wire/sse.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';

const KEY = 'mg-stream-faults-key-0001';
const IDLE_MS = 300;
const BIG_EVENTS = 2000;
const PAD = 'x'.repeat(4000);
/** One event of more than MAX_SSE_EVENT_CHARS, never ended, in 64 KiB writes. */
const ENDLESS_PART = 'C'.repeat(64 * 1024);
const ENDLESS_PARTS = Math.ceil(MAX_SSE_EVENT_CHARS / ENDLESS_PART.length) + 16;

let upstream: Server;
let gateway: Gateway;
const seen: string[] = [];
const responses: ResponseEvent[] = [];
const ledgerRows: LedgerRow[] = [];
const sockets = new Set<Socket>();

const chunk = (model: string, delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/** Writes `parts` in order, waiting for the socket to drain whenever it is full (a vendor under backpressure). */
async function writeAll(res: ServerResponse, parts: Iterable<string>): Promise<void> {
  for (const p of parts) if (!res.write(p)) await new Promise<void>((resolve) => res.once('drain', resolve));
  res.end();
}

function* bigStream(model: string): Generator<string> {
  yield chunk(model, { role: 'assistant', content: '' });
  for (let i = 0; i < BIG_EVENTS; i++) yield chunk(model, { content: PAD });
  yield chunk(model, {}, 'stop');
  yield 'data: [DONE]\n\n';
}

beforeAll(async () => {
  upstream = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const model = (JSON.parse(raw) as { model: string }).model;
      seen.push(model);
      if (model === 'stall-head') return; // never answers
      if (model === 'html') return void res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end('<html><body>502 Bad Gateway from the CDN</body></html>');
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (model === 'big') return void writeAll(res, bigStream(model));
      if (model === 'malformed') return void writeAll(res, [chunk(model, { role: 'assistant', content: 'hel' }), 'data: {"candid\n\n', chunk(model, { content: 'lo' }), chunk(model, {}, 'stop'), 'data: [DONE]\n\n']);
      if (model === 'endless-event') return void writeAll(res, [chunk(model, { role: 'assistant', content: 'a' }), 'data: {"x":"', ...Array.from({ length: ENDLESS_PARTS }, () => ENDLESS_PART)]);
      void writeAll(res, [chunk(model, { role: 'assistant', content: 'hello' }), chunk(model, {}, 'stop'), 'data: [DONE]\n\n']);
    });
  });
  upstream.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const baseURL = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  gateway = createGateway(
    {
      providers: [{ id: 'up', type: 'openai', baseURL, apiKey: 'sk-upstream-stream-faults-0001' }],
      models: [
        { id: 'html', provider: 'up', fallbacks: ['ok'] },
        { id: 'ok', provider: 'up' },
        { id: 'big', provider: 'up' },
        { id: 'malformed', provider: 'up' },
        { id: 'endless-event', provider: 'up' },
        { id: 'stall-head', provider: 'up' },
      ],
      keys: [{ id: 'faults', key: KEY }],
      timeouts: { streamIdleMs: IDLE_MS },
    },
    { fetch: createUndiciFetch({ bodyTimeoutMs: IDLE_MS }), hooks: { onResponse: (e) => void responses.push(e) }, ledger: { enqueue: (row) => ledgerRows.push(row) > 0 } },
  );
});
afterAll(async () => {
  await gateway?.close();
  for (const s of sockets) s.destroy();
  await new Promise<void>((resolve) => upstream?.close(() => resolve()));
});

const chat = (model: string): Promise<Response> =>
  gateway.handle(
    new Request('http://gw/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    }),
  );

/** The same stream asked for by an Anthropic client: translated from the OpenAI upstream. */
const messages = (model: string): Promise<Response> =>
  gateway.handle(
    new Request('http://gw/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, max_tokens: 100, messages: [{ role: 'user', content: 'hi' }] }),
    }),
  );

const lastEvent = async (traceId: string | null): Promise<ResponseEvent> => {
  await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
  return responses.find((e) => e.traceId === traceId) as ResponseEvent;
};

describe('stream faults', () => {
  it('a 200 HTML page for a stream request is a failure, retried and failed over', async () => {
    seen.length = 0;
    const res = await chat('html');
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-model')).toBe('ok');
    expect(text).toContain('"content":"hello"');
    expect(text).toContain('data: [DONE]');
    expect(seen.filter((m) => m === 'html').length).toBeGreaterThanOrEqual(1);
    expect(seen.at(-1)).toBe('ok');
  });

  it('a client that stops reading longer than streamIdleMs gets the whole stream', async () => {
    const res = await chat('big');
    expect(res.status).toBe(200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // The upstream keeps sending until the buffers between are full, then waits on the client.
    await new Promise((r) => setTimeout(r, IDLE_MS * 4));
    for (let r = await reader.read(); !r.done; r = await reader.read()) text += decoder.decode(r.value, { stream: true });
    expect(text).not.toContain('"error"');
    expect(text.split(PAD).length - 1).toBe(BIG_EVENTS);
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    const ev = await lastEvent(res.headers.get('x-trace-id'));
    expect(ev.streamCompleted).toBe(true);
    expect(ev.error).toBeUndefined();
    await expect.poll(() => ledgerRows.find((r) => r.traceId === res.headers.get('x-trace-id'))).toMatchObject({ status: 200, errorCode: null });
  });

  it('a pass-through event whose JSON was cut short ends the stream with the in-band error; what came before goes out', async () => {
    const res = await chat('malformed');
    const text = await res.text();
    expect(text).toContain('"content":"hel"');
    expect(text).not.toContain('{"candid');
    expect(text).not.toContain('"content":"lo"');
    expect(text.trimEnd().split('\n\n').at(-1)).toMatch(/^data: \{"error":\{"message":"The upstream sent a malformed stream event/);
    const traceId = res.headers.get('x-trace-id');
    expect((await lastEvent(traceId)).error?.code).toBe('bad_gateway');
    await expect.poll(() => ledgerRows.find((r) => r.traceId === traceId)).toMatchObject({ status: 200, errorCode: 'bad_gateway' });
  });

  it('a client that leaves before the upstream answers: its call still counts as an attempt', async () => {
    const before = seen.length;
    const abort = new AbortController();
    const pending = gateway.handle(
      new Request('http://gw/v1/chat/completions', {
        method: 'POST',
        signal: abort.signal,
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'stall-head', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    await expect.poll(() => seen.length).toBe(before + 1);
    abort.abort();
    const res = await pending.catch(() => undefined);
    const traceId = res?.headers.get('x-trace-id');
    await expect.poll(() => ledgerRows.find((r) => r.model === 'stall-head' && (traceId === undefined || traceId === null || r.traceId === traceId))).toMatchObject({ status: 499, errorCode: 'client_closed', attempts: 1 });
  });

  it('a stream its client left is client_closed in the ledger, not a clean 200', async () => {
    const res = await chat('big');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
    const traceId = res.headers.get('x-trace-id');
    expect((await lastEvent(traceId)).streamCompleted).toBe(false);
    await expect.poll(() => ledgerRows.find((r) => r.traceId === traceId)).toMatchObject({ status: 200, errorCode: 'client_closed' });
  });

  it('an event that never ends is cut past MAX_SSE_EVENT_CHARS: the in-band error, pass-through and translated', async () => {
    const relayed = await chat('endless-event');
    const relayedText = await relayed.text();
    expect(relayedText).toContain('"content":"a"');
    expect(relayedText.trimEnd().split('\n\n').at(-1)).toMatch(/^data: \{"error":\{"message":"The upstream sent a stream event larger than 64 Mi characters/);
    expect((await lastEvent(relayed.headers.get('x-trace-id'))).error?.code).toBe('bad_gateway');

    const translated = await messages('endless-event');
    const translatedText = await translated.text();
    expect(translatedText).toContain('event: message_start');
    expect(translatedText.trimEnd().split('\n\n').at(-1)).toMatch(/^event: error\ndata: \{"type":"error","error":\{"type":"api_error","message":"The upstream sent a stream event larger than/);
    expect((await lastEvent(translated.headers.get('x-trace-id'))).error?.code).toBe('bad_gateway');
  }, 60_000);
});
