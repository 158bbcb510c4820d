/**
 * Video generation end to end with plain fetch: the gateway (node:http) in front of strict mock
 * OpenAI Videos and Gemini Veo upstreams and the built-in mock provider. The gateway clock is
 * injected; reads refresh a task once its last poll is older than `staleAfterMs`.
 */
import { createHmac } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway, GatewayConfigInput, VideoTaskOptions } from '../../../src/index.js';
import { mediaProviders } from '../../helpers/gateway-config.js';
import { startMockMediaGemini, type MockMediaGemini } from '../../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';
import type { MultipartBody } from '../../helpers/mock-media-server.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY_A = 'mg-video-key-a-000001';
const KEY_B = 'mg-video-key-b-000002';

let openai: MockMediaOpenAI;
let gemini: MockMediaGemini;

function config(): GatewayConfigInput {
  return {
    providers: mediaProviders(openai, gemini),
    models: [
      { id: 'sora-2', provider: 'openai' },
      { id: 'sora-2-pro', provider: 'openai' },
      { id: 'veo-3', provider: 'google', upstreamModel: 'veo-3.0-generate-001' },
      { id: 'veo-2', provider: 'google', upstreamModel: 'veo-2.0-generate-001' },
      { id: 'veo-custom', provider: 'google', upstreamModel: 'veo-3.1-generate-preview', options: { video: { durations: [8], resolutions: ['720p'] } } },
      { id: 'mock-video', provider: 'mock', capabilities: ['video'] },
      { id: 'gpt-4o', provider: 'openai' },
    ],
    keys: [
      { id: 'team-a', key: KEY_A, models: ['*'] },
      { id: 'team-b', key: KEY_B, models: ['*'] },
    ],
  };
}

interface Testbed {
  gateway: Gateway;
  server: RunningServer;
  clock: { now: number };
  close(): Promise<void>;
}

async function startGateway(video: VideoTaskOptions, realClock = false): Promise<Testbed> {
  const clock = { now: 1_767_225_600_000 };
  const gateway = createShippedGateway(config(), { ...(realClock ? {} : { now: () => clock.now }), video });
  const server = await serve(gateway, { port: 0 });
  return {
    gateway,
    server,
    clock,
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

async function call(bed: Testbed, method: string, path: string, key: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: Record<string, unknown>; headers: Headers }> {
  const res = await fetch(`${bed.server.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${key}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  return { status: res.status, json: (await res.json()) as Record<string, unknown>, headers: res.headers };
}

const submit = (bed: Testbed, body: unknown, key = KEY_A, headers: Record<string, string> = {}) => call(bed, 'POST', '/v1/video/generations', key, body, headers);
const getTask = (bed: Testbed, id: string, key = KEY_A) => call(bed, 'GET', `/v1/video/generations/${id}`, key);

/** Moves the clock past the staleness window and reads the task (which polls the upstream once). */
async function tick(bed: Testbed, id: string, key = KEY_A): Promise<Record<string, unknown>> {
  bed.clock.now += 1500;
  const r = await getTask(bed, id, key);
  expect(r.status).toBe(200);
  return r.json;
}

let bed: Testbed;

beforeAll(async () => {
  openai = await startMockMediaOpenAI();
  gemini = await startMockMediaGemini();
  bed = await startGateway({ pollerTickMs: false, staleAfterMs: 1000, pollIntervalMs: 1000 });
});

afterAll(async () => {
  await bed.close();
  await openai.close();
  await gemini.close();
});

describe('OpenAI Videos upstream', () => {
  it('submit -> poll -> succeeded -> content bytes equal the upstream bytes', async () => {
    const before = openai.requests.length;
    const sub = await submit(bed, { model: 'sora-2', prompt: 'A calico cat playing piano', duration: 8, metadata: { aspectRatio: '16:9', resolution: '720p' } }, KEY_A, { 'request-id': 'req-cat-1' });
    expect(sub.status).toBe(202);
    expect(sub.json).toMatchObject({ request_id: 'req-cat-1', status: 'accepted' });
    expect(sub.json.message).toEqual(expect.any(String));
    const id = String(sub.json.task_id);
    expect(id).toMatch(/^vtask_/);

    const create = openai.requests[before];
    expect(create?.method).toBe('POST');
    expect(create?.path).toBe('/v1/videos');
    expect(create?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);
    expect(Object.fromEntries((create?.body as MultipartBody).fields)).toEqual({ model: 'sora-2', prompt: 'A calico cat playing piano', seconds: '8', size: '1280x720' });
    const upstreamId = openai.videoIds.at(-1) as string;

    const first = await getTask(bed, id);
    expect(first.json).toMatchObject({ id, task_id: id, object: 'video.generation', status: 'queued', progress: 0, model: 'sora-2', request_id: 'req-cat-1', error: null, result: null });
    expect(first.json.created_at).toBe(1_767_225_600);
    expect(first.json.metadata).toEqual({ durationSeconds: 8, aspectRatio: '16:9', resolution: '720p' });
    expect(openai.requests.length).toBe(before + 1); // fresh: no poll yet

    expect(await tick(bed, id)).toMatchObject({ status: 'in_progress', progress: 40 });
    expect(await tick(bed, id)).toMatchObject({ status: 'in_progress', progress: 80 });
    const done = await tick(bed, id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 100, error: null });
    expect(done.result).toEqual({ url: `/v1/video/generations/${id}/content`, urls: [`/v1/video/generations/${id}/content`], content_type: 'video/mp4' });
    expect(done.started_at).toEqual(expect.any(Number));
    expect(done.completed_at).toEqual(expect.any(Number));
    expect(JSON.stringify(done)).not.toContain(upstreamId);

    const content = await fetch(`${bed.server.url}/v1/video/generations/${id}/content`, { headers: { authorization: `Bearer ${KEY_A}` } });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.equals(openai.videoBytes(upstreamId))).toBe(true);
    expect(content.headers.get('content-length')).toBe(String(bytes.length));
    const download = openai.requests.at(-1);
    expect(download?.path).toBe(`/v1/videos/${upstreamId}/content`);
    expect(download?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);

    // Finished tasks are not polled again.
    const polls = openai.requests.length;
    expect((await tick(bed, id)).status).toBe('succeeded');
    expect(openai.requests.length).toBe(polls);
  });

  it('an upstream failure ends the task as failed with the reason', async () => {
    const sub = await submit(bed, { model: 'sora-2', prompt: 'please fail now' });
    const id = String(sub.json.task_id);
    await tick(bed, id);
    await tick(bed, id);
    const failed = await tick(bed, id);
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'moderation_blocked', message: 'Your request was blocked by our moderation system.' }, result: null });
    const content = await call(bed, 'GET', `/v1/video/generations/${id}/content`, KEY_A);
    expect(content.status).toBe(409);
  });

  it('a refused submission is the caller\'s error, with the upstream message and no key', async () => {
    openai.failNext(400, { error: { message: `Bad thing with key ${openai.apiKey}`, type: 'invalid_request_error', param: null, code: null } });
    const r = await submit(bed, { model: 'sora-2', prompt: 'x' });
    expect(r.status).toBe(400);
    expect(JSON.stringify(r.json)).toContain('Bad thing');
    expect(JSON.stringify(r.json)).not.toContain(openai.apiKey);
  });

  it('a job the upstream lost fails the task instead of polling forever', async () => {
    const sub = await submit(bed, { model: 'sora-2', prompt: 'lost job' });
    const id = String(sub.json.task_id);
    openai.failNext(404, { error: { message: 'Video not found', type: 'invalid_request_error', param: null, code: 'video_not_found' } });
    const t = await tick(bed, id);
    expect(t.status).toBe('failed');
    expect((t.error as { code: string }).code).toBe('upstream_error');
  });

  it('cancel marks the task cancelled and deletes the upstream job', async () => {
    const sub = await submit(bed, { model: 'sora-2', prompt: 'cancel me' });
    const id = String(sub.json.task_id);
    const upstreamId = openai.videoIds.at(-1) as string;
    const r = await call(bed, 'DELETE', `/v1/video/generations/${id}`, KEY_A);
    expect(r.status).toBe(200);
    expect(r.json.status).toBe('cancelled');
    // Cancelled while queued: it never started.
    expect(r.json).toMatchObject({ started_at: null, completed_at: expect.any(Number) });
    expect(openai.requests.at(-1)).toMatchObject({ method: 'DELETE', path: `/v1/videos/${upstreamId}` });
    expect((await tick(bed, id)).status).toBe('cancelled');
  });
});

describe('Google Veo upstream', () => {
  it('submit -> operation polling -> succeeded -> proxied download', async () => {
    const before = gemini.requests.length;
    const sub = await submit(bed, {
      model: 'veo-3',
      prompt: 'A drone shot over a misty forest',
      metadata: { durationSeconds: 6, aspectRatio: '9:16', resolution: '1080p', negativePrompt: 'text, watermark', personGeneration: 'allow_all', generateAudio: true },
    });
    expect(sub.status).toBe(202);
    const id = String(sub.json.task_id);
    const create = gemini.requests[before];
    expect(create?.path).toBe('/v1beta/models/veo-3.0-generate-001:predictLongRunning');
    expect(create?.headers['x-goog-api-key']).toBe(gemini.apiKey);
    expect(create?.body).toEqual({
      instances: [{ prompt: 'A drone shot over a misty forest' }],
      parameters: { aspectRatio: '9:16', resolution: '1080p', durationSeconds: 6, sampleCount: 1, negativePrompt: 'text, watermark', personGeneration: 'allow_all' },
    });
    const op = gemini.operations.at(-1) as string;

    expect(await tick(bed, id)).toMatchObject({ status: 'in_progress', progress: 50 });
    expect(gemini.requests.at(-1)?.path).toBe(`/v1beta/${op}`);
    const done = await tick(bed, id);
    expect(done).toMatchObject({ status: 'succeeded', progress: 100 });
    expect(JSON.stringify(done)).not.toContain('googleapis');
    expect(JSON.stringify(done)).not.toContain('/files/');

    const content = await fetch(`${bed.server.url}/v1/video/generations/${id}/content`, { headers: { authorization: `Bearer ${KEY_A}` } });
    expect(content.status).toBe(200);
    const fileId = /operations\/op(\d+)xyz$/.exec(op)?.[1];
    expect(Buffer.from(await content.arrayBuffer()).equals(gemini.videoBytes(`file${fileId}abc`))).toBe(true);
    const download = gemini.requests.at(-1);
    expect(download?.path).toBe(`/v1beta/files/file${fileId}abc:download`);
    expect(download?.query.get('alt')).toBe('media');
    expect(download?.headers['x-goog-api-key']).toBe(gemini.apiKey);
  });

  it('an operation error fails the task with its message', async () => {
    const id = String((await submit(bed, { model: 'veo-3', prompt: 'this will fail' })).json.task_id);
    await tick(bed, id);
    expect(await tick(bed, id)).toMatchObject({ status: 'failed', error: { code: 'INTERNAL', message: 'Video generation failed: the model ran into an internal error.' } });
  });

  it('a safety-filtered result fails the task with the filter reason', async () => {
    const id = String((await submit(bed, { model: 'veo-3', prompt: 'filtered content' })).json.task_id);
    await tick(bed, id);
    expect(await tick(bed, id)).toMatchObject({
      status: 'failed',
      error: { code: 'content_filtered', message: 'The video could not be generated because it may violate the usage guidelines.' },
    });
  });
});

describe('validation against the chosen model', () => {
  const cases: Array<[string, Record<string, unknown>, number, string]> = [
    ['duration not offered by sora-2', { model: 'sora-2', prompt: 'x', duration: 5 }, 400, 'duration'],
    ['durationSeconds not offered by veo-3', { model: 'veo-3', prompt: 'x', metadata: { durationSeconds: 5 } }, 400, 'metadata.durationSeconds'],
    ['aspect ratio not offered', { model: 'sora-2', prompt: 'x', metadata: { aspectRatio: '4:3' } }, 400, 'metadata.aspectRatio'],
    ['malformed aspect ratio', { model: 'sora-2', prompt: 'x', metadata: { aspectRatio: 'wide' } }, 400, 'metadata.aspectRatio'],
    ['resolution not offered by sora-2', { model: 'sora-2', prompt: 'x', metadata: { resolution: '1080p' } }, 400, 'metadata.resolution'],
    ['malformed resolution', { model: 'veo-3', prompt: 'x', metadata: { resolution: 'HD' } }, 400, 'metadata.resolution'],
    ['negative prompt on sora-2', { model: 'sora-2', prompt: 'x', metadata: { negativePrompt: 'blur' } }, 400, 'metadata.negativePrompt'],
    ['personGeneration on sora-2', { model: 'sora-2', prompt: 'x', metadata: { personGeneration: 'allow_all' } }, 400, 'metadata.personGeneration'],
    ['unknown personGeneration', { model: 'veo-3', prompt: 'x', metadata: { personGeneration: 'everyone' } }, 400, 'metadata.personGeneration'],
    ['audio off on veo-3', { model: 'veo-3', prompt: 'x', metadata: { generateAudio: false } }, 400, 'metadata.generateAudio'],
    ['audio on veo-2', { model: 'veo-2', prompt: 'x', metadata: { generateAudio: true } }, 400, 'metadata.generateAudio'],
    ['per-model limits from config', { model: 'veo-custom', prompt: 'x', metadata: { durationSeconds: 4 } }, 400, 'metadata.durationSeconds'],
    ['duration and durationSeconds disagree', { model: 'veo-3', prompt: 'x', duration: 4, metadata: { durationSeconds: 8 } }, 400, 'metadata.durationSeconds'],
    ['missing prompt', { model: 'veo-3' }, 400, 'prompt'],
    ['non-integer duration', { model: 'sora-2', prompt: 'x', duration: 4.5 }, 400, 'duration'],
    ['unknown field', { model: 'sora-2', prompt: 'x', fps: 24 }, 400, 'fps'],
    ['unknown metadata field', { model: 'veo-3', prompt: 'x', metadata: { seed: 7 } }, 400, 'metadata.seed'],
    ['callback_url without a signing secret', { model: 'sora-2', prompt: 'x', callback_url: 'https://example.com/hook' }, 400, 'callback_url'],
    ['chat model', { model: 'gpt-4o', prompt: 'x' }, 400, 'model'],
    ['unknown model', { model: 'nope', prompt: 'x' }, 404, 'model'],
  ];
  it.each(cases)('%s', async (_name, body, status, param) => {
    const before = openai.requests.length + gemini.requests.length;
    const r = await submit(bed, body);
    expect(r.status).toBe(status);
    expect((r.json.error as { param: string }).param).toBe(param);
    expect(openai.requests.length + gemini.requests.length).toBe(before);
  });

  it('callback_url on localhost or a private network is refused by default (no request forgery into the gateway network)', async () => {
    const guarded = await startGateway({ callbackSecret: 'cb-secret-for-tests-123' });
    try {
      for (const url of ['http://127.0.0.1:9/hook', 'http://localhost/hook', 'http://10.1.2.3/hook', 'http://[::1]/hook', 'http://169.254.169.254/latest']) {
        const r = await submit(guarded, { model: 'sora-2', prompt: 'x', callback_url: url });
        expect(r.status).toBe(400);
        expect((r.json.error as { param: string }).param).toBe('callback_url');
      }
      expect((await submit(guarded, { model: 'sora-2', prompt: 'x', callback_url: 'https://hooks.example.com/video' })).status).toBe(202);
    } finally {
      await guarded.close();
    }
  });

  it('defaults fill in what the caller leaves out', async () => {
    const id = String((await submit(bed, { model: 'veo-2', prompt: 'defaults' })).json.task_id);
    expect(gemini.requests.at(-1)?.body).toMatchObject({ parameters: { aspectRatio: '16:9', resolution: '720p', durationSeconds: 8 } });
    expect((await getTask(bed, id)).json.metadata).toEqual({ durationSeconds: 8, aspectRatio: '16:9', resolution: '720p' });
  });
});

describe('idempotency and ownership', () => {
  it('a repeated Request-Id from the same key returns the same task without a second generation', async () => {
    const body = { model: 'sora-2', prompt: 'Only once', duration: 4 };
    const creates = () => openai.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;
    const before = creates();
    const first = await submit(bed, body, KEY_A, { 'request-id': 'idem-42' });
    const second = await submit(bed, body, KEY_A, { 'request-id': 'idem-42' });
    expect(first.status).toBe(202);
    expect(second.status).toBe(202);
    expect(second.json.task_id).toBe(first.json.task_id);
    expect(second.json.request_id).toBe('idem-42');
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(creates()).toBe(before + 1);

    const otherKey = await submit(bed, body, KEY_B, { 'request-id': 'idem-42' });
    expect(otherKey.json.task_id).not.toBe(first.json.task_id);
    expect(creates()).toBe(before + 2);

    const changed = await submit(bed, { ...body, prompt: 'Something else' }, KEY_A, { 'request-id': 'idem-42' });
    expect(changed.status).toBe(409);
    expect(creates()).toBe(before + 2);
  });

  it('another key cannot see, download or cancel the task (404, not 403)', async () => {
    const id = String((await submit(bed, { model: 'sora-2', prompt: 'private' })).json.task_id);
    expect((await getTask(bed, id, KEY_B)).status).toBe(404);
    expect((await call(bed, 'GET', `/v1/video/generations/${id}/content`, KEY_B)).status).toBe(404);
    expect((await call(bed, 'DELETE', `/v1/video/generations/${id}`, KEY_B)).status).toBe(404);
    expect((await getTask(bed, 'vtask_doesnotexist', KEY_B)).status).toBe(404);
    expect((await getTask(bed, id, KEY_A)).status).toBe(200);
  });
});

describe('mock video model', () => {
  it('progresses through the states in seconds and serves an MP4-shaped body', async () => {
    const sub = await submit(bed, { model: 'mock-video', prompt: 'a mock movie', duration: 8, metadata: { resolution: '1080p', aspectRatio: '1:1' } });
    const id = String(sub.json.task_id);
    expect((await getTask(bed, id)).json.status).toBe('queued');
    const t1 = await tick(bed, id);
    expect(t1.status).toBe('in_progress');
    const t2 = await tick(bed, id);
    expect(t2.status).toBe('succeeded');
    const content = await fetch(`${bed.server.url}/v1/video/generations/${id}/content`, { headers: { authorization: `Bearer ${KEY_A}` } });
    const bytes = Buffer.from(await content.arrayBuffer());
    expect(bytes.subarray(4, 8).toString('latin1')).toBe('ftyp');
  });

  it('fails when asked to', async () => {
    const id = String((await submit(bed, { model: 'mock-video', prompt: 'please [fail]' })).json.task_id);
    await tick(bed, id);
    const t = await tick(bed, id);
    expect(t).toMatchObject({ status: 'failed', error: { code: 'mock_failure' } });
  });
});

describe('background poller and callbacks', () => {
  let hooks: Server;
  let hookUrl: string;
  const received: Array<{ headers: IncomingMessage['headers']; body: string }> = [];
  let failFirst = 1;

  beforeAll(async () => {
    hooks = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
        res.writeHead(failFirst-- > 0 ? 500 : 204).end();
      });
    });
    await new Promise<void>((r) => hooks.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}/hooks/video`;
  });

  afterAll(async () => {
    await new Promise<void>((r) => hooks.close(() => r()));
  });

  it('advances tasks without reads and posts a signed callback, retried until accepted', async () => {
    const secret = 'cb-secret-for-tests-123';
    const live = await startGateway({ pollerTickMs: 10, pollIntervalMs: 10, maxPollIntervalMs: 20, staleAfterMs: 3_600_000, callbackSecret: secret, callbackBackoffMs: 10, allowPrivateCallbackHosts: true }, true);
    try {
      const sub = await submit(live, { model: 'sora-2', prompt: 'with a callback', callback_url: hookUrl });
      expect(sub.status).toBe(202);
      const id = String(sub.json.task_id);
      await vi.waitFor(() => expect(received.length).toBeGreaterThanOrEqual(2), { timeout: 10_000, interval: 20 });
      const [first, second] = received;
      expect(first?.body).toBe(second?.body);
      const task = JSON.parse(second?.body ?? '{}') as Record<string, unknown>;
      expect(task).toMatchObject({ task_id: id, status: 'succeeded', progress: 100 });
      expect(second?.headers['x-modelgate-event']).toBe('video.generation.succeeded');
      const ts = String(second?.headers['x-modelgate-timestamp']);
      const expected = `v1=${createHmac('sha256', secret).update(`${ts}.${second?.body}`).digest('hex')}`;
      expect(second?.headers['x-modelgate-signature']).toBe(expected);
      const read = await getTask(live, id);
      expect(read.json.status).toBe('succeeded');
    } finally {
      await live.close();
    }
  });
});
