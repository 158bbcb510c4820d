/**
 * A strict mock of api.anthropic.com on 127.0.0.1 (shared mock-vendor contract, see
 * /work/helper-brief.md): POST /v1/messages (JSON + SSE), POST /v1/messages/count_tokens,
 * GET /v1/models[/{id}]. It checks the key (x-api-key or Authorization: Bearer), requires
 * anthropic-version, validates bodies the way the real API does and answers deterministically.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { messageJson, planAnthropicReply, streamEvents } from './mock-anthropic-reply.js';
import { MockValidationError, validateAnthropicBody } from './mock-anthropic-validate.js';

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

export interface MockAnthropic extends MockVendor {
  /** The next stream sends its first events, then an in-band `event: error` frame and ends. */
  failNextStreamMidway(errorType?: string, message?: string): void;
}

export const MOCK_ANTHROPIC_MODELS = [
  { id: 'claude-sonnet-4-5-20250929', display_name: 'Claude Sonnet 4.5', created_at: '2025-09-29T00:00:00Z' },
  { id: 'claude-haiku-4-5-20251001', display_name: 'Claude Haiku 4.5', created_at: '2025-10-01T00:00:00Z' },
  { id: 'claude-opus-4-1-20250805', display_name: 'Claude Opus 4.1', created_at: '2025-08-05T00:00:00Z' },
];

const ERROR_TYPES: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  500: 'api_error',
  504: 'timeout_error',
  529: 'overloaded_error',
};

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function headersOf(req: IncomingMessage): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(req.headers)) if (v !== undefined) out[k] = Array.isArray(v) ? v.join(', ') : v;
  return out;
}

export async function startMockAnthropic(opts: { apiKey?: string } = {}): Promise<MockAnthropic> {
  const apiKey = opts.apiKey ?? 'upstream-secret-anthropic-0123456789';
  const requests: RecordedRequest[] = [];
  let failure: { status: number; body: unknown; headers?: Record<string, string> } | undefined;
  let hangMs = 0;
  let midStreamError: { type: string; message: string } | undefined;
  let seq = 0;

  const send = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_mock_${seq}`, ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, status: number, message: string): void =>
    send(res, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: `req_mock_${seq}` });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    seq++;
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const rawBody = await readBody(req);
    let body: unknown;
    try {
      body = rawBody ? (JSON.parse(rawBody) as unknown) : undefined;
    } catch {
      body = undefined;
    }
    const headers = headersOf(req);
    requests.push({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers, rawBody, body });

    if (hangMs > 0) {
      const ms = hangMs;
      hangMs = 0;
      await new Promise((r) => setTimeout(r, ms));
      if (res.destroyed) return;
    }
    if (failure) {
      const f = failure;
      failure = undefined;
      return send(res, f.status, f.body, f.headers);
    }

    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
    const key = headers['x-api-key'] ?? bearer;
    if (key === undefined) return sendError(res, 401, 'x-api-key header is required');
    if (key !== apiKey) return sendError(res, 401, 'invalid x-api-key');
    if (!headers['anthropic-version']) return sendError(res, 400, 'anthropic-version: header is required');

    const path = url.pathname;
    if (path === '/v1/models' && req.method === 'GET') {
      const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get('limit') ?? 20) || 20));
      const data = MOCK_ANTHROPIC_MODELS.slice(0, limit).map((m) => ({ type: 'model', ...m }));
      return send(res, 200, { data, has_more: data.length < MOCK_ANTHROPIC_MODELS.length, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null });
    }
    const modelMatch = /^\/v1\/models\/(.+)$/.exec(path);
    if (modelMatch && req.method === 'GET') {
      const m = MOCK_ANTHROPIC_MODELS.find((x) => x.id === decodeURIComponent(modelMatch[1] ?? ''));
      return m ? send(res, 200, { type: 'model', ...m }) : sendError(res, 404, `model: ${modelMatch[1]}`);
    }
    if (path !== '/v1/messages' && path !== '/v1/messages/count_tokens') return sendError(res, 404, 'Not Found');
    if (req.method !== 'POST') return sendError(res, 405, `Method ${req.method} not allowed`);
    if (body === undefined) return sendError(res, 400, rawBody ? 'There was an error parsing the body of your request.' : 'messages: Field required');

    let valid: Record<string, unknown>;
    try {
      const betas = (headers['anthropic-beta'] ?? '').split(',').map((b) => b.trim());
      valid = validateAnthropicBody(body, path === '/v1/messages' ? 'messages' : 'count_tokens', betas);
    } catch (err) {
      if (err instanceof MockValidationError) return sendError(res, 400, err.message);
      throw err;
    }
    const model = String(valid.model);
    if (model.includes('nonexistent')) return sendError(res, 404, `model: ${model}`);
    if (path === '/v1/messages/count_tokens') {
      return send(res, 200, { input_tokens: 10 * (valid.messages as unknown[]).length });
    }

    const reply = planAnthropicReply(valid);
    const id = `msg_mock_${seq}`;
    if (valid.stream !== true) return send(res, 200, messageJson(reply, id, model));

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_mock_${seq}` });
    const events = streamEvents(reply, id, model);
    const breakAt = midStreamError ? Math.min(3, events.length - 2) : -1;
    const err = midStreamError;
    midStreamError = undefined;
    for (const [i, [name, data]] of events.entries()) {
      if (i === breakAt && err) {
        res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error: err })}\n\n`);
        break;
      }
      // The real API writes `{"type": "ping"}` with a space; keep that quirk.
      res.write(`event: ${name}\ndata: ${name === 'ping' ? '{"type": "ping"}' : JSON.stringify(data)}\n\n`);
    }
    res.end();
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendError(res, 500, `mock failure: ${String(err)}`);
      else res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;

  return {
    baseURL: `http://127.0.0.1:${port}`,
    apiKey,
    requests,
    failNext(status, body, headers) {
      failure = { status, body, ...(headers ? { headers } : {}) };
    },
    hangNext(ms) {
      hangMs = ms;
    },
    failNextStreamMidway(errorType = 'overloaded_error', message = 'Overloaded') {
      midStreamError = { type: errorType, message };
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
