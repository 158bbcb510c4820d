/**
 * Images end to end: the official `openai` client against the gateway (node:http), in front of
 * strict mock OpenAI and Gemini media upstreams and the built-in mock provider.
 */
import { GoogleGenAI } from '@google/genai';
import OpenAI, { APIError, toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { mediaProviders } from '../../helpers/gateway-config.js';
import { startMockMediaGemini, type MockMediaGemini } from '../../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';
import { PNG_BASE64, sha256, type MultipartBody } from '../../helpers/mock-media-server.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY = 'mg-images-key-all-0001';
const KEY_GEMINI_ONLY = 'mg-images-key-gem-0002';
const PNG = Buffer.from(PNG_BASE64, 'base64');
const PNG_SIGNATURE = '89504e470d0a1a0a';

let openai: MockMediaOpenAI;
let gemini: MockMediaGemini;
let gateway: Gateway;
let server: RunningServer;

function client(apiKey = KEY): OpenAI {
  return new OpenAI({ apiKey, baseURL: `${server.url}/v1`, maxRetries: 0 });
}

function isPng(b64: string | undefined): boolean {
  return Buffer.from(b64 ?? '', 'base64').subarray(0, 8).toString('hex') === PNG_SIGNATURE;
}

/** Distinct small PNG-like uploads (the bytes only need to be distinguishable). */
function upload(tag: string): Buffer {
  return Buffer.concat([PNG, Buffer.from(tag)]);
}

async function expectApiError(p: Promise<unknown>, status: number, param?: string): Promise<APIError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  const apiErr = err as APIError;
  expect(apiErr.status).toBe(status);
  if (param !== undefined) expect(apiErr.param).toBe(param);
  return apiErr;
}

beforeAll(async () => {
  openai = await startMockMediaOpenAI();
  gemini = await startMockMediaGemini();
  gateway = createShippedGateway({
    providers: mediaProviders(openai, gemini),
    models: [
      { id: 'gpt-image-1', provider: 'openai' },
      { id: 'dall-e-3', provider: 'openai' },
      { id: 'nano-banana', provider: 'google', upstreamModel: 'gemini-2.5-flash-image' },
      { id: 'gemini-2.5-flash-image', provider: 'google' },
      { id: 'imagen-4', provider: 'google', upstreamModel: 'imagen-4.0-generate-001' },
      { id: 'mock-image', provider: 'mock', capabilities: ['image'] },
      { id: 'gpt-4o', provider: 'openai' },
    ],
    keys: [
      { id: 'all', key: KEY, models: ['*'] },
      { id: 'gemini-only', key: KEY_GEMINI_ONLY, models: ['gemini-*', 'nano-*'] },
    ],
  });
  server = await serve(gateway, { port: 0 });
});

afterAll(async () => {
  await server.close();
  await gateway.close();
  await openai.close();
  await gemini.close();
});

describe('POST /v1/images/generations to OpenAI', () => {
  it('forwards a GPT image request with the model set and response_format dropped', async () => {
    const before = openai.requests.length;
    const res = await client().images.generate({
      model: 'gpt-image-1',
      prompt: 'A watercolor fox',
      n: 2,
      size: '1024x1536',
      quality: 'high',
      response_format: 'b64_json',
      output_format: 'png',
      background: 'opaque',
      user: 'end-user-7',
    });
    expect(res.data).toHaveLength(2);
    expect(isPng(res.data?.[0]?.b64_json)).toBe(true);
    expect(res.usage?.output_tokens).toBe(2000);
    expect(res.size).toBe('1024x1536');
    const sent = openai.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe('/v1/images/generations');
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
    expect(sent[0]?.body).toEqual({
      model: 'gpt-image-1',
      prompt: 'A watercolor fox',
      n: 2,
      size: '1024x1536',
      quality: 'high',
      output_format: 'png',
      background: 'opaque',
      user: 'end-user-7',
    });
  });

  it('refuses response_format url for a GPT image model without calling upstream', async () => {
    const before = openai.requests.length;
    const err = await expectApiError(client().images.generate({ model: 'gpt-image-1', prompt: 'x', response_format: 'url' }), 400, 'response_format');
    expect(err.message).toContain('base64');
    expect(openai.requests.length).toBe(before);
  });

  it('passes dall-e-3 URLs and revised prompts through', async () => {
    const res = await client().images.generate({ model: 'dall-e-3', prompt: 'A lighthouse', response_format: 'url', size: '1792x1024', quality: 'hd', style: 'vivid' });
    expect(res.data?.[0]?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/files\/img_0\.png$/);
    expect(res.data?.[0]?.revised_prompt).toBe('Revised: A lighthouse');
    expect(openai.requests.at(-1)?.body).toMatchObject({ model: 'dall-e-3', response_format: 'url', style: 'vivid' });
  });

  it('relays the upstream error status and message without leaking the upstream key', async () => {
    const err = await expectApiError(client().images.generate({ model: 'dall-e-3', prompt: 'x', size: '512x512' }), 400);
    expect(err.message).toContain("Invalid value for 'size'");
    openai.failNext(401, { error: { message: `Incorrect API key provided: ${openai.apiKey}`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } });
    // The gateway's own upstream key was refused: not the caller's fault, so a 502 naming the provider.
    const err2 = await expectApiError(client().images.generate({ model: 'gpt-image-1', prompt: 'x' }), 502);
    expect(err2.message).toContain("The provider 'openai' refused the gateway's credential (401)");
    expect(JSON.stringify(err2.error)).not.toContain(openai.apiKey);
  });

  it('relays streamed partial images from GPT image models', async () => {
    const stream = await client().images.generate({ model: 'gpt-image-1', prompt: 'A red kite', stream: true, partial_images: 2 });
    const types: string[] = [];
    for await (const ev of stream) {
      types.push(ev.type);
      expect(isPng(ev.b64_json)).toBe(true);
    }
    expect(types).toEqual(['image_generation.partial_image', 'image_generation.partial_image', 'image_generation.completed']);
  });
});

describe('POST /v1/images/generations to Gemini image models', () => {
  it('translates to generateContent with image output, one call per image, answered as b64_json', async () => {
    const before = gemini.requests.length;
    const res = await client().images.generate({ model: 'nano-banana', prompt: 'A paper crane', n: 2, size: '1536x1024', response_format: 'b64_json' });
    expect(res.data).toHaveLength(2);
    for (const d of res.data ?? []) expect(isPng(d.b64_json)).toBe(true);
    expect(res.data?.[0]?.url).toBeUndefined();
    expect(res.output_format).toBe('png');
    expect(res.usage).toEqual({ input_tokens: 20, input_tokens_details: { text_tokens: 20, image_tokens: 0 }, output_tokens: 2600, total_tokens: 2620 });
    const sent = gemini.requests.slice(before);
    expect(sent).toHaveLength(2);
    for (const r of sent) {
      expect(r.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
      expect(r.headers['x-goog-api-key']).toBe(gemini.apiKey);
      expect(r.body).toEqual({
        contents: [{ role: 'user', parts: [{ text: 'A paper crane' }] }],
        generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '3:2', imageSize: '2K' } },
      });
    }
  });

  it('sends no imageConfig for auto size', async () => {
    await client().images.generate({ model: 'gemini-2.5-flash-image', prompt: 'A cube' });
    expect(gemini.requests.at(-1)?.body).toEqual({ contents: [{ role: 'user', parts: [{ text: 'A cube' }] }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'] } });
  });

  it('refuses, naming the field, what Gemini image output cannot do', async () => {
    const before = gemini.requests.length;
    await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'x', background: 'transparent' }), 400, 'background');
    await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'x', response_format: 'url' }), 400, 'response_format');
    await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'x', output_format: 'jpeg' }), 400, 'output_format');
    await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'x', style: 'vivid' }), 400, 'style');
    expect(gemini.requests.length).toBe(before);
  });

  it('maps a safety stop and a blocked prompt to content-policy 400s', async () => {
    const e1 = await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'something unsafe' }), 400, 'prompt');
    expect(e1.code).toBe('content_policy_violation');
    expect(e1.message).toContain('IMAGE_SAFETY');
    expect(e1.headers?.get('x-modelgate-attempts')).toBe('1'); // the upstream was called (and answered)
    const e2 = await expectApiError(client().images.generate({ model: 'nano-banana', prompt: 'blocked words' }), 400, 'prompt');
    expect(e2.message).toContain('SAFETY');
  });

  it('refuses legacy Imagen models clearly', async () => {
    await expectApiError(client().images.generate({ model: 'imagen-4', prompt: 'x' }), 400, 'model');
  });
});

describe('POST /v1/images/edits', () => {
  it('sends several images to OpenAI as image[] in order, one image as image, with the mask', async () => {
    const a = upload('first');
    const b = upload('second');
    const mask = upload('mask');
    const before = openai.requests.length;
    const res = await client().images.edit({
      model: 'gpt-image-1',
      image: [await toFile(a, 'a.png', { type: 'image/png' }), await toFile(b, 'b.png', { type: 'image/png' })],
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      prompt: 'Put both on a beach',
      size: '1024x1024',
      input_fidelity: 'high',
    });
    expect(isPng(res.data?.[0]?.b64_json)).toBe(true);
    expect(res.usage?.input_tokens_details?.image_tokens).toBe(200);
    const sent = openai.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
    const form = sent[0]?.body as MultipartBody;
    expect(form.files.map((f) => [f.field, f.filename, f.sha256])).toEqual([
      ['image[]', 'a.png', sha256(a)],
      ['image[]', 'b.png', sha256(b)],
      ['mask', 'mask.png', sha256(mask)],
    ]);
    expect(Object.fromEntries(form.fields)).toEqual({ model: 'gpt-image-1', prompt: 'Put both on a beach', size: '1024x1024', input_fidelity: 'high' });

    await client().images.edit({ model: 'gpt-image-1', image: await toFile(a, 'solo.png', { type: 'image/png' }), prompt: 'Add a hat' });
    const solo = openai.requests.at(-1)?.body as MultipartBody;
    expect(solo.files.map((f) => [f.field, f.sha256])).toEqual([['image', sha256(a)]]);
  });

  it('accepts repeated plain `image` fields and forwards them as image[]', async () => {
    const form = new FormData();
    form.append('model', 'gpt-image-1');
    form.append('prompt', 'Merge');
    form.append('n', ' 2 ');
    form.append('image', new Blob([new Uint8Array(upload('x1'))], { type: 'image/png' }), 'x1.png');
    form.append('image', new Blob([new Uint8Array(upload('x2'))], { type: 'image/png' }), 'x2.png');
    const res = await fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: form });
    expect(res.status).toBe(200);
    const sent = openai.requests.at(-1)?.body as MultipartBody;
    expect(sent.files.map((f) => [f.field, f.filename])).toEqual([
      ['image[]', 'x1.png'],
      ['image[]', 'x2.png'],
    ]);
    // A number goes on as it was validated.
    expect(Object.fromEntries(sent.fields).n).toBe('2');
  });

  it('forwards JSON edits with image URLs', async () => {
    const res = await fetch(`${server.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-image-1', prompt: 'Snow', images: [{ image_url: 'https://example.com/in.png' }], size: '1024x1024' }),
    });
    expect(res.status).toBe(200);
    expect(openai.requests.at(-1)?.body).toEqual({ model: 'gpt-image-1', prompt: 'Snow', images: [{ image_url: 'https://example.com/in.png' }], size: '1024x1024' });
  });

  it('sends the images inline to Gemini, in order', async () => {
    const a = upload('gem-a');
    const b = Buffer.from([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4]);
    const before = gemini.requests.length;
    const res = await client().images.edit({
      model: 'nano-banana',
      image: [await toFile(a, 'cat.png', { type: 'image/png' }), await toFile(b, 'hat.jpg')],
      prompt: 'Put the hat on the cat',
      size: '1024x1024',
    });
    expect(res.data).toHaveLength(1);
    expect(isPng(res.data?.[0]?.b64_json)).toBe(true);
    expect(res.usage?.input_tokens_details?.image_tokens).toBe(516);
    const sent = gemini.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.body).toEqual({
      contents: [
        {
          role: 'user',
          parts: [
            { text: 'Put the hat on the cat' },
            { inlineData: { mimeType: 'image/png', data: a.toString('base64') } },
            { inlineData: { mimeType: 'image/jpeg', data: b.toString('base64') } },
          ],
        },
      ],
      generationConfig: { responseModalities: ['TEXT', 'IMAGE'], imageConfig: { aspectRatio: '1:1' } },
    });
  });

  it('refuses a mask for Gemini, naming the field', async () => {
    const before = gemini.requests.length;
    await expectApiError(
      client().images.edit({ model: 'nano-banana', image: await toFile(upload('m'), 'a.png', { type: 'image/png' }), mask: await toFile(upload('mask'), 'mask.png', { type: 'image/png' }), prompt: 'x' }),
      400,
      'mask',
    );
    expect(gemini.requests.length).toBe(before);
  });

  it('validates the multipart body', async () => {
    const noImage = new FormData();
    noImage.append('model', 'gpt-image-1');
    noImage.append('prompt', 'x');
    const r1 = await fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: noImage });
    expect(r1.status).toBe(400);
    expect(((await r1.json()) as { error: { param: string } }).error.param).toBe('image');
    const noPrompt = new FormData();
    noPrompt.append('model', 'gpt-image-1');
    noPrompt.append('image', new Blob([new Uint8Array(PNG)], { type: 'image/png' }), 'a.png');
    const r2 = await fetch(`${server.url}/v1/images/edits`, { method: 'POST', headers: { authorization: `Bearer ${KEY}` }, body: noPrompt });
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as { error: { param: string } }).error.param).toBe('prompt');
  });
});

describe('mock image model', () => {
  it('generates and edits small real PNGs', async () => {
    const gen = await client().images.generate({ model: 'mock-image', prompt: 'anything', n: 3 });
    expect(gen.data).toHaveLength(3);
    expect(isPng(gen.data?.[2]?.b64_json)).toBe(true);
    const edit = await client().images.edit({ model: 'mock-image', image: await toFile(PNG, 'in.png', { type: 'image/png' }), prompt: 'tint it' });
    expect(isPng(edit.data?.[0]?.b64_json)).toBe(true);
  });
});

describe('routing and access', () => {
  it('404s unknown models, 403s models the key may not use, 400s models without image output', async () => {
    await expectApiError(client().images.generate({ model: 'no-such-model', prompt: 'x' }), 404, 'model');
    await expectApiError(client(KEY_GEMINI_ONLY).images.generate({ model: 'gpt-image-1', prompt: 'x' }), 403, 'model');
    await expectApiError(client().images.generate({ model: 'gpt-4o', prompt: 'x' }), 400, 'model');
    await expectApiError(client().images.generate({ model: 'gpt-image-1', prompt: '' }), 400, 'prompt');
    await expectApiError(client().images.generate({ model: 'gpt-image-1', prompt: 'x', n: 11 }), 400, 'n');
  });
});

describe('Gemini image models through /v1beta generateContent (pass-through)', () => {
  it('answers with the image parts of the upstream', async () => {
    const ai = new GoogleGenAI({ apiKey: KEY_GEMINI_ONLY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });
    const before = gemini.requests.length;
    const res = await ai.models.generateContent({ model: 'gemini-2.5-flash-image', contents: 'Draw a lighthouse', config: { responseModalities: ['TEXT', 'IMAGE'] } });
    const parts = res.candidates?.[0]?.content?.parts ?? [];
    expect(parts[0]?.text).toBe('[gemini] here is your image');
    expect(parts[1]?.inlineData?.mimeType).toBe('image/png');
    expect(isPng(parts[1]?.inlineData?.data)).toBe(true);
    const sent = gemini.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.path).toBe('/v1beta/models/gemini-2.5-flash-image:generateContent');
    expect(sent[0]?.headers['x-goog-api-key']).toBe(gemini.apiKey);
  });
});

describe('Gemini image translation: what it cannot take as sent', () => {
  it('refuses uploads that are no image (multipart text, a PDF data URL) with a 400 naming the image', async () => {
    const text = await toFile(Buffer.from('just some words, not pixels'), 'notes.txt', { type: 'text/plain' });
    await expectApiError(client().images.edit({ model: 'nano-banana', image: text, prompt: 'make it blue' }), 400, 'image[0]');
    const before = gemini.requests.length;
    const res = await fetch(`${server.url}/v1/images/edits`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'nano-banana', prompt: 'x', images: [{ image_url: `data:application/pdf;base64,${Buffer.from('%PDF-1.4').toString('base64')}` }] }),
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { param: string } }).error.param).toBe('image[0]');
    expect(gemini.requests.length).toBe(before);
    // A PNG sent as application/octet-stream is read by its bytes.
    const png = await toFile(upload('octet'), 'blob', { type: 'application/octet-stream' });
    const ok = await client().images.edit({ model: 'nano-banana', image: png, prompt: 'make it blue' });
    expect(ok.data?.length).toBe(1);
  });

  it('a 200 that is no answer (OpenAI error object, Gemini {}) is retried, not a 502 at once', async () => {
    openai.failNext(200, { error: { message: 'oops', type: 'server_error', param: null, code: null } });
    const fromOpenAI = await client().images.generate({ model: 'gpt-image-1', prompt: 'a kite' }).withResponse();
    expect(fromOpenAI.data.data?.length).toBe(1);
    expect(fromOpenAI.response.headers.get('x-modelgate-attempts')).toBe('2');
    gemini.failNext(200, {});
    const fromGemini = await client().images.generate({ model: 'nano-banana', prompt: 'a kite' }).withResponse();
    expect(fromGemini.data.data?.length).toBe(1);
    expect(fromGemini.response.headers.get('x-modelgate-attempts')).toBe('2');
  });

  it('says in x-modelgate-warnings what it adjusted or dropped (size, quality, user); 1024x1024 needs no word', async () => {
    const { response } = await client().images.generate({ model: 'nano-banana', prompt: 'a kite', size: '1000x10' as '1024x1024', quality: 'low', user: 'end-user-7' }).withResponse();
    const header = response.headers.get('x-modelgate-warnings') ?? '';
    expect(header).toContain('size: adjusted to aspectRatio 21:9, imageSize 1K');
    expect(header).toContain('quality: dropped (not supported by gemini)');
    expect(header).toContain('user: dropped (not supported by gemini)');
    const plain = await client().images.generate({ model: 'nano-banana', prompt: 'a kite', size: '1024x1024' }).withResponse();
    expect(plain.response.headers.get('x-modelgate-warnings')).toBeNull();
  });
});
