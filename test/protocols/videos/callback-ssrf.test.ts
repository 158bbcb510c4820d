/**
 * Task callbacks cannot be aimed at the gateway's own network: the host check (a closed list of
 * public unicast addresses, via ipaddr.js) catches every spelling of loopback, private, link-local,
 * metadata, benchmarking, multicast and NAT64/6to4 addresses; it runs at submit time and again
 * before every delivery attempt (fail closed, also for records stored earlier or under another
 * config); redirects are not followed.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, MemoryTaskStore, type GatewayConfigInput } from '../../../src/index.js';
import { callbackUrlProblem } from '../../../src/tasks/video/callback.js';
import { isPrivateHost } from '../../../src/tasks/video/private-host.js';
import { VIDEO_TASK_KIND, type VideoTaskData } from '../../../src/tasks/video/video-task.js';

const KEY = 'mg-callback-test-key-0001';
const SECRET = 'cb-secret-for-tests-123';
const NOW = 1_767_225_600_000;

const hostOf = (url: string) => new URL(url).hostname;

describe('isPrivateHost: every spelling of a non-public address is refused', () => {
  const refused = [
    // loopback, also through the URL parser's IPv4 normalisation
    'http://127.0.0.1/', 'http://2130706433/', 'http://0x7f.0.0.1/', 'http://0x7f000001/', 'http://0177.0.0.1/', 'http://127.1/', 'http://127.0.0.1./', 'http://%31%32%37.0.0.1/',
    'http://[::1]/', 'http://[0:0:0:0:0:0:0:1]/',
    // IPv4-mapped / translated / compatible IPv6 (the parser rewrites [::ffff:127.0.0.1] to [::ffff:7f00:1])
    'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[::ffff:169.254.169.254]/', 'http://[::ffff:a9fe:a9fe]/', 'http://[::ffff:10.0.0.1]/',
    'http://[0:0:0:0:0:ffff:192.168.1.1]/', 'http://[::ffff:0:127.0.0.1]/', 'http://[::127.0.0.1]/', 'http://[::10.0.0.1]/',
    // private, link-local / cloud metadata, carrier-grade NAT, unspecified, broadcast
    'http://10.1.2.3/', 'http://172.16.0.1/', 'http://192.168.0.1/', 'http://169.254.169.254/latest', 'http://100.64.0.1/', 'http://0.0.0.0/', 'http://0/', 'http://255.255.255.255/',
    // benchmarking 198.18/15, documentation/reserved, multicast, class E
    'http://198.18.0.1/', 'http://198.19.255.254/', 'http://192.0.2.1/', 'http://192.0.0.1/', 'http://224.0.0.1/', 'http://239.255.255.250/', 'http://240.0.0.1/',
    // IPv6 special ranges
    'http://[::]/', 'http://[fe80::1]/', 'http://[fc00::1]/', 'http://[fd12:3456::1]/', 'http://[ff02::1]/', 'http://[fec0::1]/', 'http://[2001:db8::1]/', 'http://[100::1]/',
    // NAT64 and 6to4 carrying a private address, NAT64 local-use, Teredo
    'http://[64:ff9b::7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://[64:ff9b:1::8.8.8.8]/', 'http://[2002:7f00:1::]/', 'http://[2002:c0a8:101::1]/', 'http://[2001:0:4136:e378::1]/',
    // names
    'http://localhost/', 'http://LOCALHOST./', 'http://api.localhost/', 'http://metadata.google.internal/', 'http://printer.local/', 'http://nas.home.arpa/', 'http://1.0.0.127.in-addr.arpa/',
    'http://metadata/', 'http://redis:6379/',
  ];
  it.each(refused)('%s', (url) => {
    expect(isPrivateHost(hostOf(url))).toBe(true);
  });

  const allowed = ['https://hooks.example.com/video', 'http://8.8.8.8/', 'http://[2606:4700:4700::1111]/', 'http://[::ffff:8.8.8.8]/', 'http://[64:ff9b::808:808]/', 'http://[2002:808:808::1]/', 'http://1.1.1.1:8443/x'];
  it.each(allowed)('allows the public %s', (url) => {
    expect(isPrivateHost(hostOf(url))).toBe(false);
  });

  it('parses odd IPv4 spellings that did not go through the URL parser', () => {
    for (const host of ['2130706433', '0x7f.1', '017700000001', '127.1', '10.1', '0xa9.0xfe.0xa9.0xfe']) expect(isPrivateHost(host), host).toBe(true);
  });

  it('callbackUrlProblem: private hosts refused unless allowed; non-http(s) and unparsable URLs always refused', () => {
    expect(callbackUrlProblem('http://[::ffff:7f00:1]/hook', false)).toMatch(/private network/);
    expect(callbackUrlProblem('http://[::ffff:7f00:1]/hook', true)).toBeUndefined();
    expect(callbackUrlProblem('ftp://example.com/x', true)).toMatch(/http or https/);
    expect(callbackUrlProblem('not a url', true)).toMatch(/not a valid URL/);
    expect(callbackUrlProblem('https://hooks.example.com/x', false)).toBeUndefined();
  });
});

function config(): GatewayConfigInput {
  return { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-video', provider: 'mock', capabilities: ['video'] }], keys: [{ id: 'caller', key: KEY }] };
}

describe('submit: callback_url is checked with the same rules', () => {
  const gateway = createGateway(config(), { env: {}, video: { callbackSecret: SECRET, pollerTickMs: false } });
  afterAll(() => gateway.close());
  const submit = (callback_url: string) =>
    gateway.handle(
      new Request('http://gateway.test/v1/video/generations', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-video', prompt: 'x', callback_url }),
      }),
    );

  it.each(['http://[::ffff:127.0.0.1]:8080/hook', 'http://[::ffff:a9fe:a9fe]/latest', 'http://2130706433/', 'http://198.18.0.1/', 'http://[64:ff9b::a00:1]/'])('%s -> 400 naming callback_url', async (url) => {
    const res = await submit(url);
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { param: string; message: string } };
    expect(body.error.param).toBe('callback_url');
    expect(body.error.message).toBe('callback_url must not point at localhost or a private network.');
  });

  it('a public callback host is accepted', async () => {
    expect((await submit('https://hooks.example.com/video')).status).toBe(202);
  });
});

describe('delivery: every attempt is checked again, and redirects are not followed', () => {
  let hooks: Server;
  let port: number;
  const hits: string[] = [];

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      hits.push(req.url ?? '');
      req.resume();
      req.on('end', () => {
        if (req.url === '/bounce') res.writeHead(302, { location: `http://127.0.0.1:${port}/target` }).end();
        else res.writeHead(204).end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    port = (hooks.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((r) => hooks.close(() => r())));

  /** A finished task whose callback is due, stored as an older version (or another config) left it. */
  async function storedTask(store: MemoryTaskStore, id: string, url: string): Promise<void> {
    const data: VideoTaskData = {
      requestId: `req_${id}`,
      fingerprint: 'f',
      model: 'mock-video',
      providerId: 'mock',
      ownCredential: null,
      upstreamModel: 'mock-video',
      upstreamId: 'up_1',
      status: 'succeeded',
      progress: 100,
      createdAt: NOW,
      updatedAt: NOW,
      startedAt: NOW,
      completedAt: NOW,
      error: null,
      outputs: [{ ref: 'r', contentType: 'video/mp4' }],
      upstreamExpiresAt: null,
      costUsd: null,
      deletedAt: null,
      job: { prompt: 'x', durationSeconds: 4, aspectRatio: '16:9', resolution: '720p' },
      poll: { count: 1, failures: 0, lastPolledAt: NOW, nextAt: null },
      callback: { url, attempts: 0, nextAt: NOW, delivered: false, lastError: null },
    };
    await store.create({ id, kind: VIDEO_TASK_KIND, ownerId: 'caller', version: 0, dueAt: NOW, expiresAt: NOW + 86_400_000, data });
  }

  /** Reads the task (which starts the due callback), then waits for background work via close(). */
  async function deliver(url: string, allowPrivateCallbackHosts: boolean): Promise<{ attempts: number; nextAt: number | null; delivered: boolean; lastError: string | null }> {
    const store = new MemoryTaskStore(() => NOW);
    await storedTask(store, 'vtask_1', url);
    const gateway = createGateway(config(), { env: {}, now: () => NOW, taskStore: store, video: { callbackSecret: SECRET, pollerTickMs: false, allowPrivateCallbackHosts } });
    const res = await gateway.handle(new Request('http://gateway.test/v1/video/generations/vtask_1', { headers: { authorization: `Bearer ${KEY}` } }));
    expect(res.status).toBe(200);
    await gateway.close();
    const record = await store.get('vtask_1');
    return (record?.data as VideoTaskData).callback as { attempts: number; nextAt: number | null; delivered: boolean; lastError: string | null };
  }

  it('a stored loopback callback (IPv4-mapped spelling) is refused at delivery, without a request, and not retried', async () => {
    const before = hits.length;
    const cb = await deliver(`http://[::ffff:127.0.0.1]:${port}/hook`, false);
    expect(hits.length).toBe(before);
    expect(cb).toMatchObject({ attempts: 1, delivered: false, nextAt: null, lastError: 'callback_url must not point at localhost or a private network.' });
  });

  it('a stored URL that no longer parses fails closed', async () => {
    const cb = await deliver('::not a url::', true);
    expect(cb).toMatchObject({ delivered: false, nextAt: null, lastError: 'callback_url is not a valid URL.' });
  });

  it('video.allowPrivateCallbackHosts still lets a private receiver get the callback', async () => {
    const before = hits.length;
    const cb = await deliver(`http://127.0.0.1:${port}/hook`, true);
    expect(hits.slice(before)).toEqual(['/hook']);
    expect(cb).toMatchObject({ delivered: true, lastError: null });
  });

  it('a 3xx answer is a failed attempt and its Location is not followed', async () => {
    const before = hits.length;
    const cb = await deliver(`http://127.0.0.1:${port}/bounce`, true);
    expect(hits.slice(before)).toEqual(['/bounce']);
    expect(cb.delivered).toBe(false);
    expect(cb.lastError).toBe('callback answered 302');
    expect(cb.nextAt).not.toBeNull();
  });
});
