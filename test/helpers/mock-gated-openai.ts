/**
 * A small OpenAI Chat Completions upstream for the limits tests (node:http on 127.0.0.1, built on
 * the shared mock-vendor server): answers with a fixed usage, and can hold every answer behind a
 * gate so that requests stay in flight until the test opens it (sync answers wait before their
 * headers, streams after their first chunk). It accepts several keys and records which one each
 * request carried; a wrong key gets a 401 whose message echoes the key in full, as a careless
 * upstream might (the gateway must scrub it).
 */
import { startMockVendorServer, type MockVendorServer } from './mock-vendor-base.js';

export interface GatedUsage {
  prompt_tokens: number;
  completion_tokens: number;
  cached_tokens?: number;
}

export interface MockGatedOpenAI extends MockVendorServer {
  /** Requests wait (before headers, or after the first stream chunk) until open() is called. */
  closeGate(): void;
  open(): void;
  /** Requests currently being answered. */
  inFlight: number;
  /** The Bearer key of every chat request, in order. */
  keys: string[];
  /** The usage every answer reports. */
  usage: GatedUsage;
  /** The next streamed answer is cut after its first chunk, once the gate is open (no finish, no [DONE]). */
  breakNextStream(): void;
}

export async function startMockGatedOpenAI(opts: { apiKeys: string[]; usage?: GatedUsage }): Promise<MockGatedOpenAI> {
  let gate: { promise: Promise<void>; release: () => void } | undefined;
  let breakNext = false;
  const state = { inFlight: 0, keys: [] as string[], usage: opts.usage ?? { prompt_tokens: 10, completion_tokens: 4 } };
  const waitGate = async (closed: () => Promise<void>): Promise<void> => {
    if (gate) await Promise.race([gate.promise, closed()]);
  };

  const server = await startMockVendorServer({
    apiKey: opts.apiKeys[0] ?? '',
    basePath: '/v1',
    sendFailure: (ex, f) => {
      ex.res.writeHead(f.status, { 'content-type': 'application/json', ...(f.headers ?? {}) });
      ex.res.end(JSON.stringify(f.body));
    },
    sendCrash: (res) => {
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"error":{"message":"mock crash","type":"server_error"}}');
    },
    async handle(ex) {
      const { res, recorded } = ex;
      const key = /^Bearer (.+)$/.exec(recorded.headers.authorization ?? '')?.[1] ?? '';
      state.keys.push(key);
      if (!opts.apiKeys.includes(key)) {
        res.writeHead(401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${key}.`, type: 'invalid_request_error', param: null, code: 'invalid_api_key' } }));
        return;
      }
      const body = recorded.body as { model?: string; stream?: boolean };
      const u = state.usage;
      const usage = {
        prompt_tokens: u.prompt_tokens,
        completion_tokens: u.completion_tokens,
        total_tokens: u.prompt_tokens + u.completion_tokens,
        prompt_tokens_details: { cached_tokens: u.cached_tokens ?? 0 },
      };
      const base = { id: `chatcmpl-gated${ex.seq}`, created: 1767225600, model: body.model ?? 'gpt' };
      state.inFlight++;
      try {
        if (body.stream !== true) {
          await waitGate(ex.untilClosed);
          if (ex.closed()) return;
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({ ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content: 'gated answer' }, finish_reason: 'stop' }], usage }));
          return;
        }
        const cut = breakNext;
        breakNext = false;
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        const send = (data: unknown): void => {
          if (!ex.closed()) res.write(`data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
        };
        send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: { role: 'assistant', content: 'gated' }, finish_reason: null }] });
        await waitGate(ex.untilClosed);
        if (ex.closed()) return;
        if (cut) return ex.cut();
        send({ ...base, object: 'chat.completion.chunk', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
        send({ ...base, object: 'chat.completion.chunk', choices: [], usage });
        send('[DONE]');
        res.end();
      } finally {
        state.inFlight--;
      }
    },
  });
  const extra = {
    get inFlight() {
      return state.inFlight;
    },
    keys: state.keys,
    get usage() {
      return state.usage;
    },
    set usage(u: GatedUsage) {
      state.usage = u;
    },
    closeGate() {
      if (gate) return;
      let release = () => {};
      const promise = new Promise<void>((r) => (release = r));
      gate = { promise, release };
    },
    open() {
      const g = gate;
      gate = undefined;
      g?.release();
    },
    breakNextStream() {
      breakNext = true;
    },
  };
  // defineProperties keeps the getters live (Object.assign would copy their current values).
  return Object.defineProperties(server, Object.getOwnPropertyDescriptors(extra)) as MockGatedOpenAI;
}
