/**
 * A translated request carries one answer (the IR holds one), so n > 1 (candidateCount > 1) is
 * refused before any upstream call, on every vendor: it used to reach OpenAI and Gemini upstreams,
 * which generated (and billed) every candidate, and the client got only the first, silently.
 * Pass-through keeps n. Through the official openai and @google/genai clients against the gateway
 * with the strict mock vendors.
 */
import OpenAI from 'openai';
import { ApiError, type GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GEMINI_KEY_ALL, startGeminiTestbed, type GeminiTestbed } from '../../helpers/gemini-gateway.js';
import { openAIRefusal } from '../../helpers/openai-refusal.js';

let tb: GeminiTestbed;
let ai: GoogleGenAI;
let openai: OpenAI;

beforeAll(async () => {
  tb = await startGeminiTestbed();
  ai = tb.client();
  openai = new OpenAI({ baseURL: `${tb.server.url}/v1`, apiKey: GEMINI_KEY_ALL, maxRetries: 0 });
});
afterAll(async () => {
  await tb?.close();
});

const upstreamCalls = (): number => tb.gemini.requests.length + tb.openai.requests.length + tb.anthropic.requests.length;

describe('n > 1 on translated requests', () => {
  for (const model of ['gemini-2.5-flash', 'claude-sonnet']) {
    for (const stream of [false, true]) {
      it(`openai client -> ${model}${stream ? ' (stream)' : ''}: 400 naming n, no upstream call`, async () => {
        const before = upstreamCalls();
        const r = await openAIRefusal(openai.chat.completions.create({ model, n: 2, stream, messages: [{ role: 'user', content: 'hi' }] }));
        expect(r).toMatchObject({ status: 400, param: 'n' });
        expect(r.message).toMatch(/one answer|n must be 1/);
        expect(upstreamCalls()).toBe(before);
      });
    }
  }

  for (const model of ['gpt-4o', 'claude-sonnet']) {
    it(`@google/genai candidateCount 2 -> ${model}: 400 in Gemini's shape, no upstream call`, async () => {
      const before = upstreamCalls();
      const err = await ai.models.generateContent({ model, contents: 'hi', config: { candidateCount: 2 } }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ApiError);
      expect((err as ApiError).status).toBe(400);
      const body = JSON.parse((err as ApiError).message) as { error: { code: number; status: string; message: string } };
      expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
      expect(body.error.message).toMatch(/one answer|n must be 1/);
      expect(upstreamCalls()).toBe(before);
    });
  }

  it('n 1 and candidateCount 1 still go through translated', async () => {
    const a = await openai.chat.completions.create({ model: 'gemini-2.5-flash', n: 1, messages: [{ role: 'user', content: 'hi' }] });
    expect(a.choices).toHaveLength(1);
    const g = await ai.models.generateContent({ model: 'gpt-4o', contents: 'hi', config: { candidateCount: 1 } });
    expect(g.candidates).toHaveLength(1);
  });

  it('pass-through keeps n: every choice comes back', async () => {
    const r = await openai.chat.completions.create({ model: 'gpt-4o', n: 2, messages: [{ role: 'user', content: 'hi' }] });
    expect(r.choices.map((c) => c.index)).toEqual([0, 1]);
    expect((tb.openai.requests.at(-1)?.body as { n?: number }).n).toBe(2);
  });
});
