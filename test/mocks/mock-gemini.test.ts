import { ApiError, GoogleGenAI, type Tool } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';

let mock: MockGemini;
let ai: GoogleGenAI;

beforeAll(async () => {
  mock = await startMockGemini();
  ai = new GoogleGenAI({ apiKey: mock.apiKey, httpOptions: { baseUrl: mock.baseURL } });
});
afterAll(async () => {
  await mock.close();
});

async function raw(path: string, body: unknown, headers: Record<string, string> = { 'x-goog-api-key': mock.apiKey }): Promise<{ status: number; json: any; text: string }> {
  const res = await fetch(`${mock.baseURL}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, json, text };
}

describe('mock Gemini upstream', () => {
  it('answers generateContent through the official SDK with usage', async () => {
    const r = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'hello there' });
    expect(r.text).toBe('[gemini] you said: hello there');
    expect(r.candidates?.[0]?.finishReason).toBe('STOP');
    expect(r.usageMetadata).toMatchObject({ promptTokenCount: 10, candidatesTokenCount: 5, totalTokenCount: 15 });
    expect(mock.requests.at(-1)?.headers['x-goog-api-key']).toBe(mock.apiKey);
  });

  it('streams one word per SSE chunk, usage and finish on the last chunk', async () => {
    const chunks = [];
    for await (const c of await ai.models.generateContentStream({ model: 'gemini-2.5-flash', contents: 'a b' })) chunks.push(c);
    expect(chunks.map((c) => c.text).join('')).toBe('[gemini] you said: a b');
    expect(chunks.length).toBe(5);
    expect(chunks.at(-1)?.candidates?.[0]?.finishReason).toBe('STOP');
    expect(chunks.at(-1)?.usageMetadata?.candidatesTokenCount).toBe(5);
    expect(chunks[0]?.usageMetadata?.candidatesTokenCount).toBeUndefined();
    expect(mock.requests.at(-1)?.query.get('alt')).toBe('sse');
  });

  it('streams a JSON array without alt=sse', async () => {
    const r = await raw('/v1beta/models/gemini-2.5-flash:streamGenerateContent', { contents: [{ role: 'user', parts: [{ text: 'x' }] }] });
    expect(r.status).toBe(200);
    const arr = JSON.parse(r.text) as Array<{ candidates: Array<{ content: { parts: Array<{ text: string }> } }> }>;
    expect(arr.map((c) => c.candidates[0]!.content.parts[0]!.text).join('')).toBe('[gemini] you said: x');
  });

  it('calls tools with thought signatures when thinking, and accepts the functionResponse follow-up', async () => {
    const tools: Tool[] = [{ functionDeclarations: [{ name: 'get_weather', parametersJsonSchema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } }] }];
    const r = await ai.models.generateContent({ model: 'gemini-3-pro-preview', contents: 'weather?', config: { tools, thinkingConfig: { thinkingBudget: 128 } } });
    const part = r.candidates?.[0]?.content?.parts?.[0];
    expect(part?.functionCall).toEqual({ name: 'get_weather', args: { city: 'Paris', days: 1 } });
    expect(typeof part?.thoughtSignature).toBe('string');
    const r2 = await ai.models.generateContent({
      model: 'gemini-3-pro-preview',
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [part!] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
      ],
      config: { tools },
    });
    expect(r2.text).toBe('[gemini] tool results: sunny');
    // Without the signature Gemini 3 refuses.
    const bad = await raw('/v1beta/models/gemini-3-pro-preview:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'weather?' }] },
        { role: 'model', parts: [{ functionCall: { name: 'get_weather', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'get_weather', response: { result: 'sunny' } } }] },
      ],
    });
    expect(bad.status).toBe(400);
    expect(bad.json.error.message).toContain('thought_signature');
  });

  it('accepts snake_case and counts images and PDFs', async () => {
    const r = await raw('/v1beta/models/gemini-2.5-flash:generateContent', {
      contents: [{ role: 'user', parts: [{ text: 'see' }, { inline_data: { mime_type: 'image/png', data: 'iVBORw0KGgo=' } }, { file_data: { mime_type: 'application/pdf', file_uri: 'https://x/doc.pdf' } }] }],
      generation_config: { max_output_tokens: 100 },
    });
    expect(r.status).toBe(200);
    expect(r.json.candidates[0].content.parts[0].text).toBe('[gemini] you said: see [image] [pdf]');
  });

  it('applies stop sequences and max tokens', async () => {
    const s = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'one two three', config: { stopSequences: ['two'] } });
    expect(s.text).toBe('[gemini] you said: one ');
    expect(s.candidates?.[0]?.finishReason).toBe('STOP');
    const m = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'one two three', config: { maxOutputTokens: 2 } });
    expect(m.text).toBe('[gemini] you');
    expect(m.candidates?.[0]?.finishReason).toBe('MAX_TOKENS');
  });

  it('rejects like the real API', async () => {
    const base = { contents: [{ role: 'user', parts: [{ text: 'x' }] }] };
    const noKey = await raw('/v1beta/models/gemini-2.5-flash:generateContent', base, {});
    expect(noKey.status).toBe(403);
    expect(noKey.json.error.status).toBe('PERMISSION_DENIED');
    const badKey = await raw('/v1beta/models/gemini-2.5-flash:generateContent?key=nope', base, {});
    expect(badKey.status).toBe(400);
    expect(badKey.json.error.details[0].reason).toBe('API_KEY_INVALID');
    const role = await raw('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'assistant', parts: [{ text: 'x' }] }] });
    expect(role.status).toBe(400);
    expect(role.json.error.message).toContain('valid role');
    const system = await raw('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'system', parts: [{ text: 'x' }] }] });
    expect(system.status).toBe(400);
    const unknown = await raw('/v1beta/models/gemini-2.5-flash:generateContent', { ...base, generationConfig: { max_tokens: 5 } });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.message).toContain('Unknown name "max_tokens"');
    const orphan = await raw('/v1beta/models/gemini-2.5-flash:generateContent', {
      contents: [
        { role: 'user', parts: [{ text: 'x' }] },
        { role: 'model', parts: [{ functionCall: { name: 'a', args: {} } }] },
        { role: 'user', parts: [{ functionResponse: { name: 'b', response: { result: 1 } } }] },
      ],
    });
    expect(orphan.status).toBe(400);
    const inline = await raw('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'user', parts: [{ inlineData: { data: 'AAAA' } }] }] });
    expect(inline.status).toBe(400);
    expect(inline.json.error.message).toContain('mime_type');
    const missing = await raw('/v1beta/models/nope-model:generateContent', base);
    expect(missing.status).toBe(404);
    expect(missing.json.error.status).toBe('NOT_FOUND');
  });

  it('lists models, gets one and counts tokens through the SDK', async () => {
    const pager = await ai.models.list();
    const names: string[] = [];
    for await (const m of pager) names.push(m.name ?? '');
    expect(names).toContain('models/gemini-2.5-flash');
    const one = await ai.models.get({ model: 'gemini-2.5-pro' });
    expect(one.displayName).toBe('Gemini 2.5 Pro');
    const count = await ai.models.countTokens({ model: 'gemini-2.5-flash', contents: 'one two three' });
    expect(count.totalTokens).toBe(3);
    await expect(ai.models.get({ model: 'gpt-4' })).rejects.toBeInstanceOf(ApiError);
  });

  it('fails on demand and reports in-band stream errors', async () => {
    mock.failNext(429, { error: { code: 429, message: 'Resource has been exhausted', status: 'RESOURCE_EXHAUSTED' } });
    const r = await raw('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ parts: [{ text: 'x' }] }] });
    expect(r.status).toBe(429);
    mock.failStreamNext();
    const s = await fetch(`${mock.baseURL}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`, {
      method: 'POST',
      headers: { 'x-goog-api-key': mock.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ parts: [{ text: 'x y' }] }] }),
    });
    const text = await s.text();
    expect(text).toContain('"error"');
    expect(text.split('\r\n\r\n').filter(Boolean).length).toBe(2);
  });
});
