/**
 * The HTTP plumbing shared by the strict media mocks (mock-media-openai.ts, mock-media-gemini.ts):
 * a node:http server on an ephemeral 127.0.0.1 port that records every request (multipart bodies
 * as fields + file digests), and supports failNext / hangNext per the shared mock-vendor contract.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedFile {
  field: string;
  filename: string;
  type: string;
  size: number;
  sha256: string;
  bytes: Buffer;
}

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  rawBody: string;
  /** Parsed JSON; for multipart: `{ fields: [[name, value], ...], files: RecordedFile[] }`. */
  body: unknown;
}

export interface MultipartBody {
  fields: Array<[string, string]>;
  files: RecordedFile[];
}

export interface MockVendor {
  baseURL: string;
  apiKey: string;
  requests: RecordedRequest[];
  failNext(status: number, body: unknown, headers?: Record<string, string>): void;
  hangNext(ms: number): void;
  close(): Promise<void>;
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

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks)));
    req.once('error', reject);
  });
}

export async function startMediaServer(apiKey: string, basePath: string, handler: MockHandler): Promise<MockVendor> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let failure: MockAnswer | undefined;
  let hangMs = 0;
  let origin = '';

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', origin);
      const headers: Record<string, string> = {};
      for (const [k, v] of Object.entries(req.headers)) if (typeof v === 'string') headers[k] = v;
      const type = headers['content-type'] ?? '';
      let body: unknown;
      if (type.startsWith('multipart/form-data')) body = await parseMultipart(raw, type);
      else if (raw.length) {
        try {
          body = JSON.parse(raw.toString('utf8'));
        } catch {
          body = undefined;
        }
      }
      const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, rawBody: raw.toString('utf8'), body };
      requests.push(recorded);
      if (hangMs > 0) {
        const ms = hangMs;
        hangMs = 0;
        await new Promise((r) => setTimeout(r, ms));
      }
      let answer: MockAnswer;
      if (failure) {
        answer = failure;
        failure = undefined;
      } else {
        try {
          answer = await handler(recorded, raw, origin);
        } catch (err) {
          answer = { status: 500, json: { error: { message: `mock crashed: ${(err as Error).message}` } } };
        }
      }
      if (res.destroyed) return;
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
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    baseURL: `${origin}${basePath}`,
    apiKey,
    requests,
    failNext(status, body, headers) {
      failure = { status, json: body, ...(headers ? { headers } : {}) };
    },
    hangNext(ms) {
      hangMs = ms;
    },
    close() {
      for (const s of sockets) s.destroy();
      return new Promise<void>((r) => server.close(() => r()));
    },
  };
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
