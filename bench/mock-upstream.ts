/**
 * Child process: a fast mock vendor on 127.0.0.1 speaking OpenAI chat (POST /v1/chat/completions)
 * and Anthropic Messages (POST /v1/messages), each sync and SSE (one event per word, written as
 * separate writes). It checks only what would make a real vendor reject the call (key, required
 * fields), so translation mistakes show up as errors instead of fast garbage.
 * OpenAI JSON answers of a model ending in `-chunked` come chunked (no Content-Length), as most
 * vendors send them. OpenAI streams of a model ending in `-paced` send one chunk every BENCH_PACE_MS for
 * BENCH_PACE_CHUNKS chunks (the memory scenario: many long-lived open streams).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { REPLY_WORDS, UPSTREAM_KEY } from './settings.js';
import { serveChild } from './child-ipc.js';

const TEXT = REPLY_WORDS.join('');
const CREATED = 1_700_000_000;
const SSE_HEADERS = { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' };
const JSON_HEADERS = { 'content-type': 'application/json' };
const PACE_MS = Number(process.env.BENCH_PACE_MS ?? 500);
const PACE_CHUNKS = Number(process.env.BENCH_PACE_CHUNKS ?? 60);

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.once('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.once('error', reject);
  });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { ...JSON_HEADERS, 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function parseObject(text: string): Record<string, unknown> | undefined {
  try {
    const v = JSON.parse(text) as unknown;
    return v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined;
  } catch {
    return undefined;
  }
}

function openAIError(res: ServerResponse, status: number, message: string): void {
  sendJson(res, status, { error: { message, type: 'invalid_request_error', param: null, code: null } });
}

function openAIChat(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | undefined): void {
  if (req.headers.authorization !== `Bearer ${UPSTREAM_KEY}`) return openAIError(res, 401, 'Incorrect API key provided.');
  if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
    return openAIError(res, 400, 'model and a non-empty messages array are required');
  }
  const model = body.model;
  const promptTokens = 10 * body.messages.length;
  const usage = { prompt_tokens: promptTokens, completion_tokens: REPLY_WORDS.length, total_tokens: promptTokens + REPLY_WORDS.length };
  if (body.stream !== true && model.endsWith('-chunked')) {
    // As most vendors answer: Transfer-Encoding chunked, the JSON in two writes.
    const text = JSON.stringify({
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage,
    });
    res.writeHead(200, JSON_HEADERS);
    const half = text.length >> 1;
    res.write(text.slice(0, half));
    res.end(text.slice(half));
    return;
  }
  if (body.stream !== true) {
    return sendJson(res, 200, {
      id: 'chatcmpl-bench',
      object: 'chat.completion',
      created: CREATED,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
      usage,
    });
  }
  const includeUsage = (body.stream_options as { include_usage?: unknown } | undefined)?.include_usage === true;
  const head = `{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":${CREATED},"model":${JSON.stringify(model)},`;
  const frame = (choices: string, extra = '') => `data: ${head}"choices":${choices}${extra}}\n\n`;
  const choice = (delta: string, finish: string | null) =>
    `[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]`;
  const finish = () => {
    res.write(frame(choice('{}', 'stop')));
    if (includeUsage) res.write(frame('[]', `,"usage":${JSON.stringify(usage)}`));
    res.end('data: [DONE]\n\n');
  };
  res.writeHead(200, SSE_HEADERS);
  res.write(frame(choice('{"role":"assistant","content":""}', null)));
  if (model.endsWith('-paced')) return pacedWords(res, (w) => frame(choice(`{"content":${JSON.stringify(w)}}`, null)), finish);
  for (const w of REPLY_WORDS) res.write(frame(choice(`{"content":${JSON.stringify(w)}}`, null)));
  finish();
}

/** Writes PACE_CHUNKS words (cycling through the reply), one every PACE_MS; stops if the client leaves. */
function pacedWords(res: ServerResponse, frameOf: (word: string) => string, finish: () => void): void {
  let sent = 0;
  const timer = setInterval(() => {
    if (sent === PACE_CHUNKS) {
      clearInterval(timer);
      return finish();
    }
    res.write(frameOf(REPLY_WORDS[sent % REPLY_WORDS.length] as string));
    sent++;
  }, PACE_MS);
  res.once('close', () => clearInterval(timer));
}

function anthropicError(res: ServerResponse, status: number, type: string, message: string): void {
  sendJson(res, status, { type: 'error', error: { type, message }, request_id: 'req_bench' });
}

function anthropicMessages(req: IncomingMessage, res: ServerResponse, body: Record<string, unknown> | undefined): void {
  if (req.headers['x-api-key'] !== UPSTREAM_KEY) return anthropicError(res, 401, 'authentication_error', 'invalid x-api-key');
  if (!req.headers['anthropic-version']) return anthropicError(res, 400, 'invalid_request_error', 'anthropic-version: header is required');
  if (!body || typeof body.model !== 'string' || !Array.isArray(body.messages) || body.messages.length === 0) {
    return anthropicError(res, 400, 'invalid_request_error', 'model and messages are required');
  }
  if (typeof body.max_tokens !== 'number') return anthropicError(res, 400, 'invalid_request_error', 'max_tokens: Field required');
  const model = body.model;
  const inputTokens = 10 * body.messages.length;
  if (body.stream !== true) {
    return sendJson(res, 200, {
      id: 'msg_bench',
      type: 'message',
      role: 'assistant',
      model,
      content: [{ type: 'text', text: TEXT }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: inputTokens, output_tokens: REPLY_WORDS.length },
    });
  }
  const ev = (name: string, data: string) => `event: ${name}\ndata: ${data}\n\n`;
  res.writeHead(200, SSE_HEADERS);
  res.write(
    ev(
      'message_start',
      `{"type":"message_start","message":{"id":"msg_bench","type":"message","role":"assistant","model":${JSON.stringify(model)},"content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":${inputTokens},"output_tokens":1}}}`,
    ),
  );
  res.write(ev('content_block_start', '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}'));
  res.write(ev('ping', '{"type": "ping"}'));
  for (const w of REPLY_WORDS) {
    res.write(ev('content_block_delta', `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":${JSON.stringify(w)}}}`));
  }
  res.write(ev('content_block_stop', '{"type":"content_block_stop","index":0}'));
  res.write(ev('message_delta', `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":${REPLY_WORDS.length}}}`));
  res.end(ev('message_stop', '{"type":"message_stop"}'));
}

const server = createServer((req, res) => {
  readBody(req)
    .then((text) => {
      const body = parseObject(text);
      const path = (req.url ?? '/').split('?')[0];
      if (req.method === 'POST' && path === '/v1/chat/completions') return openAIChat(req, res, body);
      if (req.method === 'POST' && path === '/v1/messages') return anthropicMessages(req, res, body);
      return openAIError(res, 404, `no route ${req.method} ${path}`);
    })
    .catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
});
serveChild(server);
