/**
 * Inline bytes crossing vendors: a Gemini client may send base64 in the URL-safe alphabet (the
 * google-genai Python SDK does), which Gemini accepts and OpenAI / Anthropic refuse. Whenever bytes
 * go to an OpenAI or Anthropic upstream they are standard, padded base64; a Gemini upstream keeps
 * them as sent. The strict mocks refuse non-standard base64 the way the real APIs do.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toStandardBase64 } from '../../../src/ir/media.js';
import { createGateway, type Gateway } from '../../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { PDF, PNG } from '../../conformance/types.js';

const KEY = 'mg-base64-key-000001';
/** The URL-safe alphabet, padding stripped (what urlsafe_b64encode(...).rstrip('=') gives). */
const urlSafe = (b64: string): string => b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
const PNG_URLSAFE = urlSafe(PNG);
const PDF_URLSAFE = urlSafe(PDF);

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let gateway: Gateway;

beforeAll(async () => {
  [openai, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  gateway = createGateway({
    providers: [
      { id: 'p-openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
      { id: 'p-anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'p-gemini', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
    ],
    models: [
      { id: 'up-openai', provider: 'p-openai', upstreamModel: 'gpt-4o' },
      { id: 'up-anthropic', provider: 'p-anthropic', upstreamModel: 'claude-sonnet-4-5' },
      { id: 'up-gemini', provider: 'p-gemini', upstreamModel: 'gemini-2.5-flash' },
    ],
    keys: [{ id: 'b64', key: KEY, models: ['*'] }],
  });
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close()]);
});

type Json = Record<string, unknown>;

async function post(path: string, body: Json, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const res = await gateway.handle(
    new Request(`http://gw.test${path}`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) }),
  );
  return { status: res.status, body: (await res.json()) as Json };
}

const geminiAsk = (model: string) =>
  post(`/v1beta/models/${model}:generateContent`, {
    contents: [{ role: 'user', parts: [{ text: 'describe' }, { inlineData: { mimeType: 'image/png', data: PNG_URLSAFE } }, { inlineData: { mimeType: 'application/pdf', data: PDF_URLSAFE } }] }],
  });

/** Non-text parts of the first user message an upstream mock received last. */
function lastParts(mock: { requests: Array<{ body: unknown }> }, key: 'messages' | 'contents'): Json[] {
  const body = mock.requests.at(-1)?.body as Json;
  const first = (body[key] as Array<{ content?: unknown; parts?: unknown }>)[0];
  const parts = (key === 'messages' ? first?.content : first?.parts) as Json[];
  return parts.filter((p) => p.type !== 'text' && p.text === undefined);
}

describe('toStandardBase64', () => {
  it('keeps standard padded base64 as it is (the same string)', () => {
    expect(toStandardBase64(PNG)).toBe(PNG);
    expect(toStandardBase64('')).toBe('');
  });

  it('maps the URL-safe alphabet and adds the padding', () => {
    expect(toStandardBase64(PNG_URLSAFE)).toBe(PNG);
    expect(toStandardBase64(PDF_URLSAFE)).toBe(PDF);
    expect(toStandardBase64('-_8')).toBe('+/8=');
    expect(toStandardBase64('YQ')).toBe('YQ==');
  });

  it('drops MIME line breaks', () => {
    expect(toStandardBase64(`${PNG.slice(0, 40)}\r\n${PNG.slice(40)}`)).toBe(PNG);
  });

  it('leaves text that is not base64 for the upstream to refuse', () => {
    expect(toStandardBase64('not*base64')).toBe('not*base64');
    expect(toStandardBase64('abcde')).toBe('abcde');
  });
});

describe('the strict mocks refuse non-standard base64 like the real APIs', () => {
  it('OpenAI: an image or file data URL in the URL-safe alphabet is a 400 naming the field', async () => {
    const send = (content: unknown[]) =>
      fetch(`${openai.baseURL}/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${openai.apiKey}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: [{ type: 'text', text: 'x' }, ...content] }] }),
      });
    const image = await send([{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_URLSAFE}` } }]);
    expect(image.status).toBe(400);
    expect(((await image.json()) as { error: Json }).error).toMatchObject({ param: 'messages[0].content[1].image_url.url', code: 'invalid_value' });
    const file = await send([{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF_URLSAFE}`, filename: 'a.pdf' } }]);
    expect(file.status).toBe(400);
    expect(((await file.json()) as { error: Json }).error).toMatchObject({ param: 'messages[0].content[1].file.file_data' });
    const ok = await send([{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }]);
    expect(ok.status).toBe(200);
  });

  it('Anthropic: a base64 source in the URL-safe alphabet is "invalid base64 data"', async () => {
    const res = await fetch(`${anthropic.baseURL}/v1/messages`, {
      method: 'POST',
      headers: { 'x-api-key': anthropic.apiKey, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 10, messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG_URLSAFE } }] }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: Json }).error.message).toBe('messages.0.content.0.image.source.base64: invalid base64 data');
  });
});

describe('bytes crossing to another vendor are standard base64', () => {
  it('Gemini client -> OpenAI upstream: data URLs in the standard alphabet', async () => {
    const res = await geminiAsk('up-openai');
    expect(res.status).toBe(200);
    expect(lastParts(openai, 'messages')).toEqual([
      { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } },
      { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' } },
    ]);
  });

  it('Gemini client -> Anthropic upstream: base64 sources in the standard alphabet', async () => {
    const res = await geminiAsk('up-anthropic');
    expect(res.status).toBe(200);
    expect(lastParts(anthropic, 'messages')).toEqual([
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
      { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
    ]);
  });

  it('Gemini client -> Gemini upstream: the bytes as sent (Gemini reads both alphabets)', async () => {
    const res = await geminiAsk('up-gemini');
    expect(res.status).toBe(200);
    expect(lastParts(gemini, 'contents')).toEqual([
      { inlineData: { mimeType: 'image/png', data: PNG_URLSAFE } },
      { inlineData: { mimeType: 'application/pdf', data: PDF_URLSAFE } },
    ]);
  });

  it('OpenAI client -> Anthropic upstream: a URL-safe data URL is normalised too', async () => {
    const res = await post('/v1/chat/completions', {
      model: 'up-anthropic',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG_URLSAFE}` } }] }],
    });
    expect(res.status).toBe(200);
    expect(lastParts(anthropic, 'messages')).toEqual([{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }]);
  });

  it('Anthropic client -> OpenAI upstream: a URL-safe base64 source is normalised too', async () => {
    const res = await post(
      '/v1/messages',
      { model: 'up-openai', max_tokens: 50, messages: [{ role: 'user', content: [{ type: 'text', text: 'describe' }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF_URLSAFE } }] }] },
      { 'anthropic-version': '2023-06-01' },
    );
    expect(res.status).toBe(200);
    expect(lastParts(openai, 'messages')).toEqual([{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'document.pdf' } }]);
  });

  it('a plain-text document for Anthropic is decoded from either alphabet; bad base64 is a 400 naming the part', async () => {
    const text = 'ÿ?>~ plain text';
    const b64 = urlSafe(btoa(String.fromCharCode(...new TextEncoder().encode(text))));
    expect(b64).toMatch(/[-_]/);
    const ok = await post('/v1/chat/completions', {
      model: 'up-anthropic',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'read' }, { type: 'file', file: { file_data: `data:text/plain;base64,${b64}`, filename: 'notes.txt' } }] }],
    });
    expect(ok.status).toBe(200);
    expect(lastParts(anthropic, 'messages')).toEqual([{ type: 'document', source: { type: 'text', media_type: 'text/plain', data: text }, title: 'notes.txt' }]);
    const bad = await post('/v1/chat/completions', {
      model: 'up-anthropic',
      messages: [{ role: 'user', content: [{ type: 'text', text: 'read' }, { type: 'file', file: { file_data: 'data:text/plain;base64,abcde', filename: 'notes.txt' } }] }],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ param: 'messages[0].content[1]', message: 'The document data is not valid base64.' });
  });
});
