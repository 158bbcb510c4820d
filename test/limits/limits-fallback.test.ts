/**
 * A fallback model's own limits apply when the routing moves to it (issue 12): the primary model
 * answers 500, its fallback `slow` allows 1 request per minute (and, in a second setup, one
 * request at a time). The first request is served by the fallback; the second finds it without
 * room, skips it (the attempt recorded with the reason) and, with nothing else to serve, answers
 * 429 with Retry-After instead of being served. A fallback with room after one without is used.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Gateway, GatewayConfigInput, ResponseEvent } from '../../src/index.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-limits-fallback-key-0001';
let server: Server;
let baseURL = '';
/** Upstream models asked for, in order. */
const seen: string[] = [];
/** `gpt-hold` answers once this is called (set per test). */
let hold: Promise<void> = Promise.resolve();

beforeAll(async () => {
  server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c: Buffer) => (raw += c.toString()));
    req.on('end', () => {
      const model = (JSON.parse(raw || '{}') as { model?: string }).model ?? '';
      seen.push(model);
      if (model === 'gpt-down') {
        res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'boom', type: 'server_error' } }));
        return;
      }
      if (model === 'gpt-hold') {
        void hold.then(() => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(completion(model))));
        return;
      }
      const body = { id: 'chatcmpl-1', object: 'chat.completion', created: 1767225600, model, choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
});
afterAll(async () => {
  await new Promise<void>((r) => server.close(() => r()));
});

function completion(model: string) {
  return { id: 'chatcmpl-1', object: 'chat.completion', created: 1767225600, model, choices: [{ index: 0, message: { role: 'assistant', content: 'hello' }, finish_reason: 'stop' }], usage: { prompt_tokens: 3, completion_tokens: 1, total_tokens: 4 } };
}

function setup(models: GatewayConfigInput['models']): { gateway: Gateway; events: ResponseEvent[] } {
  const events: ResponseEvent[] = [];
  const gateway = createShippedGateway(
    {
      providers: [{ id: 'p', type: 'openai-compatible', baseURL, apiKey: 'sk-upstream-fallback-limits-0001' }],
      models,
      keys: [{ id: 'k', key: KEY, models: ['*'] }],
      retry: { attempts: 1, initialDelayMs: 1, maxDelayMs: 5 },
    },
    { hooks: { onResponse: (e) => void events.push(e) } },
  );
  return { gateway, events };
}

const chat = (model: string): Request =>
  new Request('http://gw.test/v1/chat/completions', {
    method: 'POST',
    headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }),
  });

async function eventOf(events: ResponseEvent[], res: Response): Promise<ResponseEvent> {
  const traceId = res.headers.get('x-trace-id');
  await expect.poll(() => events.find((e) => e.traceId === traceId)).toBeDefined();
  return events.find((e) => e.traceId === traceId) as ResponseEvent;
}

describe("a fallback model's own limits", () => {
  it('requests per minute: the second request is refused with 429, not served by the fallback', async () => {
    seen.length = 0;
    const { gateway, events } = setup([
      { id: 'flaky', provider: 'p', upstreamModel: 'gpt-down', fallbacks: ['slow'] },
      { id: 'slow', provider: 'p', upstreamModel: 'gpt-slow', limits: { requestsPerMinute: 1 } },
    ]);
    const first = await gateway.handle(chat('flaky'));
    expect(first.status).toBe(200);
    expect(first.headers.get('x-modelgate-model')).toBe('slow');
    await first.arrayBuffer();

    const second = await gateway.handle(chat('flaky'));
    expect(second.status).toBe(429);
    expect(Number(second.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    const body = (await second.json()) as { error: { message: string; code: string } };
    expect(body.error).toMatchObject({ code: 'rate_limit_exceeded', message: expect.stringContaining("the model 'slow'") });
    const ev = await eventOf(events, second);
    expect(ev.attempts?.map((a) => `${a.model}:${a.status}`)).toEqual(['flaky:500', 'slow:429']);
    expect(ev.attempts?.[1]?.reason).toContain('1 requests per minute');
    // The fallback's upstream was called once in all: for the first request only.
    expect(seen).toEqual(['gpt-down', 'gpt-slow', 'gpt-down']);
    await gateway.close();
  });

  it('a fallback without room is skipped for the next one in line', async () => {
    seen.length = 0;
    const { gateway, events } = setup([
      { id: 'flaky', provider: 'p', upstreamModel: 'gpt-down', fallbacks: ['slow', 'spare'] },
      { id: 'slow', provider: 'p', upstreamModel: 'gpt-slow', limits: { requestsPerMinute: 1 } },
      { id: 'spare', provider: 'p', upstreamModel: 'gpt-spare' },
    ]);
    expect((await gateway.handle(chat('slow'))).status).toBe(200); // uses slow's one request
    const res = await gateway.handle(chat('flaky'));
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-model')).toBe('spare');
    // Upstream calls made: flaky and spare; slow was skipped without a call.
    expect(res.headers.get('x-modelgate-attempts')).toBe('2');
    const ev = await eventOf(events, res);
    expect(ev.attempts?.map((a) => `${a.model}:${a.status}`)).toEqual(['flaky:500', 'slow:429', 'spare:200']);
    expect(ev.attempts?.map((a) => a.skipped ?? false)).toEqual([false, true, false]);
    expect(seen).toEqual(['gpt-slow', 'gpt-down', 'gpt-spare']);
    await gateway.close();
  });

  it('concurrency: a fallback busy with another request is refused (429) until that request ends', async () => {
    seen.length = 0;
    let open = (): void => undefined;
    hold = new Promise<void>((r) => (open = r));
    const { gateway } = setup([
      { id: 'flaky', provider: 'p', upstreamModel: 'gpt-down', fallbacks: ['one-at-a-time'] },
      { id: 'one-at-a-time', provider: 'p', upstreamModel: 'gpt-hold', limits: { concurrentRequests: 1 } },
    ]);
    const first = gateway.handle(chat('flaky'));
    // The first request holds the fallback's slot while its upstream has not answered.
    await expect.poll(() => seen.includes('gpt-hold')).toBe(true);
    const second = await gateway.handle(chat('flaky'));
    expect(second.status).toBe(429);
    expect(second.headers.get('retry-after')).toBe('1');
    expect(((await second.json()) as { error: { message: string } }).error.message).toContain("concurrent requests reached for the model 'one-at-a-time'");
    open();
    expect((await first).status).toBe(200);
    const third = await gateway.handle(chat('flaky'));
    expect(third.status).toBe(200);
    expect(seen.filter((m) => m === 'gpt-hold')).toHaveLength(2);
    await gateway.close();
  });
});
