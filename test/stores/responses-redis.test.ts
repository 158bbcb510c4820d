/**
 * Stored responses in Redis: the store's atomic operations, and two gateway instances on one Redis
 * (a conversation started on one continues on the other, on another vendor and on the same OpenAI
 * upstream; a background run on one is read, streamed and cancelled from the other). Runs when
 * REDIS_URL is set — and then fails if Redis cannot be reached; skipped with a notice otherwise.
 */
import type { Redis } from 'ioredis';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix, warnWithoutRedis } from '../helpers/redis.js';
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConversationStore, type ConversationRecord } from '../../src/index.js';
import { closeMocks, eventually, startGateway, startMocks, type ResponsesMocks } from '../helpers/responses-gateway.js';

warnWithoutRedis('responses-redis.test', 'the Redis conversation store tests');

describe.skipIf(!REDIS_URL)('Redis conversation store', () => {
  const prefix = uniquePrefix();
  let redisA: Redis;
  let redisB: Redis;
  let mocks: ResponsesMocks;
  let a: Awaited<ReturnType<typeof startGateway>>;
  let b: Awaited<ReturnType<typeof startGateway>>;
  let clientA: OpenAI;
  let clientB: OpenAI;

  beforeAll(async () => {
    [redisA, redisB] = (await connectRedis(2)) as [Redis, Redis];
    mocks = await startMocks();
    const conversations = { cancelCheckMs: 50, pollIntervalMs: 20 };
    a = await startGateway(mocks, { conversationStore: new RedisConversationStore(redisA, { prefix }), conversations });
    b = await startGateway(mocks, { conversationStore: new RedisConversationStore(redisB, { prefix }), conversations });
    clientA = a.client();
    clientB = b.client();
  });

  afterAll(async () => {
    await a?.server.close();
    await b?.server.close();
    await a?.gateway.close();
    await b?.gateway.close();
    if (mocks) await closeMocks(mocks);
    await deletePrefix(redisA, prefix);
    redisA?.disconnect();
    redisB?.disconnect();
  });

  function record(id: string, now: number): ConversationRecord {
    return {
      id,
      api: 'test',
      ownerId: 'owner-1',
      version: 0,
      createdAt: now,
      expiresAt: now + 60_000,
      status: 'queued',
      background: true,
      object: { id, status: 'queued' },
      inputItems: [{ id: 'msg_1', type: 'message' }],
      turn: { system: [], messages: [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }] },
    };
  }

  it('creates, reads, compare-and-sets, appends events for as long as the record lives, and deletes', async () => {
    const storeA = new RedisConversationStore(redisA, { prefix: `${prefix}unit:` });
    const storeB = new RedisConversationStore(redisB, { prefix: `${prefix}unit:` });
    const now = Date.now();
    const created = await storeA.create(record('r1', now));
    expect(created.version).toBe(1);
    await expect(storeA.create(record('r1', now))).rejects.toThrow(/already exists/);
    const read = await storeB.get('r1');
    expect(read).toEqual(created);
    const next = await storeB.update({ ...(read as ConversationRecord), status: 'in_progress' }, 1);
    expect(next?.version).toBe(2);
    expect(await storeA.update({ ...(read as ConversationRecord), status: 'failed' }, 1)).toBeUndefined();
    await storeA.appendEvents('r1', [{ seq: 0, type: 'a', data: '{}' }, { seq: 1, type: 'b', data: '{}' }]);
    await storeB.appendEvents('r1', [{ seq: 2, type: 'c', data: '{}' }]);
    expect((await storeB.events('r1', 1)).map((e) => e.type)).toEqual(['b', 'c']);
    const ttl = await redisA.pttl(`${prefix}unit:conv-events:r1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    // Events of a record that does not exist are not kept.
    await storeA.appendEvents('missing', [{ seq: 0, type: 'a', data: '{}' }]);
    expect(await storeA.events('missing', 0)).toEqual([]);
    expect(await storeB.delete('r1')).toBe(true);
    expect(await storeA.get('r1')).toBeUndefined();
    expect(await storeA.events('r1', 0)).toEqual([]);
    expect(await storeA.delete('r1')).toBe(false);
  });

  it("indexes a record's items per owner, with the record's lifetime", async () => {
    const storeA = new RedisConversationStore(redisA, { prefix: `${prefix}unit:` });
    const storeB = new RedisConversationStore(redisB, { prefix: `${prefix}unit:` });
    const now = Date.now();
    await storeA.create({ ...record('r2', now), itemIds: ['msg_1'] });
    expect((await storeB.findItem('owner-1', 'msg_1'))?.id).toBe('r2');
    expect(await storeB.findItem('owner-2', 'msg_1')).toBeUndefined();
    const ttl = await redisA.pttl(`${prefix}unit:conv-item:owner-1:msg_1`);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60_000);
    const read = (await storeB.get('r2')) as ConversationRecord;
    await storeB.update({ ...read, status: 'completed', itemIds: ['msg_1', 'fc_9'] }, read.version);
    expect((await storeA.findItem('owner-1', 'fc_9'))?.id).toBe('r2');
    await storeA.delete('r2');
    expect(await storeB.findItem('owner-1', 'fc_9')).toBeUndefined();
  });

  it('an item_reference made on one instance resolves what the other stored', async () => {
    const first = await clientA.responses.create({ model: 'claude', input: 'weather?', tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true }] });
    const call = first.output.find((o) => o.type === 'function_call') as OpenAI.Responses.ResponseFunctionToolCall;
    const second = await clientB.responses.create({
      model: 'gemini',
      input: [{ role: 'user', content: 'weather?' }, { type: 'item_reference', id: call.id as string }, { type: 'function_call_output', call_id: call.call_id, output: 'rain' }],
      tools: [{ type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true }],
    });
    expect(second.output_text).toBe('[gemini] tool results: rain');
  });

  it('a conversation started on one instance continues on the other (another vendor, then the same OpenAI upstream)', async () => {
    const t1 = await clientA.responses.create({ model: 'claude', input: 'my name is Ada' });
    expect((await clientB.responses.retrieve(t1.id)).output_text).toBe(t1.output_text);
    const t2 = await clientB.responses.create({ model: 'gemini', previous_response_id: t1.id, input: 'who am I?' });
    expect(t2.output_text).toBe('[gemini] you said: who am I?');
    expect(((mocks.gemini.requests.at(-1)?.body as { contents: unknown[] }).contents)).toHaveLength(3);
    const items = await clientA.responses.inputItems.list(t2.id);
    expect(items.data.map((i) => (i.type === 'message' ? i.content : null))).toEqual([[{ type: 'input_text', text: 'who am I?' }]]);

    const o1 = await clientA.responses.create({ model: 'gpt-4.1', input: 'remember 42' });
    await clientB.responses.create({ model: 'gpt-4.1', previous_response_id: o1.id, input: 'what number?' });
    const sent = mocks.responses.requests.at(-1)?.body as { previous_response_id?: string; input: unknown };
    expect(sent.previous_response_id).toMatch(/^resp_/);
    expect(sent.previous_response_id).not.toBe(o1.id);
    expect(sent.input).toBe('what number?');
  });

  it('a background run on one instance is read and streamed on the other', async () => {
    const queued = await clientA.responses.create({ model: 'claude', input: 'shared background', background: true });
    const done = await eventually(() => clientB.responses.retrieve(queued.id), (r) => r.status === 'completed');
    expect(done.output_text).toBe('[anthropic] you said: shared background');
    const replay = clientB.responses.stream({ response_id: queued.id });
    const types: string[] = [];
    for await (const ev of replay) types.push(ev.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
  });

  it('a cancel on the other instance stops the upstream call of the running one', async () => {
    mocks.anthropic.hangNext(60_000);
    const disconnected = mocks.anthropic.nextDisconnect();
    const queued = await clientA.responses.create({ model: 'claude', input: 'cancel me elsewhere', background: true });
    await eventually(() => clientB.responses.retrieve(queued.id), (r) => r.status === 'in_progress');
    const cancelled = await clientB.responses.cancel(queued.id);
    expect(cancelled.status).toBe('cancelled');
    await disconnected;
    expect((await clientA.responses.retrieve(queued.id)).status).toBe('cancelled');
  });
});
