/**
 * Instances sharing a task store may run different configs for a while (a rolling deploy that adds
 * a provider). An instance that does not know a task's provider leaves the task to one that does,
 * and only fails it once no instance polled it for the submit grace period (10 minutes).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, MemoryTaskStore, type Gateway, type GatewayConfigInput } from '../../../src/index.js';

const KEY = 'mg-video-mixed-key-0001';
const clock = { now: 1_767_225_600_000 };
const store = new MemoryTaskStore(() => clock.now);

function config(withMock: boolean): GatewayConfigInput {
  return {
    providers: withMock ? [{ id: 'mock', type: 'mock' }] : [{ id: 'other', type: 'openai-compatible', baseURL: 'http://127.0.0.1:9/v1' }],
    models: withMock ? [{ id: 'mock-video', provider: 'mock', capabilities: ['video'] }] : [{ id: 'chat', provider: 'other' }],
    keys: [{ id: 'team', key: KEY, models: ['*'] }],
  };
}

const video = { pollerTickMs: false as const, staleAfterMs: 1000, pollIntervalMs: 1000 };
let withProvider: Gateway;
let withoutProvider: Gateway;

beforeAll(() => {
  withProvider = createGateway(config(true), { now: () => clock.now, taskStore: store, video });
  withoutProvider = createGateway(config(false), { now: () => clock.now, taskStore: store, video });
});

afterAll(async () => {
  await withProvider.close();
  await withoutProvider.close();
});

async function call(gateway: Gateway, method: string, path: string, body?: unknown): Promise<{ status: number; json: Record<string, unknown> }> {
  const res = await gateway.handle(
    new Request(`http://localhost${path}`, {
      method,
      headers: { authorization: `Bearer ${KEY}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    }),
  );
  return { status: res.status, json: (await res.json()) as Record<string, unknown> };
}

describe('a video task read by an instance that lacks its provider', () => {
  it('is left to the instances that know the provider, and failed only after the grace period', async () => {
    const sub = await call(withProvider, 'POST', '/v1/video/generations', { model: 'mock-video', prompt: 'a rolling deploy' });
    expect(sub.status).toBe(202);
    const id = String(sub.json.task_id);

    clock.now += 1500;
    const seenByOther = await call(withoutProvider, 'GET', `/v1/video/generations/${id}`);
    expect(seenByOther.status).toBe(200);
    expect(seenByOther.json.status).not.toBe('failed');
    expect(seenByOther.json.error ?? null).toBeNull();

    // The instance that knows the provider still advances it.
    clock.now += 1500;
    const advanced = await call(withProvider, 'GET', `/v1/video/generations/${id}`);
    expect(advanced.json.status).toBe('succeeded');
  });

  it('fails it once no instance that knows the provider polled it for the grace period', async () => {
    const sub = await call(withProvider, 'POST', '/v1/video/generations', { model: 'mock-video', prompt: 'an orphan' });
    const id = String(sub.json.task_id);
    clock.now += 1500;
    expect((await call(withoutProvider, 'GET', `/v1/video/generations/${id}`)).json.status).not.toBe('failed');
    clock.now += 11 * 60 * 1000;
    const orphaned = await call(withoutProvider, 'GET', `/v1/video/generations/${id}`);
    expect(orphaned.json).toMatchObject({ status: 'failed', error: { code: 'provider_unavailable' } });
  });
});
