/**
 * Interactions on two gateway instances sharing one Redis (the conversation store the Responses API
 * uses): an interaction stored on one continues on the other (another vendor, then Gemini with its
 * own stored interaction), a background run on one is read and followed as a stream on the other,
 * and a cancel on the other stops its upstream call. Runs when REDIS_URL is set — and then fails if
 * Redis cannot be reached; skipped with a notice otherwise.
 */
import type { GoogleGenAI, Interactions } from '@google/genai';
import type { Redis } from 'ioredis';
import { connectRedis, deletePrefix, REDIS_URL, uniquePrefix, warnWithoutRedis } from '../helpers/redis.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisConversationStore } from '../../src/index.js';
import {
  closeInteractionMocks,
  collect,
  eventually,
  startInteractionMocks,
  startInteractionsGateway,
  type InteractionsGateway,
  type InteractionsMocks,
} from '../helpers/interactions-gateway.js';

warnWithoutRedis('interactions-redis.test', 'the Redis interaction tests');

describe.skipIf(!REDIS_URL)('Interactions on two instances sharing Redis', () => {
  const prefix = uniquePrefix('ix-');
  let redisA: Redis;
  let redisB: Redis;
  let mocks: InteractionsMocks;
  let a: InteractionsGateway;
  let b: InteractionsGateway;
  let clientA: GoogleGenAI;
  let clientB: GoogleGenAI;

  beforeAll(async () => {
    [redisA, redisB] = (await connectRedis(2)) as [Redis, Redis];
    mocks = await startInteractionMocks();
    const conversations = { cancelCheckMs: 50, pollIntervalMs: 20 };
    a = await startInteractionsGateway(mocks, { conversationStore: new RedisConversationStore(redisA, { prefix }), conversations });
    b = await startInteractionsGateway(mocks, { conversationStore: new RedisConversationStore(redisB, { prefix }), conversations });
    clientA = a.client();
    clientB = b.client();
  });

  afterAll(async () => {
    await a?.close();
    await b?.close();
    if (mocks) await closeInteractionMocks(mocks);
    await deletePrefix(redisA, prefix);
    redisA?.disconnect();
    redisB?.disconnect();
  });

  it('an interaction stored on one instance continues on the other', async () => {
    const t1 = await clientA.interactions.create({ model: 'gemini', input: 'my name is Ada' });
    expect((await clientB.interactions.get(t1.id)).output_text).toBe(t1.output_text);

    const t2 = await clientB.interactions.create({ model: 'claude', input: 'who am I?', previous_interaction_id: t1.id });
    expect(t2.output_text).toBe('[anthropic] you said: who am I?');
    expect((mocks.anthropic.requests.at(-1)?.body as { messages: unknown[] }).messages).toHaveLength(3);

    const t3 = await clientA.interactions.create({ model: 'gemini', input: 'and now?', previous_interaction_id: t2.id });
    expect(t3.output_text).toBe('[gemini-interactions] turn 3, you said: and now?');
    // Gemini answered t3 (asked on A): B continues Gemini's own stored interaction.
    const t4 = await clientB.interactions.create({ model: 'gemini', input: 'last', previous_interaction_id: t3.id });
    expect(t4.output_text).toBe('[gemini-interactions] turn 4, you said: last');
    const sent = mocks.gemini.requests.filter((q) => q.path === '/v1beta/interactions').at(-1)?.body as { previous_interaction_id?: string; input: unknown };
    expect(sent.previous_interaction_id).toMatch(/^v1_mock/);
    expect(sent.input).toBe('last');
  });

  it('a background run on one instance is read and followed as a stream on the other', async () => {
    const gate = mocks.openai.pauseStreamNext();
    const started = await clientA.interactions.create({ model: 'gpt', input: 'shared background', background: true });
    await eventually(() => clientB.interactions.get(started.id), (r) => r.status === 'in_progress');
    const stream = await clientB.interactions.get(started.id, { stream: true });
    const events: Interactions.InteractionSSEEvent[] = [];
    for await (const ev of stream) {
      events.push(ev);
      if (events.length === 1) gate.release();
    }
    expect(events[0]!.event_type).toBe('interaction.created');
    expect((events.at(-1) as Interactions.InteractionCompletedEvent).interaction.status).toBe('completed');
    expect((await clientB.interactions.get(started.id)).output_text).toBe('[openai] you said: shared background');
    const resumed = await collect(await clientA.interactions.get(started.id, { stream: true, last_event_id: events[0]!.event_id as string }));
    expect(resumed).toEqual(events.slice(1));
  });

  it('a cancel on the other instance stops the upstream call of the running one', async () => {
    mocks.anthropic.hangNext(60_000);
    const disconnected = mocks.anthropic.nextDisconnect();
    const started = await clientA.interactions.create({ model: 'claude', input: 'cancel me elsewhere', background: true });
    await eventually(() => clientB.interactions.get(started.id), (r) => r.status === 'in_progress');
    const cancelled = await clientB.interactions.cancel(started.id);
    expect(cancelled.status).toBe('cancelled');
    await disconnected;
    expect((await clientA.interactions.get(started.id)).status).toBe('cancelled');
  });
});
