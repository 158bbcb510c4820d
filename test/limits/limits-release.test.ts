/**
 * A concurrency slot is released exactly once on every way a request can end: sync answer, stream
 * read to the end, stream cancelled by the client (mid-stream over HTTP, or before reading), the
 * client leaving a sync call, an upstream error before headers, a stream that breaks after its
 * headers, translated streams, images, a video submission, and background Responses runs (the
 * slot is held by the run, not by the submission's answer). A store that counts every acquire and
 * release checks the "exactly once".
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { MemoryRateLimiter, type Gateway, type LimitCheck, type RateLimiter } from '../../src/index.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-release-key-000001';
const UPSTREAM_KEY = 'upstream-release-key-0123456789';

/** A memory store that records the member of every slot taken and released. */
class CountingLimiter implements RateLimiter {
  private readonly inner = new MemoryRateLimiter();
  readonly acquired: string[] = [];
  readonly released: string[] = [];
  async acquire(checks: readonly LimitCheck[], now: number) {
    const r = await this.inner.acquire(checks, now);
    if (r.allowed) for (const c of checks) if (c.kind === 'concurrency') this.acquired.push(c.member);
    return r;
  }
  adjust(name: string, resetAt: number, delta: number, now: number) {
    return this.inner.adjust(name, resetAt, delta, now);
  }
  spend(name: string, amount: number, resetAt: number) {
    return this.inner.spend(name, amount, resetAt);
  }
  async release(name: string, member: string) {
    this.released.push(member);
    await this.inner.release(name, member);
  }
}

let upstream: MockGatedOpenAI;
let limiter: CountingLimiter;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  upstream = await startMockGatedOpenAI({ apiKeys: [UPSTREAM_KEY] });
  limiter = new CountingLimiter();
  gateway = createShippedGateway(
    {
      providers: [
        { id: 'up', type: 'openai', baseURL: upstream.baseURL, apiKey: UPSTREAM_KEY },
        { id: 'compat', type: 'openai-compatible', baseURL: upstream.baseURL, apiKey: UPSTREAM_KEY },
        { id: 'mock', type: 'mock' },
      ],
      models: [
        { id: 'gpt', provider: 'up', upstreamModel: 'gpt-4o-mini' },
        { id: 'compat', provider: 'compat', upstreamModel: 'gpt-4o-mini' },
        { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
        { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
      ],
      // One slot: a slot that leaked would refuse the next request.
      keys: [{ id: 'k', key: KEY, limits: { concurrentRequests: 1 } }],
      retry: { attempts: 1 },
    },
    { rateLimiter: limiter, video: { pollerTickMs: false } },
  );
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  upstream?.open();
  server?.server.closeAllConnections();
  await server?.close();
  await gateway?.close();
  await upstream?.close();
});

const post = (path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Request => jsonRequest(path, body, { key: KEY, headers });

const chatBody = (extra: Record<string, unknown> = {}) => ({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }], ...extra });

function count(list: string[], member: string): number {
  return list.filter((m) => m === member).length;
}

/** The slot of `trace` was taken once and released once, and the key's one slot is free again. */
async function expectReleasedOnce(trace: string | null): Promise<void> {
  expect(trace).toBeTruthy();
  await expect.poll(() => count(limiter.released, trace as string)).toBe(1);
  expect(count(limiter.acquired, trace as string)).toBe(1);
  const next = await gateway.handle(post('/v1/chat/completions', chatBody()));
  expect(next.status).toBe(200);
  expect(count(limiter.released, next.headers.get('x-trace-id') as string)).toBe(1);
}

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

describe('concurrency slots are released exactly once', () => {
  it('sync answer', async () => {
    const res = await gateway.handle(post('/v1/chat/completions', chatBody()));
    expect(res.status).toBe(200);
    await expectReleasedOnce(res.headers.get('x-trace-id'));
  });

  it('stream read to the end (pass-through and translated)', async () => {
    const res = await gateway.handle(post('/v1/chat/completions', chatBody({ stream: true })));
    expect(await res.text()).toContain('[DONE]');
    await expectReleasedOnce(res.headers.get('x-trace-id'));
    const translated = await gateway.handle(
      post('/v1/messages', { model: 'gpt', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-version': '2023-06-01' }),
    );
    expect(await translated.text()).toContain('message_stop');
    await expectReleasedOnce(translated.headers.get('x-trace-id'));
  });

  it('stream cancelled by the client mid-stream (over HTTP), while the upstream still holds it', async () => {
    upstream.closeGate();
    const ac = new AbortController();
    const res = await fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(chatBody({ stream: true })),
      signal: ac.signal,
    });
    const trace = res.headers.get('x-trace-id');
    await readUntil((res.body as ReadableStream<Uint8Array>).getReader(), 'gated');
    // Still in flight: the one slot is taken.
    expect((await gateway.handle(post('/v1/chat/completions', chatBody()))).status).toBe(429);
    ac.abort();
    await expect.poll(() => count(limiter.released, trace as string)).toBe(1);
    upstream.open();
    await expectReleasedOnce(trace);
  });

  it('stream cancelled before its first chunk was read', async () => {
    upstream.closeGate();
    const res = await gateway.handle(post('/v1/chat/completions', chatBody({ stream: true })));
    await res.body?.cancel();
    upstream.open();
    await expectReleasedOnce(res.headers.get('x-trace-id'));
  });

  it('client leaving while a sync call waits for the upstream', async () => {
    upstream.closeGate();
    const ac = new AbortController();
    const pending = fetch(`${server.url}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'request-id': 'leaving-sync' },
      body: JSON.stringify(chatBody()),
      signal: ac.signal,
    });
    await expect.poll(() => upstream.inFlight).toBe(1);
    const before = limiter.released.length;
    ac.abort();
    await expect(pending).rejects.toThrow();
    await expect.poll(() => limiter.released.length).toBe(before + 1);
    const trace = limiter.released[before] as string;
    upstream.open();
    await expectReleasedOnce(trace);
  });

  it('upstream error before headers, and a stream that breaks after them', async () => {
    upstream.failNext(500, { error: { message: 'upstream down', type: 'server_error' } });
    const failed = await gateway.handle(post('/v1/chat/completions', chatBody()));
    expect(failed.status).toBe(500);
    await expectReleasedOnce(failed.headers.get('x-trace-id'));

    upstream.breakNextStream();
    upstream.closeGate();
    const broken = await gateway.handle(post('/v1/chat/completions', chatBody({ stream: true })));
    expect(broken.status).toBe(200);
    const reader = (broken.body as ReadableStream<Uint8Array>).getReader();
    await readUntil(reader, 'gated');
    upstream.open();
    expect(await readUntil(reader, '"error"')).toContain('broke off');
    await expectReleasedOnce(broken.headers.get('x-trace-id'));
  });

  it('a request refused by the limit takes and releases nothing', async () => {
    upstream.closeGate();
    const held = gateway.handle(post('/v1/chat/completions', chatBody()));
    await expect.poll(() => upstream.inFlight).toBe(1);
    const refused = await gateway.handle(post('/v1/chat/completions', chatBody()));
    expect(refused.status).toBe(429);
    const trace = refused.headers.get('x-trace-id') as string;
    expect(count(limiter.acquired, trace)).toBe(0);
    upstream.open();
    const first = await held;
    await expectReleasedOnce(first.headers.get('x-trace-id'));
    expect(count(limiter.released, trace)).toBe(0);
  });

  it('images and a video submission', async () => {
    const image = await gateway.handle(post('/v1/images/generations', { model: 'mock-image', prompt: 'a cat' }));
    expect(image.status).toBe(200);
    await expectReleasedOnce(image.headers.get('x-trace-id'));
    const video = await gateway.handle(post('/v1/video/generations', { model: 'mock-video', prompt: 'a cat' }));
    expect(video.status).toBe(202);
    await expectReleasedOnce(video.headers.get('x-trace-id'));
  });

  it('background Responses runs hold the slot until the run ends, streamed or not', async () => {
    for (const stream of [false, true]) {
      upstream.closeGate();
      const res = await gateway.handle(post('/v1/responses', { model: 'compat', input: 'hi', background: true, stream }));
      expect(res.status).toBe(200);
      const trace = res.headers.get('x-trace-id') as string;
      if (stream) await res.body?.cancel();
      else expect(((await res.json()) as { status: string }).status).toBe('queued');
      // The submission answered, but the run is in flight: the slot stays taken.
      await expect.poll(() => upstream.inFlight).toBe(1);
      expect(count(limiter.released, trace)).toBe(0);
      expect((await gateway.handle(post('/v1/chat/completions', chatBody()))).status).toBe(429);
      upstream.open();
      await expectReleasedOnce(trace);
    }
  });
});
