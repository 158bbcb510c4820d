/**
 * gateway.bridge.reply() and the node bridge that writes it: the gateway's JSON answers are a text body
 * (written in one piece with its Content-Length), streams a text stream piped to the socket
 * (pipeTextStream); handle() gives the same answer as a Response. The one body limit holds for a
 * body a parser in front already read, too: a bridge limit below the gateway's answers 413.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { handleNode, serve, toFetchRequest } from '../../node/index.js';
import { createGateway, GatewayError, type Gateway } from '../../src/index.js';
import { isTextStream, pipeTextStream, toResponse, type TextSink } from '../../src/gateway/bridge.js';
import { KEEP_ALIVE_MS, textStreamReply } from '../../src/reply/reply.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

const HEADERS = { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' };
const chat = (content: string, stream = false) => JSON.stringify({ model: 'gpt-4o', stream, messages: [{ role: 'user', content }] });

let mock: MockOpenAI;
let gateway: ReturnType<typeof createGateway>;
beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(openAIConfig(mock, { limits: { maxBodyBytes: 4000 } }));
});
afterAll(async () => {
  await gateway?.close();
  await mock?.close();
});

describe('gateway.bridge.reply()', () => {
  it('answers JSON as a text body with the headers handle() sends', async () => {
    const reply = await gateway.bridge.reply(new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: HEADERS, body: chat('as text') }));
    expect(reply.status).toBe(200);
    expect(typeof reply.body).toBe('string');
    const json = JSON.parse(reply.body as string) as { choices: Array<{ message: { content: string } }>; traceId: string };
    expect(json.choices[0]?.message.content).toBe('[openai] you said: as text');
    expect(reply.headers.get('content-type')).toBe('application/json');
    expect(reply.headers.get('x-trace-id')).toBe(json.traceId);
  });

  it('answers errors as a text body in the protocol shape', async () => {
    const reply = await gateway.bridge.reply(new Request('http://gw.test/v1/messages', { method: 'POST', headers: { ...HEADERS, authorization: 'Bearer nope' }, body: '{}' }));
    expect(reply.status).toBe(401);
    expect(JSON.parse(reply.body as string)).toMatchObject({ type: 'error', error: { type: 'authentication_error' } });
  });

  it('answers a stream as a text stream that toResponse() turns into the same bytes handle() sends', async () => {
    const reply = await gateway.bridge.reply(new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: HEADERS, body: chat('streamed', true) }));
    expect(reply.headers.get('content-type')).toContain('text/event-stream');
    expect(isTextStream(reply.body)).toBe(true);
    const viaReply = await toResponse(reply).text();
    const viaHandle = await (await gateway.handle(new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: HEADERS, body: chat('streamed', true) }))).text();
    const strip = (s: string) => s.replace(/"id":"[^"]*"/g, '').replace(/"created":\d+/g, '');
    expect(strip(viaReply)).toBe(strip(viaHandle));
    expect(viaReply).toContain('data: [DONE]');
  });

  it('reads the body once: a second read gets the same bytes', async () => {
    let reads = 0;
    const body = new TextEncoder().encode(chat('once'));
    const res = await gateway.bridge.handle(new Request('http://gw.test/v1/chat/completions', { method: 'POST', headers: HEADERS }), {
      readBody: async () => {
        reads++;
        return body;
      },
    });
    expect(res.status).toBe(200);
    expect(reads).toBe(1);
  });
});

describe('pipeTextStream', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  function sink(closeAfter = Infinity): TextSink & { out: string[] } {
    const out: string[] = [];
    return {
      out,
      write(text) {
        out.push(text);
        return true;
      },
      drained: async () => undefined,
      closed: () => out.length >= closeAfter,
    };
  }

  it('writes every chunk in order and skips empty ones', async () => {
    const s = sink();
    const reply = textStreamReply((async function* () {
      yield 'a';
      yield '';
      yield 'b';
    })(), () => undefined);
    await pipeTextStream(reply.body as never, s);
    expect(s.out).toEqual(['a', 'b']);
  });

  it('returns the source when the sink closes (its cleanup runs)', async () => {
    const s = sink(1);
    let cleaned = false;
    const reply = textStreamReply((async function* () {
      try {
        yield 'a';
        yield 'b';
        yield 'c';
      } finally {
        cleaned = true;
      }
    })(), () => undefined);
    await pipeTextStream(reply.body as never, s);
    expect(s.out).toEqual(['a']);
    expect(cleaned).toBe(true);
  });

  it('waits for drain when a write reports a full buffer', async () => {
    const out: string[] = [];
    let drains = 0;
    const reply = textStreamReply((async function* () {
      yield 'a';
      yield 'b';
    })(), () => undefined);
    await pipeTextStream(reply.body as never, {
      write: (t) => {
        out.push(t);
        return false;
      },
      drained: async () => {
        drains++;
      },
      closed: () => false,
    });
    expect(out).toEqual(['a', 'b']);
    expect(drains).toBe(2);
  });

  it('writes SSE keep-alive comments while the source is silent, none for non-SSE streams', async () => {
    vi.useFakeTimers();
    for (const keepAlive of [true, false]) {
      let release = () => {};
      const gate = new Promise<void>((r) => (release = r));
      const s = sink();
      const reply = textStreamReply((async function* () {
        yield 'data: first\n\n';
        await gate;
        yield 'data: late\n\n';
      })(), () => undefined, undefined, keepAlive);
      const piping = pipeTextStream(reply.body as never, s);
      await vi.advanceTimersByTimeAsync(KEEP_ALIVE_MS + KEEP_ALIVE_MS / 3);
      release();
      await piping;
      expect(s.out).toEqual(keepAlive ? ['data: first\n\n', ': keep-alive\n\n', 'data: late\n\n'] : ['data: first\n\n', 'data: late\n\n']);
    }
  });

  it("rejects with the source's error", async () => {
    const reply = textStreamReply((async function* () {
      yield 'a';
      throw new Error('broke');
    })(), () => undefined);
    await expect(pipeTextStream(reply.body as never, sink())).rejects.toThrow('broke');
  });
});

describe('the node bridge and a body a parser already read', () => {
  let server: Server;
  let base: string;
  beforeAll(async () => {
    server = createServer((req, res) => {
      // As after express.json(): the body is consumed and handed over parsed.
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const parsed = JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
        const maxBodyBytes = req.url?.startsWith('/low') ? 1000 : undefined;
        void handleNode(gateway, req, res, '/v1/chat/completions', { body: parsed, ...(maxBodyBytes ? { maxBodyBytes } : {}) });
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('serves it within the limits', async () => {
    const res = await fetch(`${base}/low`, { method: 'POST', headers: HEADERS, body: chat('small') });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe(String((await res.clone().arrayBuffer()).byteLength));
    expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: small');
  });

  it("answers 413 naming the bridge's lower limit, not a 400", async () => {
    const res = await fetch(`${base}/low`, { method: 'POST', headers: HEADERS, body: chat('x'.repeat(2000)) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string; type: string } }).error.message).toContain('1000 bytes');
  });

  it("answers 413 naming the gateway's limit when the bridge sets none", async () => {
    const res = await fetch(`${base}/any`, { method: 'POST', headers: HEADERS, body: chat('x'.repeat(5000)) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { message: string } }).error.message).toContain('4000 bytes');
  });
});

describe('toFetchRequest', () => {
  it('refuses a parsed body over its limit with a typed 413', async () => {
    const req = { method: 'POST', headers: { 'content-type': 'application/json' }, readableEnded: true } as never;
    const res = { once: () => undefined } as never;
    const err = await toFetchRequest(req, res, '/v1/chat/completions', { body: { text: 'x'.repeat(100) }, maxBodyBytes: 50 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(413);
  });
});

describe('serve() with a gateway wrapper that has only handle()', () => {
  it('answers through handle()', async () => {
    let handled = 0;
    const wrapper = {
      handle: (request: Request, ctx?: Parameters<Gateway['handle']>[1]) => {
        handled++;
        return gateway.handle(request, ctx);
      },
      matches: (p: string) => gateway.matches(p),
      close: async () => undefined,
    } as unknown as Gateway;
    const running = await serve(wrapper, { port: 0 });
    try {
      const res = await fetch(`${running.url}/v1/chat/completions`, { method: 'POST', headers: HEADERS, body: chat('wrapped') });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toBe('[openai] you said: wrapped');
      expect(handled).toBe(1);
    } finally {
      running.server.closeAllConnections();
      await running.close();
    }
  });
});
