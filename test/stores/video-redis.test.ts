/**
 * The Redis task store: its atomic operations, and two gateway instances sharing video tasks (a
 * task created on one is read, advanced, downloaded and deduplicated on the other). Runs when
 * REDIS_URL is set — and then fails if Redis cannot be reached; skipped with a notice otherwise.
 */
import type { Redis } from 'ioredis';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix, warnWithoutRedis } from '../helpers/redis.js';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import { RedisTaskStore, type Gateway, type GatewayConfigInput, type TaskRecord, type VideoTaskOptions } from '../../src/index.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY_A = 'mg-redis-video-a-0001';
const KEY_B = 'mg-redis-video-b-0002';

warnWithoutRedis('video-redis.test', 'the Redis task store tests');

describe.skipIf(!REDIS_URL)('Redis task store', () => {
  const prefix = uniquePrefix();
  let redisA: Redis;
  let redisB: Redis;
  let openai: MockMediaOpenAI;

  beforeAll(async () => {
    [redisA, redisB] = (await connectRedis(2)) as [Redis, Redis];
    openai = await startMockMediaOpenAI();
  });

  afterAll(async () => {
    await deletePrefix(redisA, prefix);
    redisA?.disconnect();
    redisB?.disconnect();
    await openai?.close();
  });

  function record(id: string, now: number, dueAt: number | null): TaskRecord {
    return { id, kind: 'test', ownerId: 'owner-1', version: 0, dueAt, expiresAt: now + 60_000, data: { n: 1 } };
  }

  it('creates, reads, deduplicates by idempotency key, compare-and-sets, and leases due tasks', async () => {
    const now = Date.now();
    const storeA = new RedisTaskStore(redisA, { prefix: `${prefix}unit:` });
    const storeB = new RedisTaskStore(redisB, { prefix: `${prefix}unit:` });

    const first = await storeA.create(record('t1', now, now - 1), 'idem-1');
    expect(first.created).toBe(true);
    expect(first.task.version).toBe(1);
    const dup = await storeB.create(record('t2', now, now - 1), 'idem-1');
    expect(dup.created).toBe(false);
    expect(dup.task.id).toBe('t1');
    expect(await storeB.get('t2')).toBeUndefined();
    expect((await storeB.get('t1'))?.data).toEqual({ n: 1 });

    const updated = await storeB.update({ ...first.task, data: { n: 2 } }, 1);
    expect(updated?.version).toBe(2);
    expect(await storeA.update({ ...first.task, data: { n: 3 } }, 1)).toBeUndefined();
    expect((await storeA.get('t1'))?.data).toEqual({ n: 2 });

    // Due now: exactly one of two instances gets it, and not again while leased.
    const [a, b] = await Promise.all([storeA.claimDue(now, 30_000, 10), storeB.claimDue(now, 30_000, 10)]);
    expect([...a, ...b]).toEqual(['t1']);
    expect(await storeA.claimDue(now + 1000, 30_000, 10)).toEqual([]);
    expect(await storeA.claimDue(now + 31_000, 30_000, 10)).toEqual(['t1']);
    // Nothing left to do: not claimable at all.
    const latest = (await storeA.get('t1')) as TaskRecord;
    await storeA.update({ ...latest, dueAt: null }, latest.version);
    expect(await storeB.claimDue(now + 120_000, 30_000, 10)).toEqual([]);

    await storeA.releaseIdempotencyKey('idem-1', 't1');
    expect((await storeB.create(record('t3', now, null), 'idem-1')).created).toBe(true);
  });

  describe('two gateway instances', () => {
    const clock = { now: 1_767_225_600_000 };
    let gwA: Gateway;
    let gwB: Gateway;
    let srvA: RunningServer;
    let srvB: RunningServer;

    function config(): GatewayConfigInput {
      return {
        providers: [{ id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey }],
        models: [{ id: 'sora-2', provider: 'openai' }],
        keys: [
          { id: 'team-a', key: KEY_A, models: ['*'] },
          { id: 'team-b', key: KEY_B, models: ['*'] },
        ],
      };
    }

    const video: VideoTaskOptions = { pollerTickMs: false, staleAfterMs: 1000, pollIntervalMs: 1000 };

    beforeAll(async () => {
      gwA = createShippedGateway(config(), { now: () => clock.now, taskStore: new RedisTaskStore(redisA, { prefix: `${prefix}gw:`, now: () => clock.now }), video });
      gwB = createShippedGateway(config(), { now: () => clock.now, taskStore: new RedisTaskStore(redisB, { prefix: `${prefix}gw:`, now: () => clock.now }), video });
      srvA = await serve(gwA, { port: 0 });
      srvB = await serve(gwB, { port: 0 });
    });

    afterAll(async () => {
      await srvA?.close();
      await srvB?.close();
      await gwA?.close();
      await gwB?.close();
    });

    async function call(srv: RunningServer, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(`${srv.url}${path}`, {
        method,
        headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    it('a task created on A is read, advanced and downloaded on B; a Request-Id repeated on B returns it', async () => {
      const body = { model: 'sora-2', prompt: 'Shared across instances', duration: 4 };
      const sub = await call(srvA, 'POST', '/v1/video/generations', KEY_A, body, { 'request-id': 'shared-1' });
      expect(sub.status).toBe(202);
      const id = String(sub.json.task_id);

      const again = await call(srvB, 'POST', '/v1/video/generations', KEY_A, body, { 'request-id': 'shared-1' });
      expect(again.status).toBe(202);
      expect(again.json.task_id).toBe(id);
      expect(openai.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos')).toHaveLength(1);

      expect((await call(srvB, 'GET', `/v1/video/generations/${id}`, KEY_A)).json.status).toBe('queued');
      expect((await call(srvB, 'GET', `/v1/video/generations/${id}`, KEY_B)).status).toBe(404);

      const statuses: unknown[] = [];
      for (const srv of [srvB, srvA, srvB]) {
        clock.now += 1500;
        statuses.push((await call(srv, 'GET', `/v1/video/generations/${id}`, KEY_A)).json.status);
      }
      expect(statuses).toEqual(['in_progress', 'in_progress', 'succeeded']);
      expect((await call(srvA, 'GET', `/v1/video/generations/${id}`, KEY_A)).json.progress).toBe(100);

      const content = await fetch(`${srvB.url}/v1/video/generations/${id}/content`, { headers: { authorization: `Bearer ${KEY_A}` } });
      expect(content.status).toBe(200);
      const upstreamId = openai.videoIds.at(-1) as string;
      expect(Buffer.from(await content.arrayBuffer()).equals(openai.videoBytes(upstreamId))).toBe(true);
    });

    it('the background poller of B advances a task created on A', async () => {
      const realA = createShippedGateway(config(), { taskStore: new RedisTaskStore(redisA, { prefix: `${prefix}bg:` }), video: { pollerTickMs: false } });
      const realB = createShippedGateway(config(), { taskStore: new RedisTaskStore(redisB, { prefix: `${prefix}bg:` }), video: { pollerTickMs: 10, pollIntervalMs: 10, maxPollIntervalMs: 20, staleAfterMs: 3_600_000 } });
      try {
        const res = await realA.handle(
          new Request('http://gw/v1/video/generations', {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model: 'sora-2', prompt: 'Advanced elsewhere' }),
          }),
        );
        expect(res.status).toBe(202);
        const id = String(((await res.json()) as { task_id: string }).task_id);
        const read = async () => ((await (await realA.handle(new Request(`http://gw/v1/video/generations/${id}`, { headers: { authorization: `Bearer ${KEY_A}` } }))).json()) as { status: string }).status;
        await vi.waitFor(async () => expect(await read()).toBe('succeeded'), { timeout: 10_000, interval: 25 });
      } finally {
        await realA.close();
        await realB.close();
      }
    });
  });
});
