/**
 * The mock vendor's OpenAI embeddings API: POST /v1/embeddings. Each text (or token array) gets
 * the same unit vector every time (8 dimensions, or `dimensions`), floats or base64 as asked.
 */
import { vectorToBase64 } from '../../protocols/embeddings/vector-base64.js';
import type { MockRoute } from './route.js';

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
}

/** A deterministic unit vector of `text` (FNV-1a seeded xorshift). */
export function mockVector(text: string, dims: number): number[] {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193) >>> 0;
  const out: number[] = [];
  for (let i = 0; i < dims; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    h >>>= 0;
    out.push(Math.fround((h / 0xffffffff) * 2 - 1));
  }
  const norm = Math.hypot(...out) || 1;
  return out.map((v) => Math.fround(v / norm));
}

export const mockEmbeddingsRoute: MockRoute = async (request, url) => {
  if (request.method !== 'POST' || !url.pathname.endsWith('/embeddings')) return undefined;
  let body: Record<string, unknown>;
  try {
    body = (await request.json()) as Record<string, unknown>;
  } catch {
    return json(400, { error: { message: 'invalid JSON body', type: 'invalid_request_error', param: null, code: null } });
  }
  const input = body.input;
  const items: unknown[] = typeof input === 'string' ? [input] : Array.isArray(input) && input.every((x) => typeof x === 'number') ? [input] : Array.isArray(input) ? input : [];
  if (items.length === 0) return json(400, { error: { message: "'input' is required", type: 'invalid_request_error', param: 'input', code: null } });
  const dims = typeof body.dimensions === 'number' ? body.dimensions : 8;
  const texts = items.map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
  const tokens = texts.reduce((n, t) => n + Math.max(1, Math.ceil(t.length / 4)), 0);
  return json(200, {
    object: 'list',
    data: texts.map((t, index) => ({ object: 'embedding', index, embedding: body.encoding_format === 'base64' ? vectorToBase64(mockVector(t, dims)) : mockVector(t, dims) })),
    model: typeof body.model === 'string' ? body.model : 'mock-embedding',
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  });
};
