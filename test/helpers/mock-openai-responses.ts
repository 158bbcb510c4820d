/**
 * A strict mock of the OpenAI Responses API on an ephemeral 127.0.0.1 port (shared mock-vendor
 * plumbing, mock-vendor-base.ts). It checks `Authorization: Bearer <key>`, validates bodies as
 * strictly as OpenAI (mock-openai-responses-validate.ts), answers the shared mock contract or a
 * scripted reply (mock-openai-responses-reply.ts), sync or as the full typed event stream, and keeps
 * stored responses in memory so `previous_response_id`, GET/DELETE/cancel and input_items work:
 *
 *   POST   /v1/responses                      create (sync, stream, background)
 *   GET    /v1/responses/{id}                 retrieve (`?stream=true&starting_after=N` replays)
 *   DELETE /v1/responses/{id}                 delete
 *   POST   /v1/responses/{id}/cancel          cancel a background response
 *   GET    /v1/responses/{id}/input_items     cursor-paged input items
 *   POST   /v1/responses/input_tokens         count input tokens
 */
import type { ServerResponse } from 'node:http';
import { applyScript, countedItems, outputItems, planReply, responseObject, streamEvents, usageJson, type ScriptedReply } from './mock-openai-responses-reply.js';
import {
  check, checkItem, checkTextFormat, checkToolChoice, checkTools, createBodySchema, inputTokensBodySchema, isObj, isReasoningModel, ResponsesMockError,
} from './mock-openai-responses-validate.js';
import { startMockVendorServer, type MockExchange, type MockVendorServer } from './mock-vendor-base.js';


type Json = Record<string, unknown>;

interface StoredResponse {
  /** The response as it stands (background ones move queued -> in_progress -> final on GETs). */
  response: Json;
  final: Json;
  /** This request's input items, with ids. */
  input: Json[];
  /** The conversation through this response (chained input + output), for previous_response_id. */
  history: Json[];
  background?: { polls: number };
  obfuscate: boolean;
}

export interface MockOpenAIResponses extends MockVendorServer {
  /** The next POST /v1/responses answers this (queued, first in first out). */
  scriptNext(reply: ScriptedReply): void;
  /** The next stream sends its first events, then the connection is destroyed (no terminal event). */
  breakStreamNext(): void;
  /** The next stream sends its first events, then closes cleanly without its terminal event (a truncated body). */
  endStreamEarlyNext(): void;
  /** Stored responses by id (store !== false), as GET answers them. */
  readonly stored: ReadonlyMap<string, StoredResponse>;
  /** Encrypted reasoning values this mock issued (only these replay). */
  readonly issuedEncrypted: ReadonlySet<string>;
}

export interface MockOpenAIResponsesOptions {
  apiKey?: string;
  /** Added to the requested model in answers (the concrete snapshot). Default `-2025-08-07`. */
  modelSuffix?: string;
}

const fail = (status: number, message: string, param: string | null = null, code: string | null = null): ResponsesMockError => new ResponsesMockError(status, message, param, code);

function toJson(e: ResponsesMockError): Json {
  return { error: { message: e.message, type: e.type, param: e.param, code: e.code } };
}

/** Easy and strict input items in one shape (`type` always set). */
function normalizeItem(item: Json): Json {
  if (item.type === undefined) return { ...item, type: 'role' in item ? 'message' : 'item_reference' };
  return item;
}

function textOfItems(items: Json[]): string {
  const out: string[] = [];
  for (const it of items) {
    if (typeof it.content === 'string') out.push(it.content);
    else if (Array.isArray(it.content)) for (const p of it.content) if (isObj(p) && typeof p.text === 'string') out.push(p.text);
  }
  return out.join(' ');
}

/** An input item as input_items lists it. */
function listedItem(item: Json, id: string): Json {
  if (item.type !== 'message') return { ...item, id: item.id ?? id, status: item.status ?? 'completed' };
  const partType = item.role === 'assistant' ? 'output_text' : 'input_text';
  const content = typeof item.content === 'string' ? [{ type: partType, text: item.content, ...(partType === 'output_text' ? { annotations: [] } : {}) }] : item.content;
  const { phase: _phase, ...rest } = item;
  return { ...rest, id: item.id ?? id, type: 'message', content, status: item.status ?? 'completed' };
}

export async function startMockOpenAIResponses(opts: MockOpenAIResponsesOptions = {}): Promise<MockOpenAIResponses> {
  const apiKey = opts.apiKey ?? 'upstream-secret-openai-responses-0123456789';
  const suffix = opts.modelSuffix ?? '-2025-08-07';
  const scripts: ScriptedReply[] = [];
  const stored = new Map<string, StoredResponse>();
  const issued = new Set<string>();
  /** function_call item id -> the reasoning item id it was produced with. */
  const callReasoning = new Map<string, string>();
  let breakNext = false;
  let endEarlyNext = false;

  const send = (res: ServerResponse, seq: number, status: number, body: unknown, headers: Record<string, string> = {}): void => {
    res.writeHead(status, { 'content-type': 'application/json', 'x-request-id': `req_mock_${seq}`, ...headers });
    res.end(typeof body === 'string' ? body : JSON.stringify(body));
  };

  function findStoredItem(id: string): Json | undefined {
    for (const s of stored.values()) {
      const hit = [...s.input, ...(s.final.output as Json[])].find((it) => it.id === id);
      if (hit) return hit;
    }
    return undefined;
  }

  /** Chains, expands references and checks what OpenAI checks across the whole conversation. */
  function buildHistory(body: Json, items: Json[]): { history: Json[]; cachedItems: number } {
    let history: Json[] = [];
    if (typeof body.previous_response_id === 'string') {
      const prev = stored.get(body.previous_response_id);
      if (!prev) throw fail(404, `Previous response with id '${body.previous_response_id}' not found.`, 'previous_response_id', 'previous_response_not_found');
      history = [...prev.history];
    }
    const cachedItems = countedItems(history);
    items.forEach((it, i) => {
      if (it.type === 'item_reference') {
        const found = findStoredItem(String(it.id));
        if (!found) throw fail(404, `Item with id '${String(it.id)}' not found.`, `input[${i}]`);
        history.push(found);
        return;
      }
      if (it.type === 'reasoning') {
        if (typeof it.encrypted_content === 'string') {
          if (!issued.has(it.encrypted_content)) throw fail(400, `The encrypted content for item ${String(it.id ?? `input[${i}]`)} could not be verified.`, `input[${i}].encrypted_content`, 'invalid_encrypted_content');
        } else if (typeof it.id === 'string' && !findStoredItem(it.id)) {
          throw fail(404, `Item with id '${it.id}' not found. Items are not persisted when \`store\` is set to false. Try again with \`store\` set to true, or remove this item from your input.`, 'input');
        }
      }
      if (it.type === 'function_call' && typeof it.id === 'string') {
        const needs = callReasoning.get(it.id);
        if (needs && !history.some((h) => h.type === 'reasoning' && h.id === needs)) {
          throw fail(400, `Item '${it.id}' of type 'function_call' was provided without its required 'reasoning' item: '${needs}'.`, 'input');
        }
      }
      history.push(it);
    });
    const calls = new Set<string>();
    const answered = new Set<string>();
    const ids = new Set<string>();
    for (const it of history) {
      // As OpenAI: an item (by id) and a tool call (by call_id) appear once in a conversation.
      if (typeof it.id === 'string') {
        if (ids.has(it.id)) throw fail(400, `Duplicate item found with id ${it.id}. Remove duplicate items from your input and try again.`, 'input');
        ids.add(it.id);
      }
      if (it.type === 'function_call' && calls.has(String(it.call_id))) throw fail(400, `Duplicate value for 'call_id' of ${String(it.call_id)}: each function call must appear once in the input.`, 'input');
      if (it.type === 'function_call') calls.add(String(it.call_id));
      if (it.type === 'function_call_output') {
        if (!calls.has(String(it.call_id))) throw fail(400, `No tool call found for function call output with call_id ${String(it.call_id)}.`, 'input');
        answered.add(String(it.call_id));
      }
    }
    for (const id of calls) if (!answered.has(id)) throw fail(400, `No tool output found for function call ${id}.`, 'input');
    return { history, cachedItems };
  }

  /** Validates a create or input_tokens body; returns the normalized input items and function tools. */
  function validate(body: unknown, kind: 'create' | 'input_tokens'): { body: Json; items: Json[]; functionTools: Json[] } {
    if (!isObj(body)) throw fail(400, 'The request body must be a JSON object.');
    const valid = kind === 'create' ? (check(createBodySchema, body, body, []) as Json) : (check(inputTokensBodySchema, body, body, []) as Json);
    const model = typeof valid.model === 'string' ? valid.model : '';
    if (model.includes('nonexistent')) throw fail(404, `The model '${model}' does not exist or you do not have access to it.`, 'model', 'model_not_found');
    const reasoningModel = isReasoningModel(model);
    for (const field of ['temperature', 'top_p'] as const) {
      if (reasoningModel && valid[field] != null) throw fail(400, `Unsupported parameter: '${field}' is not supported with this model.`, field, 'unsupported_parameter');
    }
    const reasoning = isObj(valid.reasoning) ? valid.reasoning : {};
    for (const field of ['effort', 'summary'] as const) {
      if (!reasoningModel && reasoning[field] != null) throw fail(400, `Unsupported parameter: 'reasoning.${field}' is not supported with this model.`, `reasoning.${field}`, 'unsupported_parameter');
    }
    if (!reasoningModel && Array.isArray(valid.include) && valid.include.includes('reasoning.encrypted_content')) {
      throw fail(400, 'Encrypted content is not supported with this model.', 'include', 'unsupported_parameter');
    }
    if (valid.stream_options != null && valid.stream !== true) throw fail(400, "The 'stream_options' parameter is only allowed when 'stream' is enabled.", 'stream_options');
    if (valid.conversation != null) {
      if (valid.previous_response_id != null) throw fail(400, "Mutually exclusive parameters: Ensure you are only providing one of: 'previous_response_id' or 'conversation'.", 'conversation', 'mutually_exclusive_parameters');
      throw fail(404, `Conversation with id '${typeof valid.conversation === 'string' ? valid.conversation : String((valid.conversation as Json).id)}' not found.`, 'conversation');
    }
    if (valid.background === true && valid.store === false) throw fail(400, 'Background mode requires store to be true.', 'store');
    const rawItems = typeof valid.input === 'string' ? [{ type: 'message', role: 'user', content: valid.input }] : ((valid.input as unknown[] | undefined) ?? []);
    if (Array.isArray(valid.input)) valid.input.forEach((it, i) => checkItem(it, body, i));
    const items = rawItems.map((it) => normalizeItem(it as Json));
    const functionTools = checkTools((valid.tools as unknown[] | undefined) ?? [], body);
    if (isObj(valid.tool_choice) && !functionTools.length && valid.tool_choice.type === 'function') {
      throw fail(400, "Tool choice 'function' not found in 'tools' parameter.", 'tool_choice', 'invalid_value');
    }
    checkToolChoice(valid.tool_choice, functionTools.map((t) => String(t.name)));
    checkTextFormat(isObj(valid.text) ? valid.text.format : undefined, body, `${String(valid.instructions ?? '')} ${textOfItems(items)}`);
    return { body: valid, items, functionTools };
  }

  function issue(itemId: string): string {
    const value = `gAAAAABmock${Buffer.from(`mock:${itemId}`).toString('base64url')}`;
    issued.add(value);
    return value;
  }

  function writeEvents(res: ServerResponse, ex: MockExchange, events: Json[], from = 0): void {
    for (const ev of events.slice(from)) if (!ex.closed()) res.write(`event: ${String(ev.type)}\ndata: ${JSON.stringify(ev)}\n\n`);
  }

  async function create(ex: MockExchange, raw: unknown): Promise<void> {
    const { res, seq } = ex;
    const { body, items, functionTools } = validate(raw, 'create');
    const { history, cachedItems } = buildHistory(body, items);
    const computed = planReply({ body, history, cachedItems, functionTools });
    const script = scripts.shift();
    const plan = script ? applyScript(computed, script) : computed;
    const respKey = `mock${seq}`;
    const id = `resp_${respKey}`;
    const output = outputItems(plan, respKey, issue);
    output.forEach((it, i) => {
      const prev = output[i - 1];
      if (it.type === 'function_call' && prev?.type === 'reasoning') callReasoning.set(String(it.id), String(prev.id));
    });
    const final = responseObject(body, {
      id,
      model: `${String(body.model)}${suffix}`,
      status: plan.status,
      output,
      usage: usageJson(plan.usage),
      ...(plan.error ? { error: plan.error } : {}),
      incompleteReason: plan.incompleteReason,
    });
    const obfuscate = !(isObj(body.stream_options) && body.stream_options.include_obfuscation === false);
    const listed = items.map((it, i) => listedItem(it, `${it.type === 'function_call_output' ? 'fco' : 'msg'}_in_${respKey}_${i}`));
    const record: StoredResponse = { response: final, final, input: listed, history: [...history, ...output], obfuscate };
    if (body.store !== false) stored.set(id, record);

    if (body.background === true && body.stream !== true) {
      record.background = { polls: 0 };
      record.response = { ...final, status: 'queued', completed_at: null, output: [], usage: null, error: null, incomplete_details: null };
      return send(res, seq, 200, record.response);
    }
    if (body.stream !== true) return send(res, seq, 200, final);

    const events = streamEvents(final, { obfuscate });
    res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache', 'x-request-id': `req_mock_${seq}` });
    res.flushHeaders();
    const firstDelta = events.findIndex((e) => String(e.type).endsWith('.delta'));
    const cutAt = firstDelta >= 0 ? firstDelta + 1 : 3;
    if (breakNext) {
      breakNext = false;
      writeEvents(res, ex, events.slice(0, cutAt));
      // Let the bytes leave before the socket is destroyed.
      await new Promise((r) => setTimeout(r, 20));
      return ex.cut();
    }
    if (endEarlyNext) {
      endEarlyNext = false;
      writeEvents(res, ex, events.slice(0, cutAt));
      res.end();
      return;
    }
    if (plan.streamError) {
      writeEvents(res, ex, events.slice(0, cutAt));
      const err = { type: 'error', sequence_number: cutAt, code: plan.streamError.code, message: plan.streamError.message, param: null };
      if (!ex.closed()) res.write(`event: error\ndata: ${JSON.stringify(err)}\n\n`);
      res.end();
      return;
    }
    writeEvents(res, ex, events);
    res.end();
  }

  /** GET on a background response moves it on: queued -> in_progress -> final. */
  function current(record: StoredResponse): Json {
    const bg = record.background;
    if (bg && record.response.status !== 'cancelled' && record.response !== record.final) {
      bg.polls++;
      record.response = bg.polls === 1 ? { ...record.response, status: 'in_progress' } : record.final;
    }
    return record.response;
  }

  async function handle(ex: MockExchange): Promise<void> {
    const { req, res, url, seq } = ex;
    const { headers, rawBody, body } = ex.recorded;
    const answer = (status: number, payload: unknown): void => send(res, seq, status, payload);
    const bearer = /^Bearer (.+)$/.exec(headers.authorization ?? '')?.[1];
    if (bearer === undefined) {
      return answer(401, toJson(fail(401, "You didn't provide an API key. You need to provide your API key in an Authorization header using Bearer auth (i.e. Authorization: Bearer YOUR_KEY).")));
    }
    if (bearer !== apiKey) {
      return answer(401, toJson(fail(401, `Incorrect API key provided: ${bearer.slice(0, 3)}*****${bearer.slice(-4)}. You can find your API key at https://platform.openai.com/account/api-keys.`, null, 'invalid_api_key')));
    }
    const path = url.pathname;
    const method = req.method ?? 'GET';
    try {
      const needsJson = method === 'POST' && (path === '/v1/responses' || path === '/v1/responses/input_tokens');
      if (needsJson && (ex.parseError || !rawBody)) {
        throw fail(400, "We could not parse the JSON body of your request. (HINT: This likely means you aren't using your HTTP library correctly. The OpenAI API expects a JSON payload, but what was sent was not valid JSON.)");
      }
      if (path === '/v1/responses' && method === 'POST') return await create(ex, body);
      if (path === '/v1/responses/input_tokens' && method === 'POST') {
        const v = validate(body, 'input_tokens');
        const { history } = buildHistory(v.body, v.items);
        return answer(200, { object: 'response.input_tokens', input_tokens: 10 * countedItems(history) });
      }
      const m = /^\/v1\/responses\/([^/]+)(\/cancel|\/input_items)?$/.exec(path);
      const record = m ? stored.get(decodeURIComponent(m[1] ?? '')) : undefined;
      if (!m) throw fail(404, `Invalid URL (${method} ${path})`);
      const id = decodeURIComponent(m[1] ?? '');
      if (!record) throw fail(404, `Response with id '${id}' not found.`, null);
      const tail = m[2];
      if (!tail && method === 'GET') {
        const now = current(record);
        if (url.searchParams.get('stream') !== 'true') return answer(200, now);
        const after = Number(url.searchParams.get('starting_after') ?? -1);
        const events = streamEvents(record.final, { obfuscate: record.obfuscate });
        res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
        writeEvents(res, ex, events.filter((e) => e.sequence_number > after));
        return void res.end();
      }
      if (!tail && method === 'DELETE') {
        stored.delete(id);
        return answer(200, { id, object: 'response', deleted: true });
      }
      if (tail === '/cancel' && method === 'POST') {
        if (!record.background) throw fail(400, 'Only responses created with background=true can be cancelled.', null);
        if (record.response === record.final) throw fail(400, 'Cannot cancel a completed response.', null);
        record.response = { ...record.response, status: 'cancelled' };
        return answer(200, record.response);
      }
      if (tail === '/input_items' && method === 'GET') {
        const limit = Number(url.searchParams.get('limit') ?? 20);
        if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw fail(400, `Invalid 'limit': expected an integer between 1 and 100.`, 'limit', 'invalid_value');
        const order = url.searchParams.get('order') ?? 'desc';
        if (order !== 'asc' && order !== 'desc') throw fail(400, `Invalid value: '${order}'. Supported values are: 'asc' and 'desc'.`, 'order', 'invalid_value');
        const all = order === 'asc' ? record.input : [...record.input].reverse();
        const after = url.searchParams.get('after');
        const start = after ? all.findIndex((it) => it.id === after) + 1 : 0;
        const data = all.slice(start, start + limit);
        return answer(200, { object: 'list', data, first_id: data[0]?.id ?? null, last_id: data[data.length - 1]?.id ?? null, has_more: start + limit < all.length });
      }
      throw fail(405, `Invalid method for URL (${method} ${path})`);
    } catch (e) {
      if (e instanceof ResponsesMockError) return answer(e.status, toJson(e));
      throw e;
    }
  }

  const server = await startMockVendorServer({
    apiKey,
    basePath: '/v1',
    sendFailure: (ex, f) => send(ex.res, ex.seq, f.status, f.body, f.headers),
    sendCrash: (res, err, seq) => send(res, seq, 500, { error: { message: `mock failure: ${String(err)}`, type: 'server_error', param: null, code: null } }),
    handle,
  });
  return Object.assign(server, {
    scriptNext(reply: ScriptedReply) {
      scripts.push(reply);
    },
    endStreamEarlyNext() {
      endEarlyNext = true;
    },
    breakStreamNext() {
      breakNext = true;
    },
    stored: stored as ReadonlyMap<string, StoredResponse>,
    issuedEncrypted: issued as ReadonlySet<string>,
  });
}
