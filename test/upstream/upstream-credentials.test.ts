/**
 * An upstream that refuses the gateway's own credential (a wrong vendor key in the config) is the
 * gateway's failure, not the caller's: a 502 naming the provider, never a 401/403 that reads as
 * "your key failed". On chat (each client protocol, pass-through and translated, sync and
 * streamed, count_tokens), images, and video submit/poll/download, against the strict mock vendors
 * configured with a wrong key (OpenAI and Anthropic answer 401, Gemini 400 API_KEY_INVALID, or 403
 * without a key). A credential the caller supplied (bring your own key) keeps its 401/403.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import { upstreamFailure } from '../../src/upstream/failure.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockMediaGemini, type MockMediaGemini } from '../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const KEY = 'mg-credentials-test-key-01';
const WRONG = 'wrong-vendor-key-in-config-0001';

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let mediaOpenAI: MockMediaOpenAI;
let mediaGemini: MockMediaGemini;
let gateway: Gateway;
const clock = { now: 1_767_225_600_000 };

function config(): GatewayConfigInput {
  return {
    providers: [
      { id: 'oa-bad', type: 'openai', baseURL: openai.baseURL, apiKey: WRONG },
      { id: 'an-bad', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: WRONG },
      { id: 'gm-bad', type: 'gemini', baseURL: gemini.baseURL, apiKey: WRONG },
      { id: 'gm-nokey', type: 'gemini', baseURL: gemini.baseURL },
      { id: 'media-oa-bad', type: 'openai', baseURL: mediaOpenAI.baseURL, apiKey: WRONG },
      { id: 'media-gm-bad', type: 'gemini', baseURL: mediaGemini.baseURL, apiKey: WRONG },
      { id: 'media-oa', type: 'openai', baseURL: mediaOpenAI.baseURL, apiKey: mediaOpenAI.apiKey },
    ],
    models: [
      { id: 'gpt-bad', provider: 'oa-bad', upstreamModel: 'gpt-4o' },
      { id: 'claude-bad', provider: 'an-bad', upstreamModel: 'claude-sonnet-4-5-20250929' },
      { id: 'gemini-bad', provider: 'gm-bad', upstreamModel: 'gemini-2.5-flash' },
      { id: 'gemini-nokey', provider: 'gm-nokey', upstreamModel: 'gemini-2.5-flash' },
      { id: 'image-bad', provider: 'media-oa-bad', upstreamModel: 'gpt-image-1', capabilities: ['image'] },
      { id: 'gemini-image-bad', provider: 'media-gm-bad', upstreamModel: 'gemini-2.5-flash-image', capabilities: ['image'] },
      { id: 'sora-bad', provider: 'media-oa-bad', upstreamModel: 'sora-2', capabilities: ['video'] },
      { id: 'sora-2', provider: 'media-oa', capabilities: ['video'] },
    ],
    keys: [{ id: 'caller', key: KEY }],
  };
}

beforeAll(async () => {
  [openai, anthropic, gemini, mediaOpenAI, mediaGemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini(), startMockMediaOpenAI(), startMockMediaGemini()]);
  gateway = createGateway(config(), { env: {}, now: () => clock.now, video: { pollerTickMs: false, staleAfterMs: 1000, pollIntervalMs: 1000, maxPollFailures: 1 } });
});

afterAll(async () => {
  await gateway.close();
  await Promise.all([openai, anthropic, gemini, mediaOpenAI, mediaGemini].map((m) => m.close()));
});

async function send(path: string, body: unknown, headers: Record<string, string> = {}, method = 'POST'): Promise<{ status: number; text: string }> {
  const res = await gateway.handle(
    new Request(`http://gateway.test${path}`, {
      method,
      headers: { 'content-type': 'application/json', authorization: `Bearer ${KEY}`, ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    }),
  );
  return { status: res.status, text: await res.text() };
}

const ANTHROPIC = { 'anthropic-version': '2023-06-01' };
const openAIChat = (model: string, stream: boolean) => send('/v1/chat/completions', { model, stream, messages: [{ role: 'user', content: 'hi' }] });
const anthropicChat = (model: string, stream: boolean) => send('/v1/messages', { model, stream, max_tokens: 32, messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC);
const geminiChat = (model: string, stream: boolean) =>
  send(`/v1beta/models/${model}:${stream ? 'streamGenerateContent?alt=sse' : 'generateContent'}`, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] });

function expectGatewayCredentialFailure(r: { status: number; text: string }, provider: string, upstreamStatus: number): void {
  expect(r.status).toBe(502);
  expect(r.text).toContain(`The provider '${provider}' refused the gateway's credential (${upstreamStatus})`);
  expect(r.text).not.toContain(WRONG);
}

describe('chat: a refused gateway credential is a 502 naming the provider', () => {
  const cases: Array<[string, (m: string, s: boolean) => Promise<{ status: number; text: string }>, string, string, number]> = [
    ['OpenAI client, OpenAI upstream (pass-through)', openAIChat, 'gpt-bad', 'oa-bad', 401],
    ['OpenAI client, Anthropic upstream', openAIChat, 'claude-bad', 'an-bad', 401],
    ['Anthropic client, Anthropic upstream (pass-through)', anthropicChat, 'claude-bad', 'an-bad', 401],
    ['Anthropic client, Gemini upstream (400 API_KEY_INVALID)', anthropicChat, 'gemini-bad', 'gm-bad', 400],
    ['Gemini client, Gemini upstream (pass-through, 400 API_KEY_INVALID)', geminiChat, 'gemini-bad', 'gm-bad', 400],
    ['Gemini client, Gemini upstream without a key (403)', geminiChat, 'gemini-nokey', 'gm-nokey', 403],
    ['Gemini client, OpenAI upstream', geminiChat, 'gpt-bad', 'oa-bad', 401],
  ];
  for (const [name, call, model, provider, status] of cases) {
    for (const stream of [false, true]) {
      it(`${name}${stream ? ', streamed' : ''}`, async () => {
        expectGatewayCredentialFailure(await call(model, stream), provider, status);
      });
    }
  }

  it('each protocol renders it in its own error shape', async () => {
    const oa = JSON.parse((await openAIChat('gpt-bad', false)).text) as { error: { type: string; code: string } };
    expect(oa.error).toMatchObject({ type: 'upstream_error', code: 'upstream_credential_refused' });
    const an = JSON.parse((await anthropicChat('claude-bad', false)).text) as { type: string; error: { type: string } };
    expect(an.type).toBe('error');
    expect(an.error.type).toBe('api_error');
    const gm = JSON.parse((await geminiChat('gemini-bad', false)).text) as { error: { code: number } };
    expect(gm.error.code).toBe(502);
  });

  it('count_tokens and countTokens forwarded upstream too', async () => {
    expectGatewayCredentialFailure(await send('/v1/messages/count_tokens', { model: 'claude-bad', messages: [{ role: 'user', content: 'hi' }] }, ANTHROPIC), 'an-bad', 401);
    expectGatewayCredentialFailure(await send('/v1beta/models/gemini-bad:countTokens', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }), 'gm-bad', 400);
  });

  it('other upstream errors keep their status (a 400 about the input stays the caller’s 400)', async () => {
    openai.failNext(400, { error: { message: "Invalid 'messages'.", type: 'invalid_request_error', param: 'messages', code: null } });
    const good = createGateway({ ...config(), providers: [{ id: 'oa', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey }], models: [{ id: 'gpt-4o', provider: 'oa' }] }, { env: {} });
    const res = await good.handle(new Request('http://gateway.test/v1/chat/completions', { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }) }));
    expect(res.status).toBe(400);
    await good.close();
  });
});

describe('media: images and video', () => {
  it('images: OpenAI (401) and Gemini (400 API_KEY_INVALID) upstreams', async () => {
    expectGatewayCredentialFailure(await send('/v1/images/generations', { model: 'image-bad', prompt: 'a kite' }), 'media-oa-bad', 401);
    expectGatewayCredentialFailure(await send('/v1/images/generations', { model: 'gemini-image-bad', prompt: 'a kite' }), 'media-gm-bad', 400);
  });

  it('video submit', async () => {
    expectGatewayCredentialFailure(await send('/v1/video/generations', { model: 'sora-bad', prompt: 'a cat' }), 'media-oa-bad', 401);
  });

  it('video poll: the task fails with the provider named, not as the caller’s auth error', async () => {
    const sub = await send('/v1/video/generations', { model: 'sora-2', prompt: 'a dog' });
    expect(sub.status).toBe(202);
    const id = (JSON.parse(sub.text) as { task_id: string }).task_id;
    mediaOpenAI.failNext(401, { error: { message: 'Incorrect API key provided.', type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    clock.now += 1500;
    const read = await send(`/v1/video/generations/${id}`, undefined, {}, 'GET');
    expect(read.status).toBe(200);
    const task = JSON.parse(read.text) as { status: string; error: { message: string } };
    expect(task.status).toBe('failed');
    expect(task.error.message).toContain("The provider 'media-oa' refused the gateway's credential (401)");
  });

  it('video download', async () => {
    const sub = await send('/v1/video/generations', { model: 'sora-2', prompt: 'a bird' });
    const id = (JSON.parse(sub.text) as { task_id: string }).task_id;
    for (let i = 0; i < 5; i++) {
      clock.now += 1500;
      const t = JSON.parse((await send(`/v1/video/generations/${id}`, undefined, {}, 'GET')).text) as { status: string };
      if (t.status === 'succeeded') break;
    }
    mediaOpenAI.failNext(403, { error: { message: 'Project does not have access.', type: 'invalid_request_error', param: null, code: null } });
    expectGatewayCredentialFailure(await send(`/v1/video/generations/${id}/content`, undefined, {}, 'GET'), 'media-oa', 403);
  });
});

describe('a credential the caller supplied (bring your own key)', () => {
  it('keeps its 401/403 and says it was the caller’s credential', () => {
    const base = { providerId: 'oa', bodyText: '{}', message: 'Incorrect API key provided.', credential: 'caller' as const };
    const e401 = upstreamFailure({ ...base, status: 401 });
    expect([e401.status, e401.code]).toEqual([401, 'authentication']);
    expect(e401.message).toBe("The provider 'oa' refused the credential you supplied (401): Incorrect API key provided.");
    const e403 = upstreamFailure({ ...base, status: 403 });
    expect([e403.status, e403.code]).toEqual([403, 'permission_denied']);
    const gem = upstreamFailure({ ...base, status: 400, bodyText: '{"error":{"details":[{"reason":"API_KEY_INVALID"}]}}' });
    expect(gem.status).toBe(401);
  });

  it('the gateway credential is the default and maps to 502; other statuses are kept', () => {
    const base = { providerId: 'oa', bodyText: '{}', message: 'm', credential: 'gateway' as const };
    expect(upstreamFailure({ ...base, status: 401 }).status).toBe(502);
    expect(upstreamFailure({ ...base, status: 400 }).status).toBe(400);
    const limited = upstreamFailure({ ...base, status: 429, retryAfter: 7 });
    expect([limited.status, limited.retryAfter]).toEqual([429, 7]);
  });
});
