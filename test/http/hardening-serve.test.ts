/**
 * serve() against slow and greedy clients: timeouts, connection cap, `Expect: 100-continue`, and
 * the one body limit (the gateway's, above 32 MiB too; an adapter option can only lower it).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve } from '../../node/index.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { EDGE_HOSTS, startEdgeHost, type EdgeHost } from '../helpers/edge-hosts.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { head, rawConnect } from '../helpers/raw-http.js';

const MiB = 1024 * 1024;
const JSON_AUTH = { authorization: `Bearer ${KEY_ALL}`, 'content-type': 'application/json' };
/** A valid chat body of at least `size` bytes for a model the gateway does not serve (404 once read in full). */
const bigBody = (size: number) => JSON.stringify({ model: 'no-such-model', messages: [{ role: 'user', content: 'a'.repeat(size) }] });

let mock: MockOpenAI;
beforeAll(async () => {
  mock = await startMockOpenAI();
});
afterAll(async () => {
  await mock?.close();
});

describe.each(EDGE_HOSTS)('the body limit on %s', (hostName) => {
  const hosts: EdgeHost[] = [];
  afterAll(async () => {
    for (const h of hosts) await h.stop();
  });

  it('is the gateway limit, also above 32 MiB (a 33 MiB body under a 40 MiB limit is read in full)', async () => {
    const host = await startEdgeHost(hostName, openAIConfig(mock, { limits: { maxBodyBytes: 40 * MiB } }));
    hosts.push(host);
    const res = await fetch(`${host.url}/v1/chat/completions`, { method: 'POST', headers: JSON_AUTH, body: bigBody(33 * MiB) });
    expect(res.status).toBe(404);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('model_not_found');
  });

  it('can be lowered by the adapter option, never raised', async () => {
    const lowered = await startEdgeHost(hostName, openAIConfig(mock, { limits: { maxBodyBytes: 40 * MiB } }), { maxBodyBytes: MiB });
    hosts.push(lowered);
    const low = await fetch(`${lowered.url}/v1/chat/completions`, { method: 'POST', headers: JSON_AUTH, body: bigBody(2 * MiB) });
    expect(low.status).toBe(413);
    expect(((await low.json()) as { error: { message: string } }).error.message).toContain(`${MiB} bytes`);

    const raised = await startEdgeHost(hostName, openAIConfig(mock, { limits: { maxBodyBytes: 256 * 1024 } }), { maxBodyBytes: 10 * MiB });
    hosts.push(raised);
    const high = await fetch(`${raised.url}/v1/chat/completions`, { method: 'POST', headers: JSON_AUTH, body: bigBody(300 * 1024) });
    expect(high.status).toBe(413);
    expect(((await high.json()) as { error: { message: string } }).error.message).toContain(`${256 * 1024} bytes`);
  });
});

describe('serve() timeouts and connection cap', () => {
  const gateways: Gateway[] = [];
  const stops: Array<() => Promise<void>> = [];
  const start = async (opts: Parameters<typeof serve>[1]) => {
    const gateway = createGateway(openAIConfig(mock));
    gateways.push(gateway);
    const running = await serve(gateway, { ...opts, port: 0 });
    stops.push(async () => {
      running.server.closeAllConnections();
      await running.close();
    });
    return { running, port: Number(new URL(running.url).port) };
  };
  afterAll(async () => {
    for (const s of stops) await s();
    for (const g of gateways) await g.close();
  });

  it('sets sane defaults and takes every option', async () => {
    const { running: defaults } = await start({});
    expect(defaults.server.headersTimeout).toBe(60_000);
    expect(defaults.server.requestTimeout).toBe(300_000);
    expect(defaults.server.keepAliveTimeout).toBe(65_000);
    const { running: custom } = await start({ headersTimeoutMs: 5_000, requestTimeoutMs: 10_000, keepAliveTimeoutMs: 7_000, maxConnections: 3 });
    expect(custom.server.headersTimeout).toBe(5_000);
    expect(custom.server.requestTimeout).toBe(10_000);
    expect(custom.server.keepAliveTimeout).toBe(7_000);
    expect(custom.server.maxConnections).toBe(3);
    // A requestTimeout below the default headersTimeout pulls the default down with it.
    const { running: short } = await start({ requestTimeoutMs: 2_000 });
    expect(short.server.headersTimeout).toBe(2_000);
  });

  it('refuses bad values with an error naming the option', async () => {
    const gateway = createGateway(openAIConfig(mock));
    gateways.push(gateway);
    expect(() => serve(gateway, { port: 0, requestTimeoutMs: -1 })).toThrow(/requestTimeoutMs/);
    expect(() => serve(gateway, { port: 0, bodyIdleTimeoutMs: 1.5 })).toThrow(/bodyIdleTimeoutMs/);
    expect(() => serve(gateway, { port: 0, maxConnections: 0 })).toThrow(/maxConnections/);
    expect(() => serve(gateway, { port: 0, headersTimeoutMs: 5_000, requestTimeoutMs: 1_000 })).toThrow(/headersTimeoutMs/);
  });

  it('drops connections beyond maxConnections and keeps serving the open one', async () => {
    const { port } = await start({ maxConnections: 1 });
    const first = await rawConnect(port);
    const get = head('GET /v1/models HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY_ALL}` });
    first.socket.write(get);
    expect((await first.response()).status).toBe(200);
    const second = await rawConnect(port);
    second.socket.write(get);
    const { data } = await second.closed;
    expect(data).toBe('');
    // The first connection is still served (keep-alive).
    first.socket.write(head('GET /v1/models/gpt-4o HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY_ALL}`, connection: 'close' }));
    const { data: both } = await first.closed;
    expect(both.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
  });

  it('checks the headers timeout often enough by default: a client dripping header lines is cut near it, not 30 s later', async () => {
    // Node's own check runs every 30 s unless told otherwise; serve() derives it from the timeouts.
    const { port } = await start({ headersTimeoutMs: 500, requestTimeoutMs: 1_000 });
    const drip = await rawConnect(port);
    drip.socket.write('POST /v1/chat/completions HTTP/1.1\r\nhost: localhost\r\n');
    const timer = setInterval(() => drip.socket.write('x-drip: 1\r\n'), 100);
    try {
      const { data } = await drip.closed; // this test's timeout (10 s) is far below Node's default 30 s check
      expect(data).toMatch(/^HTTP\/1\.1 408/);
    } finally {
      clearInterval(timer);
    }
  }, 10_000);

  it('cuts a request that is not received in time, but never a response stream that outlives requestTimeout', async () => {
    // Node checks its request timeouts every connectionsCheckingInterval ms: a short one here.
    const { port } = await start({ requestTimeoutMs: 200, headersTimeoutMs: 200, bodyIdleTimeoutMs: 0, serverOptions: { connectionsCheckingInterval: 20 } });
    const stalled = await rawConnect(port);
    stalled.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', ...JSON_AUTH, 'content-length': 100 }) + '{"model"');
    const { data } = await stalled.closed; // cut by Node's requestTimeout (the body idle timeout is off)
    expect(data).toMatch(/^HTTP\/1\.1 408/);

    const paused = mock.pauseStreamNext();
    const res = await fetch(`http://127.0.0.1:${port}/v1/chat/completions`, {
      method: 'POST',
      headers: JSON_AUTH,
      body: JSON.stringify({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'slow stream' }] }),
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = decoder.decode((await reader.read()).value, { stream: true });
    // Several request timeouts and checks pass while the answer is still streaming.
    await new Promise((r) => setTimeout(r, 600));
    paused.release();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value, { stream: true });
    }
    expect(text.trimEnd().endsWith('data: [DONE]')).toBe(true);
    expect(text).toContain('stream');
  });

  it('sends 100 Continue only when the body is wanted: an anonymous caller gets its 401 instead', async () => {
    const { port } = await start({});
    const body = JSON.stringify({ model: 'gpt-4o', messages: [{ role: 'user', content: 'continue' }] });
    const anonymous = await rawConnect(port);
    anonymous.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', 'content-type': 'application/json', 'content-length': body.length, expect: '100-continue' }));
    const refused = await anonymous.response();
    expect(refused.status).toBe(401);
    expect(refused.interim).toEqual([]);
    await anonymous.closed; // the body was announced and never read: the connection closes

    const keyed = await rawConnect(port);
    keyed.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', ...JSON_AUTH, 'content-length': body.length, expect: '100-continue', connection: 'close' }));
    await new Promise<void>((resolve) => {
      const check = () => (keyed.received().startsWith('HTTP/1.1 100') ? resolve() : setTimeout(check, 5));
      check();
    });
    keyed.socket.write(body);
    const ok = await keyed.response();
    expect(ok.interim).toEqual([100]);
    expect(ok.status).toBe(200);
  });
});
