/**
 * The strict chat mocks refuse a JSON body declared as something else (what fetch sends for a bare
 * string body is `text/plain;charset=UTF-8`), so a gateway path that loses the content-type fails
 * the suites instead of passing them. The media mock refuses a non-multipart image edit.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let media: MockMediaOpenAI;

beforeAll(async () => {
  [openai, anthropic, gemini, media] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini(), startMockMediaOpenAI()]);
});
afterAll(async () => {
  await Promise.all([openai.close(), anthropic.close(), gemini.close(), media.close()]);
});

describe('strict mocks check the request content-type', () => {
  const cases = () =>
    [
      ['openai', `${openai.baseURL}/chat/completions`, { authorization: `Bearer ${openai.apiKey}` }, { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }],
      ['anthropic', `${anthropic.baseURL}/v1/messages`, { 'x-api-key': anthropic.apiKey, 'anthropic-version': '2023-06-01' }, { model: 'claude-sonnet-4-5', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }],
      ['gemini', `${gemini.baseURL}/v1beta/models/gemini-2.5-flash:generateContent`, { 'x-goog-api-key': gemini.apiKey }, { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }],
    ] as const;

  it('a JSON chat body sent as text/plain is a 400; the same body as application/json is answered', async () => {
    for (const [name, url, headers, body] of cases()) {
      const asText = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
      expect([name, asText.status]).toEqual([name, 400]);
      await asText.arrayBuffer();
      const asJson = await fetch(url, { method: 'POST', headers: { ...headers, 'content-type': 'application/json; charset=utf-8' }, body: JSON.stringify(body) });
      expect([name, asJson.status]).toEqual([name, 200]);
      await asJson.arrayBuffer();
    }
  });

  it('an image edit that is not multipart (the `[object FormData]` text of a lost FormData) is a 400', async () => {
    const res = await fetch(`${media.baseURL}/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${media.apiKey}` }, body: '[object FormData]' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain("expected 'multipart/form-data' or 'application/json'");
  });
});
