/**
 * A strict mock of the Gemini API (`generativelanguage.googleapis.com`, v1beta) on an ephemeral
 * 127.0.0.1 port (node:http), following the shared mock-vendor contract of the helper brief:
 * POST /v1beta/models/{model}:generateContent | :streamGenerateContent (alt=sse -> SSE, otherwise a
 * streamed JSON array) | :countTokens, GET /v1beta/models[/{model}]. Auth via `x-goog-api-key` or
 * `?key=`: a missing key is a 403 PERMISSION_DENIED and a wrong key a 400 INVALID_ARGUMENT with
 * reason API_KEY_INVALID, as the real API answers. Validation lives in mock-gemini-validate.ts and
 * the deterministic answers in mock-gemini-reply.ts.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { computeReply, countTokens, streamChunks, usageOf } from './mock-gemini-reply.js';
import { GoogleError, googleErrorBody, isObj, normalizeRequest, type Json } from './mock-gemini-validate.js';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  rawBody: string;
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

export interface MockGemini extends MockVendor {
  /** Next streamed answer sends its first chunk, then stays open until the client disconnects. */
  holdStreamNext(): void;
  /** Next streamed answer sends its first chunk, then an in-band `{"error":...}` chunk, then closes. */
  failStreamNext(status?: number, message?: string): void;
  /** Resolves the next time a client closes a connection before its response finished. */
  nextDisconnect(): Promise<void>;
  disconnects: number;
}

export interface MockGeminiOptions {
  apiKey?: string;
}

export const MOCK_GEMINI_MODELS = [
  { id: 'gemini-2.5-flash', displayName: 'Gemini 2.5 Flash', thinking: true },
  { id: 'gemini-2.5-pro', displayName: 'Gemini 2.5 Pro', thinking: true },
  { id: 'gemini-2.0-flash', displayName: 'Gemini 2.0 Flash', thinking: false },
  { id: 'gemini-3-pro-preview', displayName: 'Gemini 3 Pro Preview', thinking: true },
];

function modelResource(m: (typeof MOCK_GEMINI_MODELS)[number]): Json {
  return {
    name: `models/${m.id}`,
    version: '001',
    displayName: m.displayName,
    description: `Mock ${m.displayName}`,
    inputTokenLimit: 1048576,
    outputTokenLimit: 65536,
    supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
    temperature: 1,
    topP: 0.95,
    topK: 64,
    maxTemperature: 2,
    thinking: m.thinking,
  };
}

/** Any `gemini-*` / `gemma-*` model exists; everything else is a 404 like the real API. */
function modelExists(model: string): boolean {
  return /^(gemini|gemma)-[A-Za-z0-9._-]+$/.test(model);
}

function notFound(model: string): GoogleError {
  return new GoogleError(404, `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`, 'NOT_FOUND');
}

export async function startMockGemini(opts: MockGeminiOptions = {}): Promise<MockGemini> {
  const apiKey = opts.apiKey ?? 'upstream-secret-gemini-0123456789';
  const requests: RecordedRequest[] = [];
  const failQueue: { status: number; body: unknown; headers?: Record<string, string> }[] = [];
  const hangQueue: number[] = [];
  let holdNext = false;
  let streamFail: { status: number; message: string } | undefined;
  let disconnectWaiters: (() => void)[] = [];
  let counter = 0;
  const sockets = new Set<Socket>();

  const mock: MockGemini = {
    baseURL: '',
    apiKey,
    requests,
    disconnects: 0,
    failNext(status, body, headers) {
      failQueue.push({ status, body, ...(headers ? { headers } : {}) });
    },
    hangNext(ms) {
      hangQueue.push(ms);
    },
    holdStreamNext() {
      holdNext = true;
    },
    failStreamNext(status = 500, message = 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting') {
      streamFail = { status, message };
    },
    nextDisconnect() {
      return new Promise<void>((r) => disconnectWaiters.push(r));
    },
    close: async () => {},
  };

  function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body, null, 2);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json; charset=UTF-8', ...headers });
    res.end(text);
  }

  function authError(url: URL, headers: Record<string, string>): GoogleError | undefined {
    const key = headers['x-goog-api-key'] ?? url.searchParams.get('key') ?? undefined;
    if (key === undefined || key === '') {
      return new GoogleError(403, "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.", 'PERMISSION_DENIED');
    }
    if (key !== apiKey) {
      return new GoogleError(400, 'API key not valid. Please pass a valid API key.', 'INVALID_ARGUMENT', [
        { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com', metadata: { service: 'generativelanguage.googleapis.com' } },
      ]);
    }
    return undefined;
  }

  async function handle(req: IncomingMessage, res: ServerResponse, rawBody: string): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) headers[k] = Array.isArray(v) ? v.join(', ') : v;
    let body: unknown;
    let parseError = false;
    if (rawBody) {
      try {
        body = JSON.parse(rawBody);
      } catch {
        parseError = true;
      }
    }
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, rawBody, body });
    counter++;
    let closed = false;
    res.once('close', () => {
      if (!res.writableFinished) {
        closed = true;
        mock.disconnects++;
        const waiters = disconnectWaiters;
        disconnectWaiters = [];
        for (const w of waiters) w();
      }
    });
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
    if (fail) return send(res, fail.status, fail.body, fail.headers);

    try {
      const auth = authError(url, headers);
      if (auth) throw auth;
      const path = url.pathname;
      if (req.method === 'GET' && path === '/v1beta/models') return listModels(res, url);
      const getOne = /^\/v1beta\/models\/([^:]+)$/.exec(path);
      if (req.method === 'GET' && getOne) {
        const found = MOCK_GEMINI_MODELS.find((m) => m.id === decodeURIComponent(getOne[1]!));
        if (!found) throw new GoogleError(404, `models/${decodeURIComponent(getOne[1]!)} is not found for API version v1beta.`, 'NOT_FOUND');
        return send(res, 200, modelResource(found));
      }
      const action = /^\/v1beta\/models\/([^:/]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
      if (!action) throw new GoogleError(404, `Requested entity was not found. (${req.method} ${path})`, 'NOT_FOUND');
      if (req.method !== 'POST') throw new GoogleError(405, `Method ${req.method} is not allowed on ${path}.`, 'UNIMPLEMENTED');
      const model = decodeURIComponent(action[1]!);
      if (parseError || !rawBody) throw new GoogleError(400, 'Invalid JSON payload received. Unexpected token.');
      if (!modelExists(model)) throw notFound(model);
      if (action[2] === 'countTokens') return countTokensAnswer(res, body, model);
      const normalized = normalizeRequest(body, model);
      if (action[2] === 'generateContent') return generate(res, normalized, model);
      return stream(res, normalized, model, url.searchParams.get('alt') === 'sse', () => closed);
    } catch (e) {
      if (e instanceof GoogleError) return send(res, e.code, googleErrorBody(e));
      throw e;
    }
  }

  function listModels(res: ServerResponse, url: URL): void {
    const size = Math.min(1000, Number(url.searchParams.get('pageSize') ?? 50) || 50);
    const start = Number(url.searchParams.get('pageToken') ?? 0) || 0;
    const page = MOCK_GEMINI_MODELS.slice(start, start + size).map(modelResource);
    const next = start + size < MOCK_GEMINI_MODELS.length ? { nextPageToken: String(start + size) } : {};
    send(res, 200, { models: page, ...next });
  }

  function countTokensAnswer(res: ServerResponse, body: unknown, model: string): void {
    if (!isObj(body)) throw new GoogleError(400, 'Invalid JSON payload received. Expected an object.');
    for (const k of Object.keys(body)) {
      if (!['contents', 'generateContentRequest', 'generate_content_request'].includes(k)) {
        throw new GoogleError(400, `Invalid JSON payload received. Unknown name "${k}": Cannot find field.`);
      }
    }
    const inner = body.generateContentRequest ?? body.generate_content_request;
    if (inner !== undefined && body.contents !== undefined) throw new GoogleError(400, 'contents and generate_content_request cannot both be set.');
    let contents: Json[];
    if (isObj(inner)) {
      if (typeof inner.model !== 'string' || !inner.model.startsWith('models/')) {
        throw new GoogleError(400, '* CountTokensRequest.generate_content_request.model: unexpected model name format');
      }
      const { model: _m, ...rest } = inner;
      contents = normalizeRequest(rest, model).contents as Json[];
    } else {
      contents = normalizeRequest({ contents: body.contents }, model).contents as Json[];
    }
    const total = countTokens(contents);
    send(res, 200, { totalTokens: total, promptTokensDetails: [{ modality: 'TEXT', tokenCount: total }] });
  }

  function generate(res: ServerResponse, req: Json, model: string): void {
    const r = computeReply(req);
    send(res, 200, {
      candidates: [{ content: { parts: r.parts, role: 'model' }, finishReason: r.finishReason, index: 0 }],
      usageMetadata: usageOf(r, true),
      modelVersion: model,
      responseId: `mockresp${counter}`,
    });
  }

  async function stream(res: ServerResponse, req: Json, model: string, sse: boolean, isClosed: () => boolean): Promise<void> {
    const r = computeReply(req);
    const responseId = `mockresp${counter}`;
    const chunks = streamChunks(r, (parts, finish, final) => ({
      candidates: [{ content: { parts, role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0 }],
      usageMetadata: usageOf(r, final),
      modelVersion: model,
      responseId,
    }));
    const hold = holdNext;
    holdNext = false;
    const failure = streamFail;
    streamFail = undefined;
    res.writeHead(200, sse ? { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' } : { 'content-type': 'application/json; charset=UTF-8' });
    res.flushHeaders();
    let first = true;
    const write = (obj: Json): void => {
      if (isClosed()) return;
      if (sse) res.write(`data: ${JSON.stringify(obj)}\r\n\r\n`);
      else res.write(`${first ? '[' : '\n,\r\n'}${JSON.stringify(obj, null, 2)}`);
      first = false;
    };
    for (let i = 0; i < chunks.length; i++) {
      write(chunks[i]!);
      if (i === 0 && hold) {
        await new Promise<void>((done) => (isClosed() ? done() : res.once('close', () => done())));
        return;
      }
      if (i === 0 && failure) {
        write(googleErrorBody(new GoogleError(failure.status, failure.message, failure.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')));
        break;
      }
    }
    if (!sse && !isClosed()) res.write(first ? '[]' : '\n]');
    if (!isClosed()) res.end();
  }

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      handle(req, res, Buffer.concat(chunks).toString('utf8')).catch((err: unknown) => {
        if (!res.headersSent) send(res, 500, { error: { code: 500, message: `mock failure: ${String(err)}`, status: 'INTERNAL' } });
        else res.end();
      });
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.once('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const { port } = server.address() as AddressInfo;
  mock.baseURL = `http://127.0.0.1:${port}`;
  mock.close = () =>
    new Promise<void>((resolve) => {
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    });
  return mock;
}
