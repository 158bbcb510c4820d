/**
 * OpenAI's Videos API through the gateway with the official openai SDK's `client.videos`: create
 * (the SDK sends multipart), retrieve until completed, list (newest first, paged), download the
 * content, delete (404 afterwards), another key's 404, and 400s naming the field. Through the
 * shipped CLI server on a SQLite file (its task records list the videos), upstream = the strict
 * OpenAI Videos mock (Sora).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIRefusal } from '../../helpers/openai-refusal.js';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';

const KEY_A = 'mg-openai-videos-key-a-0001';
const KEY_B = 'mg-openai-videos-key-b-0002';

let upstream: MockMediaOpenAI;
let child: ChildProcess | undefined;
let url: string;
let output: () => string;

beforeAll(async () => {
  await ensureCliBuilt();
  upstream = await startMockMediaOpenAI();
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-openai-videos-'));
  const config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'openai', type: 'openai', baseURL: upstream.baseURL, apiKey: upstream.apiKey }],
      models: [
        { id: 'sora-2', provider: 'openai' },
        { id: 'sora-2-pro', provider: 'openai' },
        { id: 'gpt-4o', provider: 'openai' },
      ],
      keys: [
        { id: 'team-a', key: KEY_A },
        { id: 'team-b', key: KEY_B },
      ],
    }),
  );
  const started = await spawnCli(['--config', config, '--db', join(dir, 'store.db'), '--quiet'], {});
  child = started.child;
  url = started.url;
  output = started.output;
}, 180_000);

afterAll(async () => {
  if (child) await stopChild(child);
  await upstream?.close();
  expect(output()).not.toContain(upstream.apiKey);
});

const client = (key = KEY_A): OpenAI => new OpenAI({ apiKey: key, baseURL: `${url}/v1`, maxRetries: 0 });

async function refusal(call: Promise<unknown>): Promise<{ status: number; param: unknown; message: string }> {
  const r = await openAIRefusal(call);
  expect(JSON.stringify(r.body)).not.toContain(upstream.apiKey);
  return r;
}

describe('client.videos through the gateway', () => {
  it('creates, follows to completed, downloads, lists and deletes', async () => {
    const openai = client();
    const { data: created, response } = await openai.videos.create({ model: 'sora-2-pro', prompt: 'a paper boat on a river', seconds: '8', size: '1792x1024' }).withResponse();
    expect(response.headers.get('x-modelgate-attempts')).toBe('1'); // one upstream call
    expect(created).toMatchObject({ object: 'video', model: 'sora-2-pro', status: 'queued', seconds: '8', size: '1792x1024', prompt: 'a paper boat on a river', error: null });
    expect(typeof created.created_at).toBe('number');
    // The upstream got OpenAI's own fields back.
    const sent = upstream.requests.find((r) => r.method === 'POST' && r.path === '/v1/videos');
    expect(sent).toBeDefined();

    let video = created;
    for (let i = 0; i < 200 && video.status !== 'completed'; i++) {
      await new Promise((r) => setTimeout(r, 200));
      video = await openai.videos.retrieve(created.id);
      expect(['queued', 'in_progress', 'completed']).toContain(video.status);
    }
    expect(video).toMatchObject({ id: created.id, status: 'completed', progress: 100 });
    expect(typeof video.completed_at).toBe('number');

    const content = await openai.videos.downloadContent(created.id);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    const upstreamId = upstream.videoIds.at(-1) as string;
    expect(Buffer.from(await content.arrayBuffer()).equals(upstream.videoBytes(upstreamId))).toBe(true);
    expect((await refusal(openai.videos.downloadContent(created.id, { variant: 'thumbnail' }))).param).toBe('variant');

    const second = await openai.videos.create({ model: 'sora-2', prompt: 'a second clip' });
    expect(second).toMatchObject({ seconds: '4', size: '1280x720' });
    const page = await openai.videos.list({ limit: 1 });
    expect(page.data.map((v) => v.id)).toEqual([second.id]);
    const all: string[] = [];
    for await (const v of openai.videos.list({ limit: 1 })) all.push(v.id);
    expect(all).toEqual([second.id, created.id]);

    const deleted = await openai.videos.delete(created.id);
    expect(deleted).toMatchObject({ id: created.id, object: 'video.deleted', deleted: true });
    expect((await refusal(openai.videos.retrieve(created.id))).status).toBe(404);
    const left: string[] = [];
    for await (const v of openai.videos.list()) left.push(v.id);
    expect(left).toEqual([second.id]);
  }, 90_000);

  it("another key's video is a 404; bad fields are 400s naming them", async () => {
    const mine = await client().videos.create({ model: 'sora-2', prompt: 'mine alone' });
    const other = client(KEY_B);
    expect((await refusal(other.videos.retrieve(mine.id))).status).toBe(404);
    expect((await refusal(other.videos.delete(mine.id))).status).toBe(404);
    expect((await refusal(other.videos.downloadContent(mine.id))).status).toBe(404);
    const openai = client();
    expect(await refusal(openai.videos.create({ model: 'sora-2', prompt: '' }))).toMatchObject({ status: 400, param: 'prompt' });
    expect(await refusal(openai.videos.create({ model: 'sora-2', prompt: 'x', seconds: '5' as '4' }))).toMatchObject({ status: 400, param: 'seconds' });
    expect(await refusal(openai.videos.create({ model: 'sora-2', prompt: 'x', size: 'big' as '720x1280' }))).toMatchObject({ status: 400, param: 'size' });
    expect(await refusal(openai.videos.create({ model: 'sora-2', prompt: 'x', size: '1792x1024' }))).toMatchObject({ status: 400, param: 'size' });
    expect(await refusal(openai.videos.create({ model: 'gpt-4o', prompt: 'x' }))).toMatchObject({ status: 400 });
    expect(await refusal(openai.videos.create({ model: 'sora-2', prompt: 'x', input_reference: new File([new Uint8Array([1, 2, 3])], 'start.png', { type: 'image/png' }) }))).toMatchObject({ status: 400, param: 'input_reference' });
    const unknown = await fetch(`${url}/v1/videos`, { method: 'POST', headers: { authorization: `Bearer ${KEY_A}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'x', model: 'sora-2', loop: true }) });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { error: { param: string } }).error.param).toBe('loop');
  }, 60_000);
});
