/**
 * Resilience (issue 12) against a scripted fault upstream on loopback, through the upstream client
 * `npm start` uses (createUndiciFetch): refused connection, reset mid-stream, slow first byte,
 * stalled stream, 429 with retry-after, bursts of 500 and 529, malformed JSON, truncated SSE. Each
 * ends in its documented outcome (README "Retries, timeouts, balancing and fallbacks"): before the
 * first byte a retry, else the upstream's status (504 for a timeout); after it the protocol's
 * in-band error event and a closed upstream socket. Also: x-modelgate-* headers, the attempts in
 * the onResponse event, weighted balancing with a seeded random, the circuit breaker's cooldown
 * and probe on an injected clock, fallbacks skipping a model that cannot take an image, and a
 * client that leaves during the backoff.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, GatewayConfigInput, ResponseEvent } from '../../src/index.js';
import { backoffDelayMs } from '../../src/routing/retry-policy.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

const KEY = 'mg-resilience-key-0001';
const UPSTREAM_KEY = 'sk-upstream-resilience-secret-0001';

type Fault =
  | { kind: 'ok' }
  | { kind: 'status'; status: number; headers?: Record<string, string> }
  | { kind: 'hang' }
  | { kind: 'malformed' }
  | { kind: 'reset-mid-stream' }
  | { kind: 'stall-stream' }
  | { kind: 'truncated-sse' };

/** An OpenAI-style upstream that answers each request with the next scripted fault (then `ok`). */
interface FaultUpstream {
  baseURL: string;
  script: Fault[];
  /** Requests seen, by the `model` of their body. */
  models: string[];
  /** Requests in flight now, and the most at once. */
  inFlight: number;
  maxInFlight: number;
  /** Delay of every `ok` answer (ms), for the load test. */
  delayMs: number;
  /** Resolves when a client closes a connection before its answer finished. */
  nextDisconnect(): Promise<void>;
  openSockets(): number;
  close(): Promise<void>;
}

function completion(model: string) {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1767225600, model, choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
}

function chunk(model: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1767225600, model, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

async function startFaultUpstream(): Promise<FaultUpstream> {
  const sockets = new Set<Socket>();
  const waiters: Array<() => void> = [];
  const up: FaultUpstream = {
    baseURL: '',
    script: [],
    models: [],
    inFlight: 0,
    maxInFlight: 0,
    delayMs: 0,
    nextDisconnect: () => new Promise((resolve) => waiters.push(resolve)),
    openSockets: () => sockets.size,
    close: () =>
      new Promise((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const body = JSON.parse(raw || '{}') as { model?: string; stream?: boolean };
      const model = body.model ?? '';
      up.models.push(model);
      up.inFlight += 1;
      up.maxInFlight = Math.max(up.maxInFlight, up.inFlight);
      let finished = false;
      res.on('close', () => {
        up.inFlight -= 1;
        if (!finished) for (const w of waiters.splice(0)) w();
      });
      const finish = (fn: () => void) => {
        finished = true;
        fn();
      };
      const fault = up.script.shift() ?? { kind: 'ok' };
      const sse = () => res.writeHead(200, { 'content-type': 'text/event-stream' });
      switch (fault.kind) {
        case 'ok': {
          const answer = () => {
            if (body.stream) {
              sse();
              finish(() => res.end(chunk(model, { role: 'assistant', content: 'hello' }) + chunk(model, {}, 'stop') + 'data: [DONE]\n\n'));
            } else finish(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model))));
          };
          if (up.delayMs > 0) setTimeout(answer, up.delayMs);
          else answer();
          return;
        }
        case 'status':
          return finish(() => res.writeHead(fault.status, { 'content-type': 'application/json', ...fault.headers }).end(JSON.stringify({ error: { message: `scripted ${fault.status} (key ${UPSTREAM_KEY})`, type: 'server_error' } })));
        case 'hang':
          return; // never answers; the gateway's timeout has to end it
        case 'malformed':
          return finish(() => res.writeHead(200, { 'content-type': 'application/json' }).end('{"id": "chatcmpl-1", "choices": ['));
        case 'reset-mid-stream':
          sse();
          res.write(chunk(model, { role: 'assistant', content: 'hel' }));
          setTimeout(() => res.socket?.destroy(), 20);
          return;
        case 'stall-stream':
          sse();
          res.write(chunk(model, { role: 'assistant', content: 'hel' }));
          return; // stays open and silent
        case 'truncated-sse':
          sse();
          return finish(() => res.end(chunk(model, { role: 'assistant', content: 'hel' })));
      }
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  up.baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return up;
}

/** A loopback port nothing listens on (a refused connection). */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** mulberry32: a seeded PRNG, so balancing is checked without flakiness. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

let a: FaultUpstream;
let b: FaultUpstream;
let refusedPort: number;
let baselineTimers = 0;

/** Timers alive in this process (retry waits, timeouts, keep-alive intervals all are). */
function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

beforeAll(async () => {
  baselineTimers = activeTimers();
  [a, b, refusedPort] = await Promise.all([startFaultUpstream(), startFaultUpstream(), closedPort()]);
});

afterAll(async () => {
  await Promise.all([a?.close(), b?.close()]);
});

interface Harness {
  gateway: Gateway;
  events: ResponseEvent[];
  clock: { now: number };
}

function harness(extra: Partial<GatewayConfigInput>, opts: { random?: () => number } = {}): Harness {
  const events: ResponseEvent[] = [];
  const clock = { now: 1_767_225_600_000 };
  const config: GatewayConfigInput = {
    providers: [
      { id: 'a', type: 'openai', baseURL: a.baseURL, apiKey: UPSTREAM_KEY, timeoutMs: 300 },
      { id: 'a-compat', type: 'openai-compatible', baseURL: a.baseURL, apiKey: UPSTREAM_KEY, timeoutMs: 300 },
      { id: 'b', type: 'openai', baseURL: b.baseURL, apiKey: UPSTREAM_KEY, timeoutMs: 300 },
      { id: 'refused', type: 'openai', baseURL: `http://127.0.0.1:${refusedPort}/v1`, apiKey: UPSTREAM_KEY },
    ],
    models: [{ id: 'm', provider: 'a', upstreamModel: 'gpt-a' }],
    keys: [{ id: 'k', key: KEY }],
    retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 20 },
    timeouts: { streamIdleMs: 200 },
    ...extra,
  };
  const gateway = createShippedGateway(config, { env: {}, now: () => clock.now, hooks: { onResponse: (e) => void events.push(e) }, ...(opts.random ? { random: opts.random } : {}) });
  return { gateway, events, clock };
}

function chat(model: string, extra: Record<string, unknown> = {}, signal?: AbortSignal): Request {
  return jsonRequest('/v1/chat/completions', chatBody(model, extra), { key: KEY, ...(signal ? { signal } : {}) });
}

async function eventOf(h: Harness, res: Response): Promise<ResponseEvent> {
  const traceId = res.headers.get('x-trace-id');
  await expect.poll(() => h.events.find((e) => e.traceId === traceId)).toBeDefined();
  return h.events.find((e) => e.traceId === traceId) as ResponseEvent;
}

function reset(): void {
  for (const u of [a, b]) {
    u.script = [];
    u.models = [];
    u.maxInFlight = 0;
    u.delayMs = 0;
  }
}

describe('retries before the first byte', () => {
  it('a refused connection moves on to the next deployment at once; headers and the hook name each attempt', async () => {
    reset();
    // random 0 picks the first deployment: the refused one.
    const h = harness({ models: [{ id: 'm', deployments: [{ provider: 'refused', upstreamModel: 'gpt-r' }, { provider: 'a', upstreamModel: 'gpt-a' }] }] }, { random: () => 0 });
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(200);
    expect(((await res.json()) as { model: string }).model).toBe('gpt-a');
    expect(res.headers.get('x-modelgate-model')).toBe('m');
    expect(res.headers.get('x-modelgate-provider')).toBe('a');
    expect(res.headers.get('x-modelgate-attempts')).toBe('2');
    const ev = await eventOf(h, res);
    expect(ev.attempts?.map((x) => [x.provider, x.status])).toEqual([
      ['refused', 0],
      ['a', 200],
    ]);
    expect(ev.attempts?.[0]?.reason).toMatch(/^bad_gateway: .*could not be reached/);
    await h.gateway.close();
  });

  it('429 with retry-after is retried on the same deployment after the (capped) wait; the secret never shows', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'status', status: 429, headers: { 'retry-after': '30' } }];
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-attempts')).toBe('2');
    const ev = await eventOf(h, res);
    expect(ev.attempts?.map((x) => x.status)).toEqual([429, 200]);
    expect(JSON.stringify(ev)).not.toContain(UPSTREAM_KEY);
    expect(a.models).toEqual(['gpt-a', 'gpt-a']);
    await h.gateway.close();
  });

  it('a burst of 500s is ridden out; a burst of 529s longer than the attempts ends in a 503 (529 is Anthropic\'s own status) with every attempt listed', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'status', status: 500 }, { kind: 'status', status: 500 }];
    const ok = await h.gateway.handle(chat('m'));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-modelgate-attempts')).toBe('3');

    a.script = [{ kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 }, { kind: 'status', status: 529 }];
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(503);
    expect(res.headers.get('x-modelgate-attempts')).toBe('3');
    expect(res.headers.get('x-modelgate-provider')).toBe('a');
    const body = (await res.json()) as { error: { message: string } };
    expect(body.error.message).not.toContain(UPSTREAM_KEY);
    const ev = await eventOf(h, res);
    expect(ev.attempts?.map((x) => x.status)).toEqual([529, 529, 529]);
    expect(a.script).toHaveLength(1);
    await h.gateway.close();
  });

  it('a 400 is not retried', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'status', status: 400 }];
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(400);
    expect(res.headers.get('x-modelgate-attempts')).toBe('1');
    await h.gateway.close();
  });

  it('a slow first byte times out (provider timeoutMs) and ends in 504 once the attempts are used up', async () => {
    reset();
    const h = harness({ retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 } });
    a.script = [{ kind: 'hang' }, { kind: 'hang' }];
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(504);
    expect(res.headers.get('x-modelgate-attempts')).toBe('2');
    const ev = await eventOf(h, res);
    expect(ev.attempts?.map((x) => [x.status, x.reason?.split(':')[0]])).toEqual([
      [0, 'upstream_timeout'],
      [0, 'upstream_timeout'],
    ]);
    await h.gateway.close();
  });

  it('malformed JSON in a sync answer is retried, then a 502', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'malformed' }];
    const ok = await h.gateway.handle(chat('m'));
    expect(ok.status).toBe(200);
    expect(ok.headers.get('x-modelgate-attempts')).toBe('2');
    a.script = [{ kind: 'malformed' }, { kind: 'malformed' }, { kind: 'malformed' }];
    const bad = await h.gateway.handle(chat('m'));
    expect(bad.status).toBe(502);
    expect(((await bad.json()) as { error: { message: string } }).error.message).toMatch(/not JSON/);
    await h.gateway.close();
  });

  it('the total time (timeouts.totalMs) ends the retries with a 504', async () => {
    reset();
    const h = harness({ timeouts: { totalMs: 150, streamIdleMs: 200 }, retry: { attempts: 5, initialDelayMs: 1, maxDelayMs: 5 } });
    a.script = [{ kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }, { kind: 'hang' }];
    const res = await h.gateway.handle(chat('m'));
    expect(res.status).toBe(504);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/total time/);
    expect(res.headers.get('x-modelgate-attempts')).toBe('1');
    await h.gateway.close();
  });

  it('a client that leaves during the backoff stops the loop at once (no further upstream call)', async () => {
    reset();
    const h = harness({ retry: { attempts: 3, initialDelayMs: 1, maxDelayMs: 60_000 } });
    a.script = [{ kind: 'status', status: 503, headers: { 'retry-after': '60' } }];
    const client = new AbortController();
    const pending = h.gateway.handle(chat('m', {}, client.signal), { signal: client.signal });
    await expect.poll(() => a.models.length).toBe(1);
    client.abort();
    const res = await pending;
    expect(res.status).toBe(499);
    expect(a.models).toHaveLength(1);
    await h.gateway.close();
  });
});

describe('every client protocol goes through the same loop', () => {
  it('Messages, Gemini, Responses and Interactions clients ride out a 500 on a translated call', async () => {
    reset();
    const h = harness({ models: [{ id: 'm', provider: 'a-compat', upstreamModel: 'gpt-a' }] });
    const requests: Array<[string, Request]> = [
      ['messages', new Request('http://gw.test/v1/messages', { method: 'POST', headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }) })],
      ['gemini', new Request('http://gw.test/v1beta/models/m:generateContent', { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) })],
      ['responses', new Request('http://gw.test/v1/responses', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input: 'hi', store: false }) })],
      ['interactions', new Request('http://gw.test/v1beta/interactions', { method: 'POST', headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', input: 'hi', store: false }) })],
    ];
    // The model is served over OpenAI Chat Completions here (an openai-compatible provider has no Responses API).
    for (const [name, req] of requests) {
      a.script = [{ kind: 'status', status: 500 }];
      const res = await h.gateway.handle(req);
      expect([name, res.status]).toEqual([name, 200]);
      expect([name, res.headers.get('x-modelgate-attempts')]).toEqual([name, '2']);
      expect(JSON.stringify(await res.json())).toContain('hello');
    }
    await h.gateway.close();
  });
});

describe('after the first byte', () => {
  it('a reset mid-stream ends in the in-band error event; nothing is retried', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'reset-mid-stream' }];
    const res = await h.gateway.handle(chat('m', { stream: true }));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"content":"hel"');
    expect(text).toMatch(/"error":\{/);
    expect(text).toMatch(/broke off/);
    expect(text).not.toContain('[DONE]');
    const ev = await eventOf(h, res);
    expect(ev.streamCompleted).toBe(false);
    expect(a.models).toHaveLength(1);
    await h.gateway.close();
  });

  it('a stalled stream is cut after streamIdleMs: in-band upstream_timeout, and the upstream socket is closed', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'stall-stream' }];
    const closed = a.nextDisconnect();
    const res = await h.gateway.handle(chat('m', { stream: true }));
    const text = await res.text();
    expect(text).toContain('"content":"hel"');
    expect(text).toMatch(/stalled/);
    await closed;
    const ev = await eventOf(h, res);
    expect(ev.streamCompleted).toBe(false);
    expect(ev.error?.code).toBe('upstream_timeout');
    await h.gateway.close();
  });

  it('a truncated SSE stream (closed before its finish) ends in the in-band error, for a translated client too', async () => {
    reset();
    const h = harness({});
    a.script = [{ kind: 'truncated-sse' }];
    const res = await h.gateway.handle(chat('m', { stream: true }));
    const text = await res.text();
    expect(text).toMatch(/"error":/);
    expect(text).not.toContain('[DONE]');

    a.script = [{ kind: 'truncated-sse' }];
    const msg = await h.gateway.handle(
      new Request('http://gw.test/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'm', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    const sse = await msg.text();
    expect(sse).toContain('event: error');
    expect(sse).not.toContain('event: message_stop');
    await h.gateway.close();
  });
});

describe('balancing, cooldown, fallbacks', () => {
  it('spreads requests by weight (3:1) within a few percent over 400 requests', async () => {
    reset();
    const h = harness({ models: [{ id: 'm', deployments: [{ provider: 'a', upstreamModel: 'gpt-a', weight: 3 }, { provider: 'b', upstreamModel: 'gpt-b', weight: 1 }] }] }, { random: seeded(2024) });
    for (let i = 0; i < 400; i++) {
      const res = await h.gateway.handle(chat('m'));
      expect(res.status).toBe(200);
      await res.arrayBuffer();
    }
    const share = a.models.length / 400;
    expect(a.models.length + b.models.length).toBe(400);
    expect(share).toBeGreaterThan(0.72);
    expect(share).toBeLessThan(0.78);
    await h.gateway.close();
  });

  it('skips a deployment after cooldown.failures failures in a row, then lets one request probe it', async () => {
    reset();
    const h = harness({ models: [{ id: 'm', deployments: [{ provider: 'a', upstreamModel: 'gpt-a' }, { provider: 'b', upstreamModel: 'gpt-b' }] }], cooldown: { failures: 2, cooldownMs: 1000 } }, { random: () => 0 });
    const attempts = async () => {
      const res = await h.gateway.handle(chat('m'));
      expect(res.status).toBe(200);
      return (await eventOf(h, res)).attempts?.map((x) => x.provider).join(',');
    };
    a.script = [{ kind: 'status', status: 503 }, { kind: 'status', status: 503 }, { kind: 'status', status: 503 }];
    expect(await attempts()).toBe('a,b');
    expect(await attempts()).toBe('a,b'); // second failure in a row: a is cooling down now
    expect(await attempts()).toBe('b');
    h.clock.now += 1001;
    expect(await attempts()).toBe('a,b'); // the probe fails: cooling down again
    expect(await attempts()).toBe('b');
    h.clock.now += 1001;
    expect(await attempts()).toBe('a'); // the probe succeeds: closed
    expect(await attempts()).toBe('a');
    await h.gateway.close();
  });

  it('falls back in order, skipping a model that cannot take an image; the answer names the model that answered', async () => {
    reset();
    const h = harness({
      models: [
        { id: 'm', provider: 'a', upstreamModel: 'gpt-a', fallbacks: ['text-only', 'vision'] },
        { id: 'text-only', provider: 'b', upstreamModel: 'gpt-text', inputModalities: ['text'] },
        { id: 'vision', provider: 'b', upstreamModel: 'gpt-vision' },
      ],
      retry: { attempts: 2, initialDelayMs: 1, maxDelayMs: 5 },
    });
    a.script = [{ kind: 'status', status: 503 }, { kind: 'status', status: 503 }];
    const image = { role: 'user', content: [{ type: 'text', text: 'what is this?' }, { type: 'image_url', image_url: { url: 'data:image/png;base64,iVBORw0KGgo=' } }] };
    const res = await h.gateway.handle(chat('m', { messages: [image] }));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-model')).toBe('vision');
    expect(res.headers.get('x-modelgate-attempts')).toBe('3');
    const ev = await eventOf(h, res);
    expect(ev.model).toBe('vision');
    expect(ev.attempts?.map((x) => `${x.model}@${x.provider}:${x.status}`)).toEqual(['m@a:503', 'm@a:503', 'vision@b:200']);
    expect(b.models).toEqual(['gpt-vision']);

    // Without the image, text-only is next in line and answers.
    a.script = [{ kind: 'status', status: 503 }, { kind: 'status', status: 503 }];
    b.models = [];
    const text = await h.gateway.handle(chat('m'));
    expect(text.status).toBe(200);
    expect(text.headers.get('x-modelgate-model')).toBe('text-only');
    expect(text.headers.get('x-modelgate-provider')).toBe('b');
    expect(b.models).toEqual(['gpt-text']);
    await h.gateway.close();
  });

  it('the retry delay is full jitter under the exponential ceiling, and retry-after wins, capped at maxDelayMs', () => {
    const settings = { attempts: 5, initialDelayMs: 100, maxDelayMs: 1000 };
    expect(backoffDelayMs(0, settings, () => 0.999)).toBe(99);
    expect(backoffDelayMs(2, settings, () => 0.5)).toBe(200);
    expect(backoffDelayMs(6, settings, () => 0.999)).toBe(999);
    expect(backoffDelayMs(0, settings, () => 0, 0.25)).toBe(250);
    expect(backoffDelayMs(0, settings, () => 0, 30)).toBe(1000);
  });
});

describe('load', () => {
  it('with the upstream slowed, the concurrency limit holds, every request is answered, memory returns near its baseline', async () => {
    reset();
    const h = harness({ keys: [{ id: 'k', key: KEY, limits: { concurrentRequests: 4 } }] });
    a.delayMs = 30;
    const heapBefore = process.memoryUsage().heapUsed;
    for (let round = 0; round < 5; round++) {
      const results = await Promise.all(
        Array.from({ length: 40 }, async (_, i) => {
          const res = await h.gateway.handle(chat('m', i % 2 ? { stream: true } : {}));
          await res.arrayBuffer();
          return res.status;
        }),
      );
      expect(results.filter((s) => s === 200).length).toBeGreaterThanOrEqual(4);
      expect(results.every((s) => s === 200 || s === 429)).toBe(true);
    }
    expect(a.maxInFlight).toBeLessThanOrEqual(4);
    await h.gateway.close();
    const heapAfter = process.memoryUsage().heapUsed;
    expect(heapAfter - heapBefore).toBeLessThan(64 * 1024 * 1024);
  });
});

describe('cleanup', () => {
  it('leaves no timer behind once the requests above are over (retry waits, timeouts, idle timers)', async () => {
    await expect.poll(() => activeTimers() <= baselineTimers).toBe(true);
    expect(activeTimers()).toBeLessThanOrEqual(baselineTimers);
  });
});
