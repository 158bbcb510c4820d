/**
 * Redis refusing connections (REDIS_URL pointing at a closed port, wired as `npm start` wires it):
 * no store call holds a request (each has `storeTimeoutMs`). Storing a finished response that the
 * client asked to store (`store` defaults to true) does not fail silently: the answer is delivered
 * with `x-modelgate-warnings: store: not stored (...)` and the hook's warnings say so. Reads
 * (GET, previous_response_id, previous_interaction_id, video task polls) answer 503 in the
 * caller's shape. Needs no Redis: nothing listens on the port.
 */
import { createServer, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { redisSharedState, type SharedState } from '../../node/redis.js';
import { createGateway, type Gateway, type ResponseEvent } from '../../src/index.js';

const KEY = 'mg-store-unreachable-0001';
let state: SharedState;
let gateway: Gateway;
const events: ResponseEvent[] = [];

beforeAll(async () => {
  // A port that was just open and is closed now: connections are refused.
  const probe = createServer();
  await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
  const port = (probe.address() as AddressInfo).port;
  await new Promise<void>((r) => probe.close(() => r()));
  state = await redisSharedState(`redis://127.0.0.1:${port}`);
  gateway = createGateway(
    {
      providers: [{ id: 'mock', type: 'mock' }],
      models: [
        { id: 'mock-chat', provider: 'mock' },
        { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
      ],
      keys: [{ id: 'k', key: KEY, models: ['*'] }],
    },
    {
      taskStore: state.options.taskStore,
      conversationStore: state.options.conversationStore,
      storeTimeoutMs: 200,
      logger: { warn: () => undefined },
      hooks: { onResponse: (e) => void events.push(e) },
    },
  );
});
afterAll(async () => {
  await gateway?.close();
  await state?.close();
});

const post = (path: string, body: unknown, auth: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<Response> =>
  gateway.handle(new Request(`http://gw.test${path}`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify(body) }));
const get = (path: string, auth: Record<string, string> = { authorization: `Bearer ${KEY}` }): Promise<Response> =>
  gateway.handle(new Request(`http://gw.test${path}`, { headers: auth }));

describe('the response store unreachable', () => {
  it('a response the client asked to store is delivered with a warning that it was not stored', async () => {
    const res = await post('/v1/responses', { model: 'mock-chat', input: 'hello' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-warnings')).toBe('store: not stored (the response store is unavailable)');
    const body = (await res.json()) as { status: string; id: string };
    expect(body.status).toBe('completed');
    const traceId = res.headers.get('x-trace-id');
    await expect.poll(() => events.find((e) => e.traceId === traceId)).toBeDefined();
    expect(events.find((e) => e.traceId === traceId)?.warnings).toEqual([expect.objectContaining({ setting: 'store', action: 'not stored (the response store is unavailable)' })]);
  });

  it('store: false never touches the store: no warning', async () => {
    const res = await post('/v1/responses', { model: 'mock-chat', input: 'hello', store: false });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-warnings')).toBeNull();
  });

  it('a streamed response completes; the hook says it was not stored', async () => {
    const res = await post('/v1/responses', { model: 'mock-chat', input: 'hello', stream: true });
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('event: response.completed');
    const traceId = res.headers.get('x-trace-id');
    await expect.poll(() => events.find((e) => e.traceId === traceId)?.warnings).toEqual([expect.objectContaining({ setting: 'store' })]);
  });

  it('GET and previous_response_id answer 503 in the OpenAI shape', async () => {
    const read = await get('/v1/responses/resp_abc');
    expect(read.status).toBe(503);
    expect(read.headers.get('retry-after')).toBe('1');
    expect(await read.json()).toMatchObject({ error: { message: expect.stringContaining('response store is unavailable'), type: 'server_error' } });
    const next = await post('/v1/responses', { model: 'mock-chat', input: 'more', previous_response_id: 'resp_abc' });
    expect(next.status).toBe(503);
    expect(await next.json()).toMatchObject({ error: { message: expect.stringContaining('response store is unavailable') } });
  });

  it('Interactions: stored with a warning, GET is a 503 in the Gemini shape', async () => {
    const auth = { 'x-goog-api-key': KEY };
    const res = await post('/v1beta/interactions', { model: 'mock-chat', input: 'hello' }, auth);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-warnings')).toBe('store: not stored (the response store is unavailable)');
    const read = await get('/v1beta/interactions/v1_abc', auth);
    expect(read.status).toBe(503);
    expect(await read.json()).toMatchObject({ error: { code: 503, status: 'UNAVAILABLE', message: expect.stringContaining('response store is unavailable') } });
  });
});

describe('the task store unreachable', () => {
  it('a video task poll answers 503', async () => {
    const res = await get('/v1/video/generations/video_abc');
    expect(res.status).toBe(503);
    expect(await res.json()).toMatchObject({ error: { message: expect.stringContaining('task store is unavailable') } });
  });
});
