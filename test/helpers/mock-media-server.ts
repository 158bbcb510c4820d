/**
 * The server shared by the strict media mocks (mock-media-openai.ts, mock-media-gemini.ts): the
 * common mock-vendor plumbing (mock-vendor-base.ts) plus multipart bodies recorded as fields + file
 * digests, and route handlers that return a MockAnswer (JSON, SSE text or bytes sent in two writes).
 */
import { createHash } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { parseJsonBody, startMockVendorServer, type MockVendorServer, type RecordedRequest } from './mock-vendor-base.js';

export type { MockVendor, RecordedRequest } from './mock-vendor-base.js';

interface RecordedFile {
  field: string;
  filename: string;
  type: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

export interface MultipartBody {
  fields: Array<[string, string]>;
  files: RecordedFile[];
}

/** What a route handler answers. `bytes` bodies are sent as-is. */
export interface MockAnswer {
  status: number;
  headers?: Record<string, string>;
  json?: unknown;
  bytes?: Buffer;
  /** Raw text body (SSE). */
  text?: string;
}

export type MockHandler = (req: RecordedRequest, raw: Buffer, origin: string) => MockAnswer | Promise<MockAnswer>;

export function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export async function parseMultipart(raw: Buffer, contentType: string): Promise<MultipartBody | undefined> {
  try {
    const form = await new Request('http://mock.local/', { method: 'POST', headers: { 'content-type': contentType }, body: new Uint8Array(raw) }).formData();
    const fields: Array<[string, string]> = [];
    const files: RecordedFile[] = [];
    for (const [field, value] of form.entries()) {
      if (typeof value === 'string') fields.push([field, value]);
      else {
        const bytes = Buffer.from(await value.arrayBuffer());
        files.push({ field, filename: value.name, type: value.type, size: bytes.length, sha256: sha256(bytes), bytes });
      }
    }
    return { fields, files };
  } catch {
    return undefined;
  }
}

function writeAnswer(res: ServerResponse, answer: MockAnswer): void {
  const out: Record<string, string> = { ...(answer.headers ?? {}) };
  if (answer.bytes) {
    out['content-length'] ??= String(answer.bytes.length);
    res.writeHead(answer.status, out);
    // Two writes, so the gateway sees more than one chunk.
    const mid = Math.floor(answer.bytes.length / 2);
    res.write(answer.bytes.subarray(0, mid));
    res.end(answer.bytes.subarray(mid));
    return;
  }
  if (answer.text !== undefined) {
    res.writeHead(answer.status, { 'content-type': 'text/event-stream', ...out });
    res.end(answer.text);
    return;
  }
  res.writeHead(answer.status, { 'content-type': 'application/json', ...out });
  res.end(JSON.stringify(answer.json ?? {}));
}

export async function startMediaServer(apiKey: string, basePath: string, handler: MockHandler): Promise<MockVendorServer> {
  const server = await startMockVendorServer({
    apiKey,
    basePath,
    parseBody: async (raw, headers) => {
      const type = headers['content-type'] ?? '';
      return type.startsWith('multipart/form-data') ? { body: await parseMultipart(raw, type), parseError: false } : parseJsonBody(raw);
    },
    sendFailure: (ex, f) => writeAnswer(ex.res, { status: f.status, json: f.body, ...(f.headers ? { headers: f.headers } : {}) }),
    sendCrash: (res) => {
      res.writeHead(500);
      res.end();
    },
    handle: async (ex) => {
      let answer: MockAnswer;
      try {
        answer = await handler(ex.recorded, ex.raw, server.origin);
      } catch (err) {
        answer = { status: 500, json: { error: { message: `mock crashed: ${(err as Error).message}` } } };
      }
      if (ex.res.destroyed) return;
      writeAnswer(ex.res, answer);
    },
  });
  return server;
}

/** A real 8x8 PNG (the same bytes the gateway's mock provider returns). */
export const PNG_BASE64 =
  'iVBORw0KGgoAAAANSUhEUgAAAAgAAAAICAIAAABLbSncAAAAbUlEQVR42g3NQQEAMAgDsUqpFKQgBSmVwvNkIGWLgUjCokSLERErTkjGpkybMTFrzkiFiyq6mCLFFldIjZtqupkmzTbXSIOHGnqYIcMON/8IDhU6TEjYcPnH4qWWXmbJssvtPw4fdfQxR4497ni85GoBf4s30gAAAABJRU5ErkJggg==';

/** Deterministic pseudo-random bytes standing in for an MP4 (large enough to arrive in several chunks). */
export function fakeVideoBytes(seed: string, size = 256 * 1024): Buffer {
  const out = Buffer.alloc(size);
  let block = createHash('sha256').update(seed).digest();
  for (let i = 0; i < size; i += 32) {
    block.copy(out, i, 0, Math.min(32, size - i));
    block = createHash('sha256').update(block).digest();
  }
  out.write('\x00\x00\x00\x18ftypmp42', 0, 'latin1');
  return out;
}
