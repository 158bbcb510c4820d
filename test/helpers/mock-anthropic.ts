/**
 * A strict mock of api.anthropic.com on 127.0.0.1 (shared mock-vendor contract, see
 * /work/helper-brief.md): POST /v1/messages (JSON + SSE), POST /v1/messages/count_tokens,
 * GET /v1/models[/{id}]. It checks the key (x-api-key or Authorization: Bearer), requires
 * anthropic-version, validates bodies the way the real API does and answers deterministically.
 */
import type { ServerResponse } from 'node:http';
import { applyScript, messageJson, planAnthropicReply, streamEvents, type ScriptedAnthropicReply } from './mock-anthropic-reply.js';
import { MockValidationError, validateAnthropicBody } from './mock-anthropic-validate.js';
import { startMockVendorServer, type MockExchange, type MockVendorServer } from './mock-vendor-base.js';


export interface MockAnthropic extends MockVendorServer {
  /** The next stream sends its first events, then an in-band `event: error` frame and ends. */
  failNextStreamMidway(errorType?: string, message?: string): void;
  /**
   * The next stream ends cleanly but early (a truncated body, no error): after the first content
   * delta (`content`), or with everything but `message_stop` (`stop`).
   */
  endStreamEarlyNext(at: 'content' | 'stop'): void;
  /** The next message answers these blocks (after the computed thinking); first in first out. */
  scriptNext(script: ScriptedAnthropicReply): void;
}

const MOCK_ANTHROPIC_MODELS = [
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

export async function startMockAnthropic(opts: { apiKey?: string } = {}): Promise<MockAnthropic> {
  const apiKey = opts.apiKey ?? 'upstream-secret-anthropic-0123456789';
  let midStreamError: { type: string; message: string } | undefined;
  let endEarly: 'content' | 'stop' | undefined;
  const scripts: ScriptedAnthropicReply[] = [];

  const send = (res: ServerResponse, seq: number, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'request-id': `req_mock_${seq}`, ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };
  const sendError = (res: ServerResponse, seq: number, status: number, message: string): void =>
    send(res, seq, status, { type: 'error', error: { type: ERROR_TYPES[status] ?? 'api_error', message }, request_id: `req_mock_${seq}` });

  async function handle(ex: MockExchange): Promise<void> {
    const { req, res, url, seq } = ex;
    const { headers, rawBody, body } = ex.recorded;
    const ok = (payload: unknown): void => send(res, seq, 200, payload);
    const fail = (status: number, message: string): void => sendError(res, seq, status, message);

    const bearer = /^Bearer\s+(.+)$/i.exec(headers.authorization ?? '')?.[1];
    const key = headers['x-api-key'] ?? bearer;
    if (key === undefined) return fail(401, 'x-api-key header is required');
    if (key !== apiKey) return fail(401, 'invalid x-api-key');
    if (!headers['anthropic-version']) return fail(400, 'anthropic-version: header is required');

    const path = url.pathname;
    if (path === '/v1/models' && req.method === 'GET') {
      const limit = Math.min(1000, Math.max(1, Number(url.searchParams.get('limit') ?? 20) || 20));
      const data = MOCK_ANTHROPIC_MODELS.slice(0, limit).map((m) => ({ type: 'model', ...m }));
      return ok({ data, has_more: data.length < MOCK_ANTHROPIC_MODELS.length, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null });
    }
    const modelMatch = /^\/v1\/models\/(.+)$/.exec(path);
    if (modelMatch && req.method === 'GET') {
      const m = MOCK_ANTHROPIC_MODELS.find((x) => x.id === decodeURIComponent(modelMatch[1] ?? ''));
      return m ? ok({ type: 'model', ...m }) : fail(404, `model: ${modelMatch[1]}`);
    }
    if (path !== '/v1/messages' && path !== '/v1/messages/count_tokens') return fail(404, 'Not Found');
    if (req.method !== 'POST') return fail(405, `Method ${req.method} not allowed`);
    if (body === undefined) return fail(400, rawBody ? 'There was an error parsing the body of your request.' : 'messages: Field required');

    let valid: Record<string, unknown>;
    try {
      const betas = (headers['anthropic-beta'] ?? '').split(',').map((b) => b.trim());
      valid = validateAnthropicBody(body, path === '/v1/messages' ? 'messages' : 'count_tokens', betas);
    } catch (err) {
      if (err instanceof MockValidationError) return fail(400, err.message);
      throw err;
    }
    const model = String(valid.model);
    if (model.includes('nonexistent')) return fail(404, `model: ${model}`);
    if (path === '/v1/messages/count_tokens') {
      return ok({ input_tokens: 10 * (valid.messages as unknown[]).length });
    }

    const planned = planAnthropicReply(valid);
    const script = scripts.shift();
    // Like the real API, the model searches only when the request declares the web search tool.
    const searches = script?.content.some((b) => b.type === 'server_tool_use' && b.name === 'web_search');
    const declared = Array.isArray(valid.tools) && valid.tools.some((t) => typeof (t as { type?: unknown }).type === 'string' && String((t as { type: string }).type).startsWith('web_search_'));
    if (searches && !declared) return fail(500, 'mock: a scripted web search, but the request declares no web search tool');
    const reply = script ? applyScript(planned, script) : planned;
    const id = `msg_mock_${seq}`;
    if (valid.stream !== true) return ok(messageJson(reply, id, model));

    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'request-id': `req_mock_${seq}` });
    const events = streamEvents(reply, id, model);
    const breakAt = midStreamError ? Math.min(3, events.length - 2) : -1;
    const err = midStreamError;
    midStreamError = undefined;
    const early = endEarly;
    endEarly = undefined;
    for (const [i, [name, data]] of events.entries()) {
      if (i === breakAt && err) {
        res.write(`event: error\ndata: ${JSON.stringify({ type: 'error', error: err })}\n\n`);
        break;
      }
      if (early === 'stop' && name === 'message_stop') break;
      // The real API writes `{"type": "ping"}` with a space; keep that quirk.
      res.write(`event: ${name}\ndata: ${name === 'ping' ? '{"type": "ping"}' : JSON.stringify(data)}\n\n`);
      if (early === 'content' && name === 'content_block_delta') break;
    }
    res.end();
  }

  const server = await startMockVendorServer({
    apiKey,
    sendFailure: (ex, f) => send(ex.res, ex.seq, f.status, f.body, f.headers),
    sendCrash: (res, err, seq) => sendError(res, seq, 500, `mock failure: ${String(err)}`),
    handle,
  });
  return Object.assign(server, {
    failNextStreamMidway(errorType = 'overloaded_error', message = 'Overloaded') {
      midStreamError = { type: errorType, message };
    },
    endStreamEarlyNext(at: 'content' | 'stop') {
      endEarly = at;
    },
    scriptNext(script: ScriptedAnthropicReply) {
      scripts.push(script);
    },
  });
}
