/**
 * A strict mock of the OpenAI Chat Completions API on an ephemeral 127.0.0.1 port (node:http).
 * Follows the shared mock-vendor contract (see helper brief): deterministic replies, usage,
 * stop/max-token handling, tool calls, word-per-chunk streams, and OpenAI-shaped 4xx errors for
 * what the real API rejects. Unknown top-level fields are accepted (as OpenAI-compatible servers do)
 * so tests can check they were passed through.
 */
import type { ServerResponse } from 'node:http';
import { jsonSchemaProblem } from './json-schema-check.js';
import { answerEmbeddings } from './mock-openai-embeddings.js';
import { startMockVendorServer, type MockExchange, type MockVendorServer } from './mock-vendor-base.js';
import { argsFromSchema, wordChunks } from './mock-reply-parts.js';

export type { MockVendor, RecordedRequest } from './mock-vendor-base.js';

export interface MockOpenAI extends MockVendorServer {
  /** Next streamed answer sends its first chunks, then stays open until the client disconnects. */
  holdStreamNext(): void;
  /** Next streamed answer sends its first chunks, then waits until `release()` is called, then finishes normally. */
  pauseStreamNext(): { release(): void };
  /** Next streamed answer sends its first chunks, then the connection is destroyed (no [DONE]). */
  breakStreamNext(): void;
  /**
   * The next stream ends cleanly but early (a truncated body, no error): after the first content
   * chunk, before any finish_reason (`content`), or with everything but `data: [DONE]` (`done`,
   * as some OpenAI-compatible servers end their streams).
   */
  endStreamEarlyNext(at: 'content' | 'done'): void;
  /**
   * The next chat completion answers as scripted instead: `text` as its content ('' for an empty
   * answer), or `refusal` (content null, like the API's refusals), with `finish` as finish_reason
   * (default stop).
   */
  scriptNext(script: ChatScript): void;
}

export interface ChatScript {
  text?: string;
  refusal?: string;
  finish?: 'stop' | 'content_filter';
}

export interface MockOpenAIOptions {
  apiKey?: string;
  /** Accept requests without (or with any) key, like a local OpenAI-compatible server. */
  noAuth?: boolean;
  /** Suffix added to the requested model in responses (the "concrete" model). Default `-2024-08-06`. */
  modelSuffix?: string;
  /** Models that take reasoning_effort (others refuse it, like the real API); default OpenAI's o-series and gpt-5. */
  reasoningModels?: RegExp;
}

type Json = Record<string, unknown>;

const VENDOR = 'openai';
const CREATED = 1767225600;
const ROLES = ['system', 'developer', 'user', 'assistant', 'tool', 'function'];
const PART_TYPES: Record<string, string[]> = {
  system: ['text'],
  developer: ['text'],
  user: ['text', 'image_url', 'input_audio', 'file'],
  assistant: ['text', 'refusal'],
  tool: ['text'],
};

class OpenAIError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Standard, padded base64 only, as the real API decodes it (URL-safe `-`/`_` or missing padding is refused). */
function isStandardBase64(data: string): boolean {
  return data.length > 0 && data.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(data);
}

/** An inline image or file must be a `data:<type>;base64,<standard base64>` URL. */
function checkDataUrl(url: unknown, param: string, kind: 'an image' | 'a file'): void {
  if (typeof url !== 'string' || !url.startsWith('data:')) return;
  const m = /^data:([^;,]+);base64,(.*)$/s.exec(url);
  if (!m || !isStandardBase64(m[2] ?? '')) {
    throw new OpenAIError(400, `Invalid '${param}'. Expected a base64-encoded data URL with ${kind} MIME type (e.g. 'data:image/png;base64,aW1nIGJ5dGVzIGhlcmU='), but got invalid base64-encoded bytes.`, param, 'invalid_value');
  }
}

function errorBody(e: OpenAIError): Json {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
}

function checkNumber(body: Json, field: string, min: number, max: number, integer = false): void {
  const v = body[field];
  if (v === undefined || v === null) return;
  if (typeof v !== 'number' || (integer && !Number.isInteger(v))) {
    throw new OpenAIError(400, `Invalid type for '${field}': expected ${integer ? 'an integer' : 'a decimal'}, but got ${typeof v} instead.`, field, 'invalid_type');
  }
  if (v < min) throw new OpenAIError(400, `Invalid '${field}': ${integer ? 'integer' : 'decimal'} below minimum value. Expected a value >= ${min}, but got ${v} instead.`, field, `${integer ? 'integer' : 'decimal'}_below_min_value`);
  if (v > max) throw new OpenAIError(400, `Invalid '${field}': ${integer ? 'integer' : 'decimal'} above maximum value. Expected a value <= ${max}, but got ${v} instead.`, field, `${integer ? 'integer' : 'decimal'}_above_max_value`);
}

/** Rejects what the real API rejects (the subset the gateway could plausibly send). */
function validateChatRequest(body: unknown, reasoningModels = /^(o\d|gpt-5)/): asserts body is Json {
  if (!isObj(body)) throw new OpenAIError(400, 'The request body must be a JSON object.');
  if (typeof body.model !== 'string' || body.model === '') throw new OpenAIError(400, "you must provide a model parameter", 'model', 'missing_required_parameter');
  if (!Array.isArray(body.messages)) throw new OpenAIError(400, "Missing required parameter: 'messages'.", 'messages', 'missing_required_parameter');
  if (body.messages.length === 0) throw new OpenAIError(400, "Invalid 'messages': empty array. Expected an array with minimum length 1, but got an empty array instead.", 'messages', 'empty_array');
  checkNumber(body, 'temperature', 0, 2);
  checkNumber(body, 'top_p', 0, 1);
  checkNumber(body, 'presence_penalty', -2, 2);
  checkNumber(body, 'frequency_penalty', -2, 2);
  checkNumber(body, 'n', 1, 128, true);
  checkNumber(body, 'max_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  checkNumber(body, 'max_completion_tokens', 1, Number.MAX_SAFE_INTEGER, true);
  // Like the real API: non-reasoning models reject reasoning_effort.
  if (body.reasoning_effort != null && !reasoningModels.test(body.model)) {
    throw new OpenAIError(400, `Unsupported parameter: 'reasoning_effort' is not supported with this model.`, 'reasoning_effort', 'unsupported_parameter');
  }
  checkNumber(body, 'top_logprobs', 0, 20, true);
  if (body.top_logprobs !== undefined && body.top_logprobs !== null && body.logprobs !== true) {
    throw new OpenAIError(400, "Invalid value for 'top_logprobs': 'logprobs' must be set to true when 'top_logprobs' is used.", 'top_logprobs');
  }
  if (body.stop !== undefined && body.stop !== null) {
    const ok = typeof body.stop === 'string' || (Array.isArray(body.stop) && body.stop.length <= 4 && body.stop.every((s) => typeof s === 'string'));
    if (!ok) throw new OpenAIError(400, "Invalid 'stop': expected a string or an array of at most 4 strings.", 'stop');
  }
  if (body.stream_options !== undefined && body.stream_options !== null && body.stream !== true) {
    throw new OpenAIError(400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
  }
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw new OpenAIError(400, "Invalid type for 'tools': expected an array.", 'tools', 'invalid_type');
    body.tools.forEach((t, i) => {
      if (!isObj(t) || (t.type !== 'function' && t.type !== 'custom')) throw new OpenAIError(400, `Invalid value for 'tools[${i}].type'.`, `tools[${i}].type`, 'invalid_value');
      if (t.type === 'function' && (!isObj(t.function) || typeof t.function.name !== 'string')) {
        throw new OpenAIError(400, `Missing required parameter: 'tools[${i}].function.name'.`, `tools[${i}].function.name`, 'missing_required_parameter');
      }
      if (t.type === 'function' && !/^[a-zA-Z0-9_-]{1,64}$/.test(String((t.function as Json).name))) {
        throw new OpenAIError(400, `Invalid 'tools[${i}].function.name': string does not match pattern. Expected a string that matches the pattern '^[a-zA-Z0-9_-]+$'.`, `tools[${i}].function.name`, 'invalid_value');
      }
      // Like the real API: parameters must be valid JSON Schema (`"type": "STRING"` is not).
      const fn = t.function as Json | undefined;
      const problem = t.type === 'function' && fn?.parameters != null ? jsonSchemaProblem(fn.parameters) : undefined;
      if (problem) {
        throw new OpenAIError(400, `Invalid schema for function '${String(fn?.name)}': In context=${problem.context}, ${JSON.stringify(problem.value)} is not valid under any of the given schemas.`, `tools[${i}].function.parameters`, 'invalid_function_parameters');
      }
    });
  }
  const answered = new Set<string>();
  let pending: string[] = [];
  body.messages.forEach((m, i) => {
    if (!isObj(m)) throw new OpenAIError(400, `Invalid type for 'messages[${i}]': expected an object.`, `messages[${i}]`, 'invalid_type');
    const role = m.role;
    if (typeof role !== 'string' || !ROLES.includes(role)) {
      throw new OpenAIError(400, `Invalid value: '${String(role)}'. Supported values are: 'system', 'assistant', 'user', 'function', 'tool', and 'developer'.`, `messages[${i}].role`, 'invalid_value');
    }
    if (pending.length && role !== 'tool') {
      throw new OpenAIError(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`, `messages.[${i}].role`);
    }
    const content = m.content;
    if (Array.isArray(content)) {
      const allowed = PART_TYPES[role] ?? [];
      content.forEach((p, j) => {
        const type = isObj(p) ? p.type : undefined;
        if (typeof type !== 'string' || !allowed.includes(type)) {
          throw new OpenAIError(400, `Invalid value: '${String(type)}'. Supported values are: ${allowed.map((a) => `'${a}'`).join(', ')}.`, `messages[${i}].content[${j}].type`, 'invalid_value');
        }
        const part = p as Json;
        if (type === 'image_url' && isObj(part.image_url)) checkDataUrl(part.image_url.url, `messages[${i}].content[${j}].image_url.url`, 'an image');
        if (type === 'file' && isObj(part.file)) checkDataUrl(part.file.file_data, `messages[${i}].content[${j}].file.file_data`, 'a file');
      });
    } else if (typeof content !== 'string' && !(role === 'assistant' && (content === null || content === undefined))) {
      throw new OpenAIError(400, `Invalid type for 'messages[${i}].content': expected one of a string or array of objects.`, `messages[${i}].content`, 'invalid_type');
    }
    if (role === 'assistant' && Array.isArray(m.tool_calls)) {
      pending = m.tool_calls.map((tc) => (isObj(tc) && typeof tc.id === 'string' ? tc.id : ''));
      for (const id of pending) {
        // As OpenAI: a tool call id names one call of the whole conversation.
        if (answered.has(id)) throw new OpenAIError(400, `Invalid parameter: Duplicate value for 'tool_call_id' of ${id} in message[${i}]. Please ensure all 'tool_call_id' values are unique.`, `messages.[${i}].tool_calls`, 'invalid_value');
        answered.add(id);
      }
    }
    if (role === 'tool') {
      const id = m.tool_call_id;
      if (typeof id !== 'string' || !answered.has(id)) {
        throw new OpenAIError(400, "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.", `messages.[${i}].role`);
      }
      pending = pending.filter((p) => p !== id);
    }
  });
  if (pending.length) {
    throw new OpenAIError(400, `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${pending.join(', ')}`, 'messages');
  }
}

function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Json => isObj(p) && p.type === 'text' && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join(' ');
}

interface ToolCallOut {
  id: string;
  name: string;
  arguments: string;
}

interface Reply {
  text: string | null;
  toolCalls: ToolCallOut[];
  finish: 'stop' | 'length' | 'tool_calls' | 'content_filter';
  /** The model declined: `message.refusal` (content null), streamed as `delta.refusal`. */
  refusal?: string;
  promptTokens: number;
  completionTokens: number;
}


/** The deterministic answer of the shared mock contract. */
function computeReply(body: Json): Reply {
  const messages = body.messages as Json[];
  const promptTokens = 10 * messages.filter((m) => m.role !== 'system' && m.role !== 'developer').length;
  const last = messages[messages.length - 1]!;
  const tools = Array.isArray(body.tools) ? body.tools.filter((t): t is Json => isObj(t) && t.type === 'function' && isObj(t.function)) : [];
  if (tools.length && body.tool_choice !== 'none' && last.role !== 'tool') {
    const toolCalls = tools.slice(0, 2).map((t, i) => {
      const fn = t.function as Json;
      return { id: `call_${i + 1}`, name: String(fn.name), arguments: JSON.stringify(argsFromSchema(fn.parameters)) };
    });
    return { text: null, toolCalls, finish: 'tool_calls', promptTokens, completionTokens: 5 * toolCalls.length };
  }
  let text: string;
  if (last.role === 'tool') {
    let start = messages.length - 1;
    while (start > 0 && messages[start - 1]!.role === 'tool') start--;
    text = `[${VENDOR}] tool results: ${messages.slice(start).map((m) => textOf(m.content)).join('; ')}`;
  } else {
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    text = `[${VENDOR}] you said: ${lastUser ? textOf(lastUser.content) : ''}`;
    if (lastUser && Array.isArray(lastUser.content)) {
      for (const p of lastUser.content) {
        if (isObj(p) && p.type === 'image_url') text += ' [image]';
        if (isObj(p) && p.type === 'file') text += ' [pdf]';
      }
    }
  }
  let finish: Reply['finish'] = 'stop';
  const stops = typeof body.stop === 'string' ? [body.stop] : Array.isArray(body.stop) ? (body.stop as string[]) : [];
  let cut = -1;
  for (const s of stops) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  if (cut >= 0) text = text.slice(0, cut);
  const max = typeof body.max_completion_tokens === 'number' ? body.max_completion_tokens : typeof body.max_tokens === 'number' ? body.max_tokens : undefined;
  const words = text.split(/\s+/).filter(Boolean);
  if (max !== undefined && words.length > max) {
    text = words.slice(0, max).join(' ');
    finish = 'length';
  }
  return { text, toolCalls: [], finish, promptTokens, completionTokens: text.split(/\s+/).filter(Boolean).length };
}

function usageOf(r: Reply): Json {
  return { prompt_tokens: r.promptTokens, completion_tokens: r.completionTokens, total_tokens: r.promptTokens + r.completionTokens };
}

/** Words with their leading spaces kept: "a b  c" -> ["a", " b", "  c"]. */

export async function startMockOpenAI(opts: MockOpenAIOptions = {}): Promise<MockOpenAI> {
  const apiKey = opts.apiKey ?? `upstream-secret-${VENDOR}-0123456789`;
  const suffix = opts.modelSuffix ?? '-2024-08-06';
  let holdNext = false;
  let breakNext = false;
  let endEarly: 'content' | 'done' | undefined;
  let pauseNext: Promise<void> | undefined;
  let scriptedNext: ChatScript | undefined;

  function sendJson(res: ServerResponse, seq: number, status: number, body: unknown, headers: Record<string, string> = {}): void {
    const text = typeof body === 'string' ? body : JSON.stringify(body);
    res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', 'x-request-id': `req_mock_${seq}`, ...headers });
    res.end(text);
  }

  async function handle(ex: MockExchange): Promise<void> {
    const { req, res, url, seq } = ex;
    const { headers, rawBody, body } = ex.recorded;
    const answer = (status: number, payload: unknown): void => sendJson(res, seq, status, payload);

    const auth = headers.authorization ?? '';
    const m = /^Bearer (.+)$/.exec(auth);
    if (opts.noAuth) {
      // no credential required
    } else if (!m) {
      return answer(401, errorBody(new OpenAIError(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).", null, null)));
    } else if (m[1] !== apiKey) {
      const shown = `${m[1]!.slice(0, 3)}*****${m[1]!.slice(-4)}`;
      return answer(401, errorBody(new OpenAIError(401, `Incorrect API key provided: ${shown}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key')));
    }

    if (req.method === 'GET' && url.pathname === '/v1/models') {
      return answer(200, { object: 'list', data: ['gpt-4o', 'gpt-4o-mini'].map((id) => ({ id, object: 'model', created: CREATED, owned_by: 'system' })) });
    }
    if (req.method === 'POST' && url.pathname === '/v1/embeddings') {
      if (ex.parseError || !rawBody) return answer(400, errorBody(new OpenAIError(400, 'We could not parse the JSON body of your request.')));
      const out = answerEmbeddings(body);
      return answer(out.status, out.body);
    }
    if (url.pathname !== '/v1/chat/completions') {
      return answer(404, errorBody(new OpenAIError(404, `Invalid URL (${req.method} ${url.pathname})`, null, null)));
    }
    if (req.method !== 'POST') return answer(405, errorBody(new OpenAIError(405, `Invalid method for URL (${req.method} ${url.pathname})`)));
    if (ex.parseError || !rawBody) {
      return answer(400, errorBody(new OpenAIError(400, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)")));
    }
    try {
      validateChatRequest(body, opts.reasoningModels);
    } catch (e) {
      if (e instanceof OpenAIError) return answer(e.status, errorBody(e));
      throw e;
    }
    const reply = computeReply(body);
    const script = scriptedNext;
    scriptedNext = undefined;
    if (script) {
      reply.toolCalls = [];
      reply.finish = script.finish ?? 'stop';
      if (script.refusal !== undefined) {
        reply.text = null;
        reply.refusal = script.refusal;
      } else if (script.text !== undefined) reply.text = script.text;
      reply.completionTokens = wordChunks(script.refusal ?? reply.text ?? '').length;
    }
    const id = `chatcmpl-mock${seq}`;
    const model = `${String(body.model)}${suffix}`;
    const n = typeof body.n === 'number' ? body.n : 1;
    if (body.stream === true) {
      const hold = holdNext;
      const cut = breakNext;
      const pause = pauseNext;
      const early = endEarly;
      holdNext = false;
      breakNext = false;
      pauseNext = undefined;
      endEarly = undefined;
      const includeUsage = isObj(body.stream_options) && body.stream_options.include_usage === true;
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'x-request-id': `req_mock_${seq}` });
      res.flushHeaders();
      const send = (chunk: Json | '[DONE]') => {
        if (!ex.closed()) res.write(`data: ${chunk === '[DONE]' ? chunk : JSON.stringify(chunk)}\n\n`);
      };
      const chunk = (index: number, delta: Json, finish: string | null = null): Json => ({
        id,
        object: 'chat.completion.chunk',
        created: CREATED,
        model,
        system_fingerprint: 'fp_mock',
        choices: [{ index, delta, logprobs: null, finish_reason: finish }],
      });
      for (let c = 0; c < n; c++) {
        if (reply.text !== null) {
          send(chunk(c, { role: 'assistant', content: '', refusal: null }));
          const words = wordChunks(reply.text);
          for (let w = 0; w < words.length; w++) {
            send(chunk(c, { content: words[w] }));
            if (cut && c === 0 && w === 0) {
              ex.cut();
              return;
            }
            if (early === 'content' && c === 0 && w === 0) {
              res.end();
              return;
            }
            if (pause && c === 0 && w === 0) {
              await Promise.race([pause, ex.untilClosed()]);
              if (ex.closed()) return;
            }
            if (hold && c === 0 && w === 0) {
              await ex.untilClosed();
              return;
            }
          }
        } else if (reply.refusal !== undefined) {
          send(chunk(c, { role: 'assistant', content: null, refusal: '' }));
          for (const w of wordChunks(reply.refusal)) send(chunk(c, { refusal: w }));
        } else {
          send(chunk(c, { role: 'assistant', content: null }));
          reply.toolCalls.forEach((tc, k) => {
            send(chunk(c, { tool_calls: [{ index: k, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }] }));
            const half = Math.ceil(tc.arguments.length / 2);
            send(chunk(c, { tool_calls: [{ index: k, function: { arguments: tc.arguments.slice(0, half) } }] }));
            send(chunk(c, { tool_calls: [{ index: k, function: { arguments: tc.arguments.slice(half) } }] }));
          });
          if (hold) {
            await ex.untilClosed();
            return;
          }
        }
        send(chunk(c, {}, reply.finish));
      }
      if (includeUsage) {
        send({ id, object: 'chat.completion.chunk', created: CREATED, model, system_fingerprint: 'fp_mock', choices: [], usage: usageOf(reply) });
      }
      if (early !== 'done') send('[DONE]');
      if (!ex.closed()) res.end();
      return;
    }
    const message: Json = { role: 'assistant', content: reply.text, refusal: reply.refusal ?? null, annotations: [] };
    if (reply.toolCalls.length) {
      message.tool_calls = reply.toolCalls.map((tc) => ({ id: tc.id, type: 'function', function: { name: tc.name, arguments: tc.arguments } }));
    }
    const choices = Array.from({ length: n }, (_, index) => ({ index, message, logprobs: null, finish_reason: reply.finish }));
    return answer(200, {
      id,
      object: 'chat.completion',
      created: CREATED,
      model,
      choices,
      usage: { ...usageOf(reply), prompt_tokens_details: { cached_tokens: 0, audio_tokens: 0 }, completion_tokens_details: { reasoning_tokens: 0, audio_tokens: 0, accepted_prediction_tokens: 0, rejected_prediction_tokens: 0 } },
      service_tier: 'default',
      system_fingerprint: 'fp_mock',
    });
  }

  const server = await startMockVendorServer({
    apiKey,
    basePath: '/v1',
    sendFailure: (ex, f) => sendJson(ex.res, ex.seq, f.status, f.body, f.headers),
    sendCrash: (res, err, seq) => sendJson(res, seq, 500, { error: { message: `mock failure: ${String(err)}`, type: 'server_error', param: null, code: null } }),
    handle,
  });
  return Object.assign(server, {
    holdStreamNext() {
      holdNext = true;
    },
    breakStreamNext() {
      breakNext = true;
    },
    endStreamEarlyNext(at: 'content' | 'done') {
      endEarly = at;
    },
    scriptNext(script: ChatScript) {
      scriptedNext = script;
    },
    pauseStreamNext() {
      let release = () => {};
      pauseNext = new Promise<void>((r) => (release = r));
      return { release: () => release() };
    },
  });
}

/** Alias following the `startMock<Vendor>` naming with a single capital. */
