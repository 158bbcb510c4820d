import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';
import { duplicateKeyError, inspectJson, protoKeyError, protoKeyPath, tooDeepError, topLevelKeyCount } from '../wire/json-guard.js';
import { ownValue } from '../core/own-key.js';

/** Reads the raw (still content-encoded) body, failing with a 413 GatewayError past `limit` bytes. */
export type BodyReader = (limit: number) => Promise<Uint8Array>;

/** Where the body comes from when the host does not leave it in `request.body` (HandleContext). */
export interface BodySource {
  /** Bytes the host already holds (e.g. after express.json()). */
  body?: Uint8Array;
  /** A lazy reader: nothing is read until an endpoint asks, after the key and route checks. */
  readBody?: BodyReader;
}

/** A request's body as the endpoints read it: at most once, held to the gateway's one limit. */
export interface RequestBody {
  /**
   * The decoded bytes: the limit holds for the bytes on the wire (Content-Length is checked before
   * anything is read) and again after gzip/deflate decoding; past it, a 413 GatewayError.
   */
  bytes(): Promise<Uint8Array>;
  /** The decoded body as UTF-8 text. */
  text(): Promise<string>;
}

/**
 * The body of `request`, from the host's `source` (HandleContext.body / readBody) when it gives
 * one, else from `request.body`. Read once: a second caller gets the same bytes (a socket cannot be
 * read twice).
 */
export function requestBody(request: Request, source: BodySource, limit: number): RequestBody {
  let pending: Promise<Uint8Array> | undefined;
  const bytes = () => (pending ??= readBody(request, source, limit));
  return {
    bytes,
    text: async () => utf8.decode(await bytes()),
  };
}

/** One decoder for every body: decode() without `stream` keeps no state between calls. */
const utf8 = new TextDecoder();

async function readBody(request: Request, source: BodySource, limit: number): Promise<Uint8Array> {
  const declared = Number(request.headers.get('content-length') ?? Number.NaN);
  if (declared > limit) throw tooLarge(limit);
  const formats = contentCodings(request.headers.get('content-encoding'));
  let raw: Uint8Array;
  if (source.body) {
    if (source.body.byteLength > limit) throw tooLarge(limit);
    raw = source.body;
  } else if (source.readBody) raw = await source.readBody(limit).catch(asBodyError);
  else raw = await readStream(request.body, limit);
  return formats.length && raw.byteLength ? decodeBody(raw, formats, limit) : raw;
}

type Decoding = 'gzip' | 'deflate';
/** No Content-Encoding (nearly every request): one shared empty list. */
const IDENTITY: readonly Decoding[] = [];
const CODINGS: Record<string, Decoding | null> = { identity: null, gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate' };

/**
 * The decoders for a Content-Encoding header, in the order they were applied; 415 naming
 * `content-encoding` for any coding the gateway cannot undo (br, zstd, ...).
 */
export function contentCodings(header: string | null): readonly Decoding[] {
  if (header === null) return IDENTITY;
  const out: Decoding[] = [];
  for (const token of header.split(',')) {
    const name = token.trim().toLowerCase();
    if (name === '') continue;
    const format = ownValue(CODINGS, name);
    if (format === undefined) {
      throw new GatewayError('unsupported_media_type', `Content-Encoding '${name}' is not supported; send the body uncompressed, gzip or deflate.`, {
        param: 'content-encoding',
        detail: 'unsupported_content_encoding',
      });
    }
    if (format) out.push(format);
  }
  return out;
}

async function decodeBody(raw: Uint8Array, formats: readonly Decoding[], limit: number): Promise<Uint8Array> {
  let stream = new Blob([raw as Uint8Array<ArrayBuffer>]).stream();
  for (const f of [...formats].reverse()) stream = stream.pipeThrough(new DecompressionStream(f));
  try {
    return await readStream(stream, limit);
  } catch (err) {
    if (err instanceof GatewayError) throw err;
    throw new GatewayError('invalid_request', `The request body is not valid ${formats.join(' + ')} data (Content-Encoding).`, { param: 'content-encoding' });
  }
}

async function readStream(body: ReadableStream<Uint8Array> | null, limit: number): Promise<Uint8Array> {
  if (!body) return new Uint8Array(0);
  const reader = body.getReader();
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

/** A host reader that failed for its own reasons (client gone, socket error) is the caller's 400, not a 500. */
function asBodyError(err: unknown): never {
  if (err instanceof GatewayError) throw err;
  throw new GatewayError('invalid_request', 'The request body could not be read to its end.', { cause: err });
}

/** The one 413 of a body over `limit` bytes (the bridges' readers throw it too). */
export function tooLarge(limit: number): GatewayError {
  return new GatewayError('payload_too_large', `Request body is larger than the limit of ${limit} bytes.`);
}

/**
 * Parses a JSON object body; 400 when it is not JSON, not an object, nests deeper than
 * MAX_JSON_DEPTH, repeats a top-level key or has a key named `__proto__` (see json-guard.ts). The depth is checked before
 * parsing, so no parser or walker ever sees a deeper body.
 */
export function parseJsonObject(text: string): Record<string, unknown> {
  const keys = topLevelKeyCount(text);
  if (keys < 0) throw tooDeepError('Request body');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (err) {
    // Checked only now: a blank text nests nothing and fails to parse.
    if (text.trim() === '') throw new GatewayError('invalid_request', 'Request body is empty; expected a JSON object.');
    throw new GatewayError('invalid_request', `Request body is not valid JSON: ${quoteInput((err as Error).message, 200)}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new GatewayError('invalid_request', 'Request body must be a JSON object.');
  }
  // JSON.parse keeps one of each key: fewer than the text lists means one came twice.
  if (keys !== Object.keys(value).length) {
    const duplicate = inspectJson(text).duplicateKey;
    if (duplicate !== undefined) throw duplicateKeyError(duplicate);
  }
  const proto = protoKeyPath(text, value);
  if (proto !== undefined) throw protoKeyError(proto);
  return value as Record<string, unknown>;
}
