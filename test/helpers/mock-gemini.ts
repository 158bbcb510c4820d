/**
 * A strict mock of the Gemini API (`generativelanguage.googleapis.com`, v1beta) on an ephemeral
 * 127.0.0.1 port (node:http), following the shared mock-vendor contract of the helper brief:
 * POST /v1beta/models/{model}:generateContent | :streamGenerateContent (alt=sse -> SSE, otherwise a
 * streamed JSON array) | :countTokens | :embedContent | :batchEmbedContents (mock-gemini-embeddings.ts), GET /v1beta/models[/{model}]. Auth via `x-goog-api-key` or
 * `?key=`: a missing key is a 403 PERMISSION_DENIED and a wrong key a 400 INVALID_ARGUMENT with
 * reason API_KEY_INVALID, as the real API answers. Validation lives in mock-gemini-validate.ts and
 * the deterministic answers in mock-gemini-reply.ts. The Interactions API (`/v1beta/interactions`)
 * is served on the same origin by mock-gemini-interactions.ts.
 */
import type { ServerResponse } from 'node:http';
import { createInteractionsMock, type InteractionsMock } from './mock-gemini-interactions.js';
import { answerGeminiEmbed } from './mock-gemini-embeddings.js';
import { applyScript, computeReply, countTokens, streamChunks, usageOf, type GeminiReply, type ScriptedGeminiReply } from './mock-gemini-reply.js';
import { GoogleError, googleErrorBody, isObj, normalizeRequest, type Json } from './mock-gemini-validate.js';
import { startMockVendorServer, type MockExchange, type MockVendorServer } from './mock-vendor-base.js';


export interface MockGemini extends MockVendorServer {
  /** Next streamed answer sends its first chunk, then stays open until the client disconnects. */
  holdStreamNext(): void;
  /** Next streamed answer sends its first chunk, then an in-band `{"error":...}` chunk, then closes. */
  failStreamNext(status?: number, message?: string): void;
  /** The Interactions API: stored interactions and its stream controls. */
  interactions: InteractionsMock;
  /** The next stream sends its first chunk (no finishReason) and ends cleanly: a truncated body, no error. */
  endStreamEarlyNext(): void;
  /** The next generateContent answers these parts (after the computed thoughts), with this grounding; first in first out. */
  scriptNext(script: ScriptedGeminiReply): void;
}

export interface MockGeminiOptions {
  apiKey?: string;
}

const MOCK_GEMINI_MODELS = [
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
  let holdNext = false;
  let streamFail: { status: number; message: string } | undefined;
  const interactions = createInteractionsMock();
  let endEarly = false;
  const scripts: ScriptedGeminiReply[] = [];

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

  async function handle(ex: MockExchange): Promise<void> {
    const { req, res, url } = ex;
    const { headers, rawBody, body } = ex.recorded;
    try {
      const auth = authError(url, headers);
      if (auth) throw auth;
      const path = url.pathname;
      if (path === '/v1beta/interactions' || path.startsWith('/v1beta/interactions/')) return await interactions.handle(ex, send);
      if (req.method === 'GET' && path === '/v1beta/models') return listModels(res, url);
      const getOne = /^\/v1beta\/models\/([^:]+)$/.exec(path);
      if (req.method === 'GET' && getOne) {
        const found = MOCK_GEMINI_MODELS.find((m) => m.id === decodeURIComponent(getOne[1]!));
        if (!found) throw new GoogleError(404, `models/${decodeURIComponent(getOne[1]!)} is not found for API version v1beta.`, 'NOT_FOUND');
        return send(res, 200, modelResource(found));
      }
      const embed = /^\/v1beta\/models\/([^:/]+):(embedContent|batchEmbedContents)$/.exec(path);
      if (embed) {
        if (req.method !== 'POST') throw new GoogleError(405, `Method ${req.method} is not allowed on ${path}.`, 'UNIMPLEMENTED');
        if (ex.parseError || !rawBody) throw new GoogleError(400, 'Invalid JSON payload received. Unexpected token.');
        return send(res, 200, answerGeminiEmbed(embed[2] as 'embedContent' | 'batchEmbedContents', decodeURIComponent(embed[1]!), body));
      }
      const action = /^\/v1beta\/models\/([^:/]+):(generateContent|streamGenerateContent|countTokens)$/.exec(path);
      if (!action) throw new GoogleError(404, `Requested entity was not found. (${req.method} ${path})`, 'NOT_FOUND');
      if (req.method !== 'POST') throw new GoogleError(405, `Method ${req.method} is not allowed on ${path}.`, 'UNIMPLEMENTED');
      const model = decodeURIComponent(action[1]!);
      if (ex.parseError || !rawBody) throw new GoogleError(400, 'Invalid JSON payload received. Unexpected token.');
      if (!modelExists(model)) throw notFound(model);
      if (action[2] === 'countTokens') return countTokensAnswer(res, body, model);
      const normalized = normalizeRequest(body, model);
      if (action[2] === 'generateContent') return generate(res, normalized, model, ex.seq);
      return stream(ex, normalized, model, url.searchParams.get('alt') === 'sse');
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

  function reply(req: Json): GeminiReply {
    const computed = computeReply(req);
    const script = scripts.shift();
    // Like the real API, an answer is grounded in Google Search only when the request has the tool.
    if (script?.groundingMetadata && !(Array.isArray(req.tools) && (req.tools as Json[]).some((t) => t.googleSearch !== undefined))) {
      throw new GoogleError(500, 'mock: scripted search grounding, but the request has no googleSearch tool', 'INTERNAL');
    }
    return script ? applyScript(computed, script) : computed;
  }

  function generate(res: ServerResponse, req: Json, model: string, seq: number): void {
    const r = reply(req);
    send(res, 200, {
      candidates: [{ content: { parts: r.parts, role: 'model' }, finishReason: r.finishReason, index: 0, ...(r.groundingMetadata ? { groundingMetadata: r.groundingMetadata } : {}) }],
      usageMetadata: usageOf(r, true),
      modelVersion: model,
      responseId: `mockresp${seq}`,
    });
  }

  async function stream(ex: MockExchange, req: Json, model: string, sse: boolean): Promise<void> {
    const { res, closed: isClosed } = ex;
    const r = reply(req);
    const responseId = `mockresp${ex.seq}`;
    const chunks = streamChunks(r, (parts, finish, final) => ({
      candidates: [{ content: { parts, role: 'model' }, ...(finish ? { finishReason: finish } : {}), index: 0, ...(final && r.groundingMetadata ? { groundingMetadata: r.groundingMetadata } : {}) }],
      usageMetadata: usageOf(r, final),
      modelVersion: model,
      responseId,
    }));
    const hold = holdNext;
    holdNext = false;
    const failure = streamFail;
    streamFail = undefined;
    const early = endEarly;
    endEarly = false;
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
        await ex.untilClosed();
        return;
      }
      if (i === 0 && failure) {
        write(googleErrorBody(new GoogleError(failure.status, failure.message, failure.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT')));
        break;
      }
      if (i === 0 && early) break;
    }
    if (!sse && !isClosed()) res.write(first ? '[]' : '\n]');
    if (!isClosed()) res.end();
  }

  const server = await startMockVendorServer({
    apiKey,
    sendFailure: (ex, f) => send(ex.res, f.status, f.body, f.headers),
    sendCrash: (res, err) => send(res, 500, { error: { code: 500, message: `mock failure: ${String(err)}`, status: 'INTERNAL' } }),
    handle,
  });
  return Object.assign(server, {
    interactions,
    holdStreamNext() {
      holdNext = true;
    },
    failStreamNext(status = 500, message = 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting') {
      streamFail = { status, message };
    },
    endStreamEarlyNext() {
      endEarly = true;
    },
    scriptNext(script: ScriptedGeminiReply) {
      scripts.push(script);
    },
  });
}
