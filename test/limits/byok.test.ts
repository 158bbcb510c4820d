/**
 * Bring your own key: a key's `providerKeys` (or an authenticate() principal's) replace the
 * provider's apiKey for that caller — chat in every protocol (pass-through and translated),
 * Responses, images, video submit, polls (also by the background poller) and downloads — checked
 * by mocks that accept only the caller's key. The key never shows in answers, hooks, errors or the
 * task store; an upstream refusing it stays a 401 that says so; its costs are not charged to the
 * key's budget.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryTaskStore, type Gateway, type GatewayConfigInput, type GatewayOptions, type Principal, type ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const OWN = {
  chat: 'own-chat-key-aaaa-0123456789',
  anthropic: 'own-anthropic-key-bbbb-0123456789',
  media: 'own-media-key-cccc-0123456789',
  responses: 'own-responses-key-dddd-0123456789',
};
const GATEWAY_CHAT = 'gateway-chat-key-0123456789';
const WRONG_OWN = 'own-but-wrong-key-eeee-0123456789';
const HOST_WRONG_OWN = 'host-own-wrong-key-ffff-0123456789';
const KEY_OWN = 'mg-byok-own-key-000001';
const KEY_PLAIN = 'mg-byok-plain-key-00002';
const KEY_WRONG = 'mg-byok-wrong-key-00003';
const HOST_TOKEN = 'host-session-token-0001';
const HOST_BAD_TOKEN = 'host-session-token-0002';

let chat: MockGatedOpenAI;
let anthropic: MockAnthropic;
let media: MockMediaOpenAI;
let responses: MockOpenAIResponses;
const gateways: Gateway[] = [];

beforeAll(async () => {
  // Each mock accepts only the caller's own key (the chat mock also the gateway's, to compare).
  chat = await startMockGatedOpenAI({ apiKeys: [GATEWAY_CHAT, OWN.chat], usage: { prompt_tokens: 10, completion_tokens: 4 } });
  anthropic = await startMockAnthropic({ apiKey: OWN.anthropic });
  media = await startMockMediaOpenAI({ apiKey: OWN.media });
  responses = await startMockOpenAIResponses({ apiKey: OWN.responses });
});
afterAll(async () => {
  await Promise.all(gateways.map((g) => g.close()));
  await Promise.all([chat?.close(), anthropic?.close(), media?.close(), responses?.close()]);
});

function config(): GatewayConfigInput {
  return {
    providers: [
      { id: 'chat', type: 'openai', baseURL: chat.baseURL, apiKey: GATEWAY_CHAT },
      { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: 'gateway-anthropic-key-0123456789' },
      { id: 'media', type: 'openai', baseURL: media.baseURL, apiKey: 'gateway-media-key-0123456789' },
      { id: 'responses', type: 'openai', baseURL: responses.baseURL, apiKey: 'gateway-responses-key-0123456789' },
    ],
    models: [
      { id: 'gpt', provider: 'chat', upstreamModel: 'gpt-4o-mini', pricing: { inputPerMTok: 100_000, outputPerMTok: 100_000 } },
      { id: 'claude', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
      { id: 'gpt-5', provider: 'responses' },
      { id: 'img', provider: 'media', upstreamModel: 'gpt-image-1', capabilities: ['image'] },
      { id: 'sora', provider: 'media', upstreamModel: 'sora-2', capabilities: ['video'] },
    ],
    keys: [
      { id: 'own', key: KEY_OWN, providerKeys: OWN, limits: { budget: { usd: 1, period: 'day' } } },
      { id: 'plain', key: KEY_PLAIN, limits: { budget: { usd: 1, period: 'day' } } },
      { id: 'wrong', key: KEY_WRONG, providerKeys: { chat: WRONG_OWN } },
    ],
  };
}

const authenticate: GatewayOptions['authenticate'] = (token): Principal | undefined => {
  if (token === HOST_TOKEN) return { id: 'host-user', providerKeys: { media: OWN.media } };
  if (token === HOST_BAD_TOKEN) return { id: 'host-bad', providerKeys: { chat: HOST_WRONG_OWN } };
  return undefined;
};

function start(options: GatewayOptions = {}): { gateway: Gateway; events: ResponseEvent[] } {
  const events: ResponseEvent[] = [];
  const gateway = createShippedGateway(config(), { authenticate, hooks: { onResponse: (e) => void events.push(e), onRequest: (e) => void events.push(e as ResponseEvent) }, ...options });
  gateways.push(gateway);
  return { gateway, events };
}

function req(method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Request {
  return new Request(`http://gw${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
}

const chatBody = (model = 'gpt', extra: Record<string, unknown> = {}) => ({ model, messages: [{ role: 'user', content: 'hi' }], ...extra });
const ANTHROPIC = { 'anthropic-version': '2023-06-01' };

function expectNoOwnKey(text: string): void {
  for (const k of [...Object.values(OWN), WRONG_OWN, HOST_WRONG_OWN]) expect(text).not.toContain(k);
}

describe('chat with the caller\'s own key', () => {
  it('pass-through and translated, every protocol, sync and streamed', async () => {
    const { gateway, events } = start();
    chat.keys.length = 0;
    const own = await gateway.handle(req('POST', '/v1/chat/completions', KEY_OWN, chatBody()));
    expect(own.status).toBe(200);
    const plain = await gateway.handle(req('POST', '/v1/chat/completions', KEY_PLAIN, chatBody()));
    expect(plain.status).toBe(200);
    const streamed = await gateway.handle(req('POST', '/v1/messages', KEY_OWN, { model: 'gpt', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC));
    expect(await streamed.text()).toContain('message_stop');
    expect(chat.keys).toEqual([OWN.chat, GATEWAY_CHAT, OWN.chat]);

    const messages = await gateway.handle(req('POST', '/v1/messages', KEY_OWN, { model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC));
    expect(messages.status).toBe(200);
    const translated = await gateway.handle(req('POST', '/v1/chat/completions', KEY_OWN, chatBody('claude', { stream: true })));
    expect(await translated.text()).toContain('[DONE]');
    const gemini = await gateway.handle(req('POST', '/v1beta/models/claude:generateContent', KEY_OWN, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }));
    expect(gemini.status).toBe(200);
    expect(anthropic.requests.slice(-3).map((r) => r.headers['x-api-key'])).toEqual([OWN.anthropic, OWN.anthropic, OWN.anthropic]);

    const ownEvents = events.filter((e) => e.keyId === 'own');
    expect(ownEvents.length).toBeGreaterThan(0);
    expect(ownEvents.every((e) => e.providerCredential === 'caller')).toBe(true);
    expect(events.filter((e) => e.keyId === 'plain').every((e) => e.providerCredential === undefined)).toBe(true);
    expectNoOwnKey(JSON.stringify(events));
  });

  it('Responses pass-through (sync and streamed) uses the own key', async () => {
    const { gateway } = start();
    const sync = await gateway.handle(req('POST', '/v1/responses', KEY_OWN, { model: 'gpt-5', input: 'hi' }));
    expect(sync.status).toBe(200);
    const stream = await gateway.handle(req('POST', '/v1/responses', KEY_OWN, { model: 'gpt-5', input: 'hi', stream: true }));
    expect(await stream.text()).toContain('response.completed');
    expect(responses.requests.slice(-2).map((r) => r.headers.authorization)).toEqual([`Bearer ${OWN.responses}`, `Bearer ${OWN.responses}`]);
  });
});

describe('images and videos with the caller\'s own key', () => {
  it('image generation', async () => {
    const { gateway } = start();
    const res = await gateway.handle(req('POST', '/v1/images/generations', KEY_OWN, { model: 'img', prompt: 'a fox' }));
    expect(res.status).toBe(200);
    expect(media.requests.at(-1)?.headers.authorization).toBe(`Bearer ${OWN.media}`);
  });

  it('video submit, the background poller and the download use the own key; the task store never holds it', async () => {
    const taskStore = new MemoryTaskStore();
    const { gateway } = start({ taskStore, video: { pollerTickMs: 10, pollIntervalMs: 10, maxPollIntervalMs: 20, staleAfterMs: 60_000 } });
    const before = media.requests.length;
    const sub = await gateway.handle(req('POST', '/v1/video/generations', KEY_OWN, { model: 'sora', prompt: 'a cat' }));
    expect(sub.status).toBe(202);
    const { task_id: id } = (await sub.json()) as { task_id: string };
    // Advanced by the background poller alone (reads are not stale for a minute).
    await expect.poll(async () => ((await (await gateway.handle(req('GET', `/v1/video/generations/${id}`, KEY_OWN))).json()) as { status: string }).status, { timeout: 10_000 }).toBe('succeeded');
    const content = await gateway.handle(req('GET', `/v1/video/generations/${id}/content`, KEY_OWN));
    expect(content.status).toBe(200);
    expect(Buffer.from(await content.arrayBuffer()).equals(media.videoBytes(media.videoIds.at(-1) as string))).toBe(true);
    const sent = media.requests.slice(before);
    expect(sent.filter((r) => r.method === 'GET' && r.path.endsWith(media.videoIds.at(-1) as string)).length).toBeGreaterThanOrEqual(3);
    expect(sent.every((r) => r.headers.authorization === `Bearer ${OWN.media}`)).toBe(true);
    const record = await taskStore.get(id);
    expect(record?.data.ownCredential).toBe('config-key');
    expectNoOwnKey(JSON.stringify(record));
  });

  it("an authenticate() principal's task waits for its owner: the poller parks it, the owner's read polls with their key", async () => {
    const taskStore = new MemoryTaskStore();
    const { gateway } = start({ taskStore, video: { pollerTickMs: 10, pollIntervalMs: 10, staleAfterMs: 0 } });
    const sub = await gateway.handle(req('POST', '/v1/video/generations', HOST_TOKEN, { model: 'sora', prompt: 'a dog' }));
    expect(sub.status).toBe(202);
    const { task_id: id } = (await sub.json()) as { task_id: string };
    const videoId = media.videoIds.at(-1) as string;
    expect((await taskStore.get(id))?.data.ownCredential).toBe('principal');
    // The background poller cannot know the principal's key: it takes the task off its schedule.
    await expect.poll(async () => (await taskStore.get(id))?.dueAt).toBeNull();
    expect(media.requests.filter((r) => r.method === 'GET' && r.path.endsWith(videoId))).toHaveLength(0);
    // Each read by the owner polls (staleAfterMs 0) with the owner's key.
    let status = '';
    for (let i = 0; i < 5 && status !== 'succeeded'; i++) {
      status = ((await (await gateway.handle(req('GET', `/v1/video/generations/${id}`, HOST_TOKEN))).json()) as { status: string }).status;
    }
    expect(status).toBe('succeeded');
    const polls = media.requests.filter((r) => r.path.includes(videoId));
    expect(polls.length).toBeGreaterThanOrEqual(3);
    expect(polls.every((r) => r.headers.authorization === `Bearer ${OWN.media}`)).toBe(true);
    expectNoOwnKey(JSON.stringify(await taskStore.get(id)));
  });
});

describe('an own key the upstream refuses', () => {
  it('stays a 401 that names the caller\'s own credential, scrubbed from answers and hooks (config key and host principal)', async () => {
    const { gateway, events } = start();
    for (const [key, secret] of [
      [KEY_WRONG, WRONG_OWN],
      [HOST_BAD_TOKEN, HOST_WRONG_OWN],
    ] as const) {
      const res = await gateway.handle(req('POST', '/v1/chat/completions', key, chatBody()));
      expect(res.status).toBe(401);
      const text = await res.text();
      expect(text).toContain("refused your own credential");
      expect(chat.keys.at(-1)).toBe(secret);
      expectNoOwnKey(text);
      const anth = await gateway.handle(req('POST', '/v1/messages', key, { model: 'gpt', max_tokens: 20, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC));
      expect(anth.status).toBe(401);
      const anthText = await anth.text();
      expect(JSON.parse(anthText).error.type).toBe('authentication_error');
      expectNoOwnKey(anthText);
    }
    const errors = events.filter((e) => e.error);
    expect(errors).toHaveLength(4);
    expectNoOwnKey(JSON.stringify(events));
  });
});

describe('budgets', () => {
  it('costs on the caller\'s own key are reported but not charged; the gateway\'s key is', async () => {
    const { gateway, events } = start({ now: () => Date.UTC(2025, 0, 10, 12) });
    // 14 tokens at 100 000 USD per million: 1.4 USD a call, over the 1 USD budget each time.
    for (let i = 0; i < 3; i++) expect((await gateway.handle(req('POST', '/v1/chat/completions', KEY_OWN, chatBody()))).status).toBe(200);
    expect(events.filter((e) => e.keyId === 'own' && 'status' in e).map((e) => e.costUsd)).toEqual([1.4, 1.4, 1.4]);
    expect((await gateway.handle(req('POST', '/v1/chat/completions', KEY_PLAIN, chatBody()))).status).toBe(200);
    const spent = await gateway.handle(req('POST', '/v1/chat/completions', KEY_PLAIN, chatBody()));
    expect(spent.status).toBe(429);
    expect(((await spent.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
  });
});
