/**
 * No upstream or platform key reaches a caller, on every answer path: each client protocol
 * (OpenAI chat, Anthropic Messages, Gemini SSE and JSON-array streams) against each upstream
 * protocol (pass-through when they match, translated otherwise), streamed and not, and the image
 * relay. The upstream (test/helpers/echo-upstream.ts) echoes the credentials inside normal content
 * and inside an error event in the middle of a stream.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway } from '../../src/index.js';
import { createContentScrubber, redact, scrubContent, scrubError } from '../../src/core/redact.js';
import { GatewayError } from '../../src/core/errors.js';
import { startEchoUpstream, type EchoMode, type EchoUpstream } from '../helpers/echo-upstream.js';

/** Not shaped like any well-known key, so only the exact-secret scrubber can catch it. */
const UPSTREAM_KEY = 'upstream-credential-7f3a9c21d4e8';
const CALLER_KEY = 'mg-caller-key-000000001';
const OTHER_KEY = 'mg-other-tenant-key-5e6f7a8b';

let echo: EchoUpstream;
let gateway: Gateway;

beforeAll(async () => {
  echo = await startEchoUpstream();
  gateway = createGateway(
    {
      providers: [
        { id: 'oa', type: 'openai', baseURL: `${echo.origin}/v1`, apiKey: UPSTREAM_KEY },
        { id: 'an', type: 'anthropic', baseURL: echo.origin, apiKey: UPSTREAM_KEY },
        { id: 'gm', type: 'gemini', baseURL: echo.origin, apiKey: UPSTREAM_KEY },
      ],
      models: [
        { id: 'via-openai', provider: 'oa', capabilities: ['chat', 'image'] },
        { id: 'via-anthropic', provider: 'an' },
        { id: 'via-gemini', provider: 'gm' },
      ],
      keys: [
        { id: 'caller', key: CALLER_KEY },
        { id: 'other', key: OTHER_KEY },
      ],
    },
    { env: {} },
  );
});

afterAll(async () => {
  await gateway.close();
  await echo.close();
});

type ClientProtocol = 'openai' | 'anthropic' | 'gemini-sse' | 'gemini-array';
const CLIENTS: ClientProtocol[] = ['openai', 'anthropic', 'gemini-sse', 'gemini-array'];
const UPSTREAMS = ['via-openai', 'via-anthropic', 'via-gemini'] as const;

function chatRequest(client: ClientProtocol, model: string, stream: boolean): Request {
  const headers: Record<string, string> = { 'content-type': 'application/json', authorization: `Bearer ${CALLER_KEY}` };
  const base = 'http://gateway.test';
  if (client === 'openai') {
    return new Request(`${base}/v1/chat/completions`, { method: 'POST', headers, body: JSON.stringify({ model, stream, messages: [{ role: 'user', content: 'hi' }] }) });
  }
  if (client === 'anthropic') {
    return new Request(`${base}/v1/messages`, {
      method: 'POST',
      headers: { ...headers, 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model, stream, max_tokens: 64, messages: [{ role: 'user', content: 'hi' }] }),
    });
  }
  const action = stream ? 'streamGenerateContent' : 'generateContent';
  const query = stream && client === 'gemini-sse' ? '?alt=sse' : '';
  return new Request(`${base}/v1beta/models/${model}:${action}${query}`, { method: 'POST', headers, body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }) });
}

async function answerText(req: Request, mode: EchoMode): Promise<{ status: number; text: string }> {
  echo.set(mode, `${UPSTREAM_KEY} (caller ${CALLER_KEY}, neighbour ${OTHER_KEY})`);
  const res = await gateway.handle(req);
  return { status: res.status, text: await res.text() };
}

function expectScrubbed(text: string): void {
  expect(text).not.toContain(UPSTREAM_KEY);
  expect(text).not.toContain(CALLER_KEY);
  expect(text).not.toContain(OTHER_KEY);
  expect(text).toContain('[redacted]');
}

describe('streams: credentials echoed by the upstream never reach the caller', () => {
  for (const client of CLIENTS) {
    for (const model of UPSTREAMS) {
      it(`${client} client, ${model}: key inside normal stream content`, async () => {
        const { status, text } = await answerText(chatRequest(client, model, true), 'content');
        expect(status).toBe(200);
        expect(text).toContain('Hello. ');
        expectScrubbed(text);
      });

      it(`${client} client, ${model}: key inside a mid-stream error event`, async () => {
        const { status, text } = await answerText(chatRequest(client, model, true), 'error');
        expect(status).toBe(200);
        expect(text).toContain('Hello. ');
        expect(text.toLowerCase()).toContain('error');
        expectScrubbed(text);
      });
    }
  }
});

describe('sync bodies: credentials echoed by the upstream never reach the caller', () => {
  for (const client of ['openai', 'anthropic', 'gemini-sse'] as const) {
    for (const model of UPSTREAMS) {
      it(`${client === 'gemini-sse' ? 'gemini' : client} client, ${model}: key inside the answer`, async () => {
        const { status, text } = await answerText(chatRequest(client, model, false), 'content');
        expect(status).toBe(200);
        expect(text).toContain('The key is ');
        expectScrubbed(text);
      });
    }
  }
});

describe('OpenAI pass-through: an in-band error chunk ends the relay as a failure', () => {
  it('is rewritten in the gateway error shape (with traceId) instead of relayed verbatim', async () => {
    const { text } = await answerText(chatRequest('openai', 'via-openai', true), 'error');
    const frames = text.split('\n\n').filter((f) => f.startsWith('data: '));
    const last = JSON.parse((frames.at(-1) ?? '').slice(6)) as { error: { message: string; type: string }; traceId: string };
    expect(last.error.type).toBe('upstream_error');
    expect(last.error.message).toBe('Incorrect API key provided: [redacted] (caller [redacted], neighbour [redacted]).');
    expect(last.traceId).toEqual(expect.any(String));
  });
});

describe('image relay', () => {
  const imageRequest = (stream: boolean) =>
    new Request('http://gateway.test/v1/images/generations', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${CALLER_KEY}` },
      body: JSON.stringify({ model: 'via-openai', prompt: 'a kite', ...(stream ? { stream: true, partial_images: 0 } : {}) }),
    });

  it('a streamed image event whose key arrives split over two upstream chunks is scrubbed', async () => {
    echo.set('content', UPSTREAM_KEY);
    const res = await gateway.handle(imageRequest(true));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).toContain('image_generation.completed');
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).toContain('The key is [redacted].');
  });

  it('a sync image answer is scrubbed', async () => {
    echo.set('content', UPSTREAM_KEY);
    const res = await gateway.handle(imageRequest(false));
    const text = await res.text();
    expect(res.status).toBe(200);
    expect(text).not.toContain(UPSTREAM_KEY);
    expect(text).toContain('The key is [redacted].');
  });
});

describe('the scrubber', () => {
  const SECRET = 'abcdefgh-12345678';

  it('catches a secret split at every position across two chunks, and keeps all other text', () => {
    const text = `before ${SECRET} after`;
    for (let cut = 0; cut <= text.length; cut++) {
      const s = createContentScrubber([SECRET]);
      const out = s.push(text.slice(0, cut)) + s.push(text.slice(cut)) + s.end();
      expect(out, `cut at ${cut}`).toBe('before [redacted] after');
    }
  });

  it('holds back only a possible start of a secret, and releases it when it is not one', () => {
    const s = createContentScrubber([SECRET]);
    expect(s.push('data: {"x":1}\n\n')).toBe('data: {"x":1}\n\n');
    expect(s.push('text abcd')).toBe('text ');
    expect(s.push('xyz')).toBe('abcdxyz');
    expect(s.push('tail abc')).toBe('tail ');
    expect(s.end()).toBe('abc');
  });

  it('leaves content alone when secrets are short (a 4-letter key would cut words out of answers)', () => {
    expect(scrubContent('the test passed', ['test'])).toBe('the test passed');
    expect(scrubContent(`a ${SECRET} b`, [SECRET])).toBe('a [redacted] b');
  });

  it('an authorization header names its scheme: the credential after it is redacted, the scheme and a placeholder are kept', () => {
    expect(redact('Send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".')).toBe('Send it as "Authorization: Bearer <key>", "x-api-key" or "x-goog-api-key".');
    expect(redact('authorization: Bearer abcdefghijkl')).toBe('authorization: Bearer [redacted]');
    expect(redact('Authorization: Basic dXNlcjpwYXNzd29yZA==')).toBe('Authorization: Basic [redacted]');
    expect(redact('authorization=opaque-token-123')).toBe('authorization=[redacted]');
  });

  it("a known secret quoted masked by a vendor (its first or last four characters around stars or dots) is redacted; other ellipses stay", () => {
    const known = ['sk-proj-WRONGKEY-abcdef0123456789', 'UPKEYopenaiSECRETvalueTzz9'];
    expect(redact('Incorrect API key provided: sk-*****6789.', known)).toBe('Incorrect API key provided: [redacted].');
    expect(redact('key UPKEYopenaiS...Tzz9 refused; see foo...bar and a*** b', known)).toBe('key [redacted] refused; see foo...bar and a*** b');
    expect(redact('Incorrect API key provided: sk-proj-****6789', known)).toBe('Incorrect API key provided: [redacted]');
  });

  it('one error scrubber: redacts known and key-shaped secrets, keeps code, status, param and detail', () => {
    const err = new GatewayError('rate_limited', `slow down ${SECRET}, Bearer abcdefghijkl`, { param: 'model', retryAfter: 3, detail: 'x' });
    const safe = scrubError(err, [SECRET]);
    expect(safe.message).toBe('slow down [redacted], Bearer [redacted]');
    expect([safe.code, safe.status, safe.param, safe.retryAfter, safe.detail]).toEqual(['rate_limited', 429, 'model', 3, 'x']);
    expect(scrubError(new Error(SECRET), [SECRET]).message).toBe('Internal gateway error.');
  });
});
