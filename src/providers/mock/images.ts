/**
 * The mock vendor's OpenAI Images API: POST /v1/images/generations (JSON) and /v1/images/edits
 * (multipart `image` / `image[]`, or JSON `images`). Every image is the same small real PNG.
 */
import type { MockRoute } from './route.js';
import { MOCK_PNG_BASE64 } from './png.js';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

function invalid(message: string, param: string | null): Response {
  return json(400, { error: { message, type: 'invalid_request_error', param, code: null } });
}

interface ImageAsk {
  prompt: unknown;
  n: unknown;
  size: unknown;
  response_format: unknown;
  images: number;
}

function answer(ask: ImageAsk, now: number, edit: boolean): Response {
  if (typeof ask.prompt !== 'string' || ask.prompt.trim() === '') return invalid("'prompt' is required", 'prompt');
  const n = ask.n === undefined ? 1 : Number(ask.n);
  if (!Number.isInteger(n) || n < 1 || n > 10) return invalid("'n' must be an integer from 1 to 10", 'n');
  if (edit && ask.images === 0) return invalid("'image' is required", 'image');
  const asUrl = ask.response_format === 'url';
  const data = Array.from({ length: n }, () => (asUrl ? { url: `data:image/png;base64,${MOCK_PNG_BASE64}` } : { b64_json: MOCK_PNG_BASE64, revised_prompt: null }));
  const inputTokens = ask.prompt.split(/\s+/).filter(Boolean).length + 85 * ask.images;
  return json(200, {
    created: now,
    data,
    background: 'opaque',
    output_format: 'png',
    quality: 'medium',
    size: typeof ask.size === 'string' && ask.size !== 'auto' ? ask.size : '1024x1024',
    usage: { input_tokens: inputTokens, input_tokens_details: { text_tokens: inputTokens - 85 * ask.images, image_tokens: 85 * ask.images }, output_tokens: 16 * n, total_tokens: inputTokens + 16 * n },
  });
}

export const mockImagesRoute: MockRoute = async (request, url, now) => {
  if (request.method !== 'POST') return undefined;
  const edit = url.pathname.endsWith('/images/edits');
  if (!edit && !url.pathname.endsWith('/images/generations')) return undefined;
  const type = request.headers.get('content-type') ?? '';
  if (edit && type.startsWith('multipart/form-data')) {
    const form = await request.formData().catch(() => undefined);
    if (!form) return invalid('malformed multipart body', null);
    const images = [...form.getAll('image'), ...form.getAll('image[]')].filter((v) => typeof v !== 'string').length;
    return answer({ prompt: form.get('prompt'), n: form.get('n') ?? undefined, size: form.get('size'), response_format: form.get('response_format'), images }, now, true);
  }
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return invalid('invalid JSON body', null);
  }
  const images = Array.isArray(body.images) ? body.images.length : 0;
  return answer({ prompt: body.prompt, n: body.n, size: body.size, response_format: body.response_format, images }, now, edit);
};
