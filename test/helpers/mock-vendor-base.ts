/**
 * The HTTP plumbing shared by every strict mock vendor (mock-openai.ts, mock-anthropic.ts,
 * mock-gemini.ts and the media mocks through mock-media-server.ts): a node:http server on an
 * ephemeral 127.0.0.1 port that reads and records each request, applies the `hangNext` and
 * `failNext` queues of the shared mock-vendor contract, tracks client disconnects and destroys its
 * sockets on close. Everything vendor-specific (auth, validation, replies, stream control) stays in
 * the vendor's handler.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  rawBody: string;
  /** Parsed JSON (undefined when empty or not JSON); the media mocks record multipart bodies as `{ fields, files }`. */
  body: unknown;
}

export interface MockVendor {
  baseURL: string;
  apiKey: string;
  requests: RecordedRequest[];
  failNext(status: number, body: unknown, headers?: Record<string, string>): void;
  hangNext(ms: number): void;
  close(): Promise<void>;
}

/** A mock vendor as the shared server returns it: the contract plus disconnect tracking. */
export interface MockVendorServer extends MockVendor {
  /** Origin without a base path, e.g. http://127.0.0.1:PORT */
  origin: string;
  /** How many responses were cut by the client before they finished. */
  disconnects: number;
  /** Resolves the next time a client closes a connection before its response finished. */
  nextDisconnect(): Promise<void>;
}

/** What `failNext` queued: the next request answers this instead. */
interface QueuedFailure {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface ParsedBody {
  body: unknown;
  /** The body was not empty and could not be parsed. */
  parseError: boolean;
}

/** One request as the vendor handler sees it. */
export interface MockExchange {
  req: IncomingMessage;
  res: ServerResponse;
  url: URL;
  recorded: RecordedRequest;
  raw: Buffer;
  parseError: boolean;
  /** 1-based number of this request on this server. */
  seq: number;
  /** Whether the client went away before the response finished. */
  closed(): boolean;
  /** Resolves when the response closes (at once if the client already went away). */
  untilClosed(): Promise<void>;
  /** Destroys the connection on purpose (a broken stream); not counted as a client disconnect. */
  cut(): void;
}

export interface MockVendorOptions {
  apiKey: string;
  /** Appended to the origin to form `baseURL` (openai: `/v1`). */
  basePath?: string;
  /** Default: JSON. */
  parseBody?(raw: Buffer, headers: Record<string, string>): ParsedBody | Promise<ParsedBody>;
  /** Writes a failure queued by `failNext`, in the vendor's own framing. */
  sendFailure(ex: MockExchange, failure: QueuedFailure): void;
  /** Answers a crash of the mock itself (only called while no headers were sent). */
  sendCrash(res: ServerResponse, err: unknown, seq: number): void;
  /** The vendor-specific part: auth, validation, the reply. */
  handle(ex: MockExchange): void | Promise<void>;
}

/**
 * A JSON body. One sent under another declared type (`text/plain;charset=UTF-8`, what fetch gives a
 * bare string body; multipart; ...) is refused like one that does not parse, as a strict upstream
 * would: the gateway must say what it sends. (A missing content-type is tolerated.)
 */
export function parseJsonBody(raw: Buffer, contentType?: string): ParsedBody {
  if (!raw.length) return { body: undefined, parseError: false };
  if (contentType && !/^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i.test(contentType)) return { body: undefined, parseError: true };
  try {
    return { body: JSON.parse(raw.toString('utf8')) as unknown, parseError: false };
  } catch {
    return { body: undefined, parseError: true };
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

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export async function startMockVendorServer(opts: MockVendorOptions): Promise<MockVendorServer> {
  const requests: RecordedRequest[] = [];
  const failQueue: QueuedFailure[] = [];
  const hangQueue: number[] = [];
  const sockets = new Set<Socket>();
  let disconnectWaiters: (() => void)[] = [];
  let seqCounter = 0;

  const vendor: MockVendorServer = {
    baseURL: '',
    origin: '',
    apiKey: opts.apiKey,
    requests,
    disconnects: 0,
    failNext(status, body, headers) {
      failQueue.push({ status, body, ...(headers ? { headers } : {}) });
    },
    hangNext(ms) {
      hangQueue.push(ms);
    },
    nextDisconnect() {
      return new Promise<void>((r) => disconnectWaiters.push(r));
    },
    close: async () => {},
  };

  async function serve(req: IncomingMessage, res: ServerResponse, seq: number): Promise<void> {
    const raw = await readBody(req);
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers = headersOf(req);
    const { body, parseError } = opts.parseBody ? await opts.parseBody(raw, headers) : parseJsonBody(raw, headers['content-type']);
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, rawBody: raw.toString('utf8'), body };
    requests.push(recorded);

    let closed = false;
    let selfCut = false;
    res.once('close', () => {
      if (!res.writableFinished && !selfCut) {
        closed = true;
        vendor.disconnects++;
        const waiters = disconnectWaiters;
        disconnectWaiters = [];
        for (const w of waiters) w();
      }
    });
    const ex: MockExchange = {
      req,
      res,
      url,
      recorded,
      raw,
      parseError,
      seq,
      closed: () => closed,
      untilClosed: () => new Promise<void>((r) => (closed ? r() : res.once('close', () => r()))),
      cut() {
        selfCut = true;
        res.socket?.destroy();
      },
    };

    const hang = hangQueue.shift();
    if (hang !== undefined) {
      await new Promise<void>((r) => {
        const t = setTimeout(r, hang);
        res.once('close', () => {
          clearTimeout(t);
          r();
        });
      });
      if (closed) return;
    }
    const fail = failQueue.shift();
    if (fail) return opts.sendFailure(ex, fail);
    await opts.handle(ex);
  }

  const server = createServer((req, res) => {
    const seq = ++seqCounter;
    serve(req, res, seq).catch((err: unknown) => {
      if (!res.headersSent) opts.sendCrash(res, err, seq);
      else res.end();
    });
  });
  server.on('connection', (s: Socket) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  vendor.origin = `http://127.0.0.1:${port}`;
  vendor.baseURL = `${vendor.origin}${opts.basePath ?? ''}`;
  vendor.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return vendor;
}
