/**
 * Upstream redirects are never followed: an upstream that answers 3xx pointing at a second server
 * gets each request once, the second server gets nothing (no credentials, no repeated POST), and
 * the caller gets a 502 naming the provider. Checked with the library's default client (global
 * fetch) and with the standalone server's (createUndiciFetch), for chat in all three protocols,
 * images (JSON and multipart), and video submit, poll and download (Sora and Veo).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import { createUndiciFetch, type NodeUpstreamFetch } from '../../node/upstream-fetch.js';

const KEY = 'mg-redirect-key-000001';
const UPSTREAM_KEY = 'upstream-secret-redirect-0123456789';

interface Seen {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

interface Recorder {
  server: Server;
  origin: string;
  seen: Seen[];
}

type Answer = { status: number; headers?: Record<string, string>; body?: string };

async function recorder(answer: (req: Seen, origin: string) => Answer): Promise<Recorder> {
  const seen: Seen[] = [];
  const rec = { seen, origin: '' } as Recorder;
  rec.server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const s: Seen = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks) };
      seen.push(s);
      const a = answer(s, rec.origin);
      res.writeHead(a.status, a.headers ?? {});
      res.end(a.body ?? '');
    });
  });
  await new Promise<void>((r) => rec.server.listen(0, '127.0.0.1', r));
  rec.origin = `http://127.0.0.1:${(rec.server.address() as AddressInfo).port}`;
  return rec;
}

const json = (body: unknown): Answer => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
const sora = (id: string, status: string) => ({ id, object: 'video', model: 'sora-2', status, progress: status === 'completed' ? 100 : 0, created_at: 1767225600, seconds: '4', size: '720x1280' });

/** The second server: anything reaching it is a leak. */
let target: Recorder;
/** The upstream: redirects chat and image calls to `target`; video calls as each test needs. */
let upstream: Recorder;
let redirectStatus = 307;

beforeAll(async () => {
  target = await recorder(() => json({ leaked: true }));
  upstream = await recorder((req, origin) => {
    const redirect: Answer = { status: redirectStatus, headers: { location: `${target.origin}${req.path}` } };
    if (req.method === 'POST' && req.path === '/v1/videos' && !req.body.includes('redirect me')) return json(sora(req.body.includes('ready now') ? 'video_ready' : 'video_queued', req.body.includes('ready now') ? 'completed' : 'queued'));
    if (req.method === 'POST' && req.path.endsWith(':predictLongRunning')) {
      const uri = `${origin}/v1beta/files/veo1:download?alt=media`;
      return json({ name: 'models/veo-3.0-generate-001/operations/op1', done: true, response: { generateVideoResponse: { generatedSamples: [{ video: { uri } }] } } });
    }
    return redirect;
  });
});

afterAll(async () => {
  for (const r of [upstream, target]) {
    r.server.closeAllConnections();
    await new Promise<void>((res) => r.server.close(() => res()));
  }
});

function config(): GatewayConfigInput {
  const base = upstream.origin;
  return {
    providers: [
      { id: 'oai', type: 'openai', baseURL: `${base}/v1`, apiKey: UPSTREAM_KEY },
      { id: 'ant', type: 'anthropic', baseURL: base, apiKey: UPSTREAM_KEY },
      { id: 'gem', type: 'gemini', baseURL: base, apiKey: UPSTREAM_KEY },
    ],
    models: [
      { id: 'gpt-4o', provider: 'oai' },
      { id: 'gpt-image-1', provider: 'oai' },
      { id: 'sora-2', provider: 'oai' },
      { id: 'claude', provider: 'ant', upstreamModel: 'claude-sonnet-4-5' },
      { id: 'gemini-2.5-flash', provider: 'gem' },
      { id: 'veo-3', provider: 'gem', upstreamModel: 'veo-3.0-generate-001' },
    ],
    keys: [{ id: 'k', key: KEY }],
  };
}

const CLIENTS: Array<[string, () => NodeUpstreamFetch | undefined]> = [
  ['the library default (global fetch)', () => undefined],
  ['the standalone server client (createUndiciFetch)', () => createUndiciFetch()],
];

for (const [clientName, makeFetch] of CLIENTS) {
  describe(`upstream redirects with ${clientName}`, () => {
    let gateway: Gateway;
    let upstreamFetch: NodeUpstreamFetch | undefined;

    beforeAll(() => {
      upstreamFetch = makeFetch();
      gateway = createGateway(config(), { env: {}, video: { pollerTickMs: false, staleAfterMs: 0, maxPollFailures: 1 }, ...(upstreamFetch ? { fetch: upstreamFetch } : {}) });
    });
    afterAll(async () => {
      await gateway.close();
      await upstreamFetch?.close();
    });

    const call = (path: string, init: RequestInit & { headers?: Record<string, string> } = {}) =>
      gateway.handle(new Request(`http://gw${path}`, { ...init, headers: { authorization: `Bearer ${KEY}`, ...(init.headers ?? {}) } }));
    const postJson = (path: string, body: unknown, headers: Record<string, string> = {}) =>
      call(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

    /** Runs `send`, then checks: 502 naming the provider, upstream asked once, nothing at the target, no key in the answer. */
    async function expectRefusedRedirect(send: () => Promise<Response>, provider: string, upstreamPath: string, status = 307): Promise<string> {
      const fromUpstream = upstream.seen.length;
      const res = await send();
      const text = await res.text();
      expect(res.status).toBe(502);
      expect(text).toContain(`The upstream provider '${provider}' answered with a redirect (${status}), which the gateway does not follow.`);
      expect(text).not.toContain(UPSTREAM_KEY);
      const asked = upstream.seen.slice(fromUpstream).filter((s) => s.path === upstreamPath);
      expect(asked).toHaveLength(1);
      expect(target.seen).toEqual([]);
      return text;
    }

    it('chat (OpenAI client -> OpenAI upstream), sync and stream, for every redirect status', async () => {
      for (const status of [301, 302, 303, 307, 308]) {
        redirectStatus = status;
        for (const stream of [false, true]) {
          await expectRefusedRedirect(() => postJson('/v1/chat/completions', { model: 'gpt-4o', stream, messages: [{ role: 'user', content: 'hi' }] }), 'oai', '/v1/chat/completions', status);
        }
      }
      redirectStatus = 307;
      const asked = upstream.seen.filter((s) => s.path === '/v1/chat/completions').at(-1) as Seen;
      expect(asked.method).toBe('POST');
      expect(asked.headers.authorization).toBe(`Bearer ${UPSTREAM_KEY}`);
    });

    it('Anthropic messages: x-api-key never reaches the redirect target', async () => {
      const text = await expectRefusedRedirect(
        () => postJson('/v1/messages', { model: 'claude', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }] }, { 'anthropic-version': '2023-06-01' }),
        'ant',
        '/v1/messages',
      );
      expect(JSON.parse(text)).toMatchObject({ type: 'error', error: { type: 'api_error' } });
    });

    it('Gemini generateContent: x-goog-api-key never reaches the redirect target', async () => {
      const text = await expectRefusedRedirect(
        () => postJson('/v1beta/models/gemini-2.5-flash:generateContent', { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
        'gem',
        '/v1beta/models/gemini-2.5-flash:generateContent',
      );
      expect(JSON.parse(text)).toMatchObject({ error: { code: 502 } });
    });

    it('images: generation (JSON) and edit (multipart)', async () => {
      await expectRefusedRedirect(() => postJson('/v1/images/generations', { model: 'gpt-image-1', prompt: 'a cat' }), 'oai', '/v1/images/generations');
      const form = new FormData();
      form.append('model', 'gpt-image-1');
      form.append('prompt', 'add a hat');
      form.append('image', new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 1, 2, 3])], 'cat.png', { type: 'image/png' }));
      await expectRefusedRedirect(() => call('/v1/images/edits', { method: 'POST', body: form }), 'oai', '/v1/images/edits');
      const edit = upstream.seen.filter((s) => s.path === '/v1/images/edits').at(-1) as Seen;
      expect(String(edit.headers['content-type'])).toMatch(/^multipart\/form-data; boundary=/);
    });

    it('video: a redirected Sora submit is a 502; a redirected poll fails the task; a redirected download is a 502', async () => {
      redirectStatus = 302;
      await expectRefusedRedirect(() => postJson('/v1/video/generations', { model: 'sora-2', prompt: 'redirect me' }), 'oai', '/v1/videos', 302);
      const fromUpstream = upstream.seen.length;
      const queued = await postJson('/v1/video/generations', { model: 'sora-2', prompt: 'a slow one' });
      expect(queued.status).toBe(202);
      const { task_id: queuedId } = (await queued.json()) as { task_id: string };
      const polled = await call(`/v1/video/generations/${queuedId}`);
      const task = (await polled.json()) as { status: string; error?: { message: string } };
      expect(task.status).toBe('failed');
      expect(task.error?.message).toContain("The upstream provider 'oai' answered with a redirect (302), which the gateway does not follow.");
      expect(upstream.seen.slice(fromUpstream).filter((s) => s.path === '/v1/videos/video_queued')).toHaveLength(1);

      const ready = await postJson('/v1/video/generations', { model: 'sora-2', prompt: 'ready now' });
      const { task_id: readyId } = (await ready.json()) as { task_id: string };
      await expectRefusedRedirect(() => call(`/v1/video/generations/${readyId}/content`), 'oai', '/v1/videos/video_ready/content', 302);
      redirectStatus = 307;
    });

    it('video: a redirected Veo download (x-goog-api-key on the provider origin) is a 502', async () => {
      const submitted = await postJson('/v1/video/generations', { model: 'veo-3', prompt: 'a drone shot' });
      expect(submitted.status).toBe(202);
      const { task_id: id } = (await submitted.json()) as { task_id: string };
      await expectRefusedRedirect(() => call(`/v1/video/generations/${id}/content`), 'gem', '/v1beta/files/veo1:download?alt=media');
      const asked = upstream.seen.filter((s) => s.path === '/v1beta/files/veo1:download?alt=media').at(-1) as Seen;
      expect(asked.headers['x-goog-api-key']).toBe(UPSTREAM_KEY);
    });
  });
}
