import { GatewayError } from '../errors.js';
import { quoteInput } from '../quote-input.js';
import { duplicateKeyError, inspectJson, tooDeepError } from './json-guard.js';

const BUFFERED_BODY = Symbol.for('modelgate.bufferedBody');
type WithBufferedBody = Request & { [BUFFERED_BODY]?: Uint8Array };

/**
 * Makes the readers below return bytes the host already holds (HandleContext.body) instead of
 * reading `request.body`, so a bridge need not build a Request body stream.
 */
export function attachBufferedBody(request: Request, body: Uint8Array): void {
  (request as WithBufferedBody)[BUFFERED_BODY] = body;
}

/** Reads a request body as text, failing with 413 once it passes `limit` bytes. */
export async function readBodyText(request: Request, limit: number): Promise<string> {
  const bytes = await readBodyBytes(request, limit);
  return new TextDecoder().decode(bytes);
}

export async function readBodyBytes(request: Request, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > limit) throw tooLarge(limit);
  const buffered = (request as WithBufferedBody)[BUFFERED_BODY];
  if (buffered) {
    if (buffered.byteLength > limit) throw tooLarge(limit);
    return buffered;
  }
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  if (chunks.length === 1) return chunks[0] as Uint8Array;
  const out = new Uint8Array(size);
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

function tooLarge(limit: number): GatewayError {
  return new GatewayError('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);
}

/**
 * Parses a JSON object body; 400 when it is not JSON, not an object, nests deeper than
 * MAX_JSON_DEPTH or repeats a top-level key (see json-guard.ts). The depth is checked before
 * parsing, so no parser or walker ever sees a deeper body.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') throw new GatewayError('invalid_request', 'Request body is empty; expected a JSON object.');
  const shape = inspectJson(text);
  if (shape.tooDeep) throw tooDeepError('Request body');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${quoteInput((err as Error).message, 200)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  }
  if (shape.duplicateKey !== undefined) throw duplicateKeyError(shape.duplicateKey);
  return value as Record<string, unknown>;
}
