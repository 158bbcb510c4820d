/**
 * The shipped path end to end: the real CLI process (`node dist/node/cli.js --config FILE`, as
 * `npm start` runs it) in front of the strict mock vendors. Chat with the openai SDK (sync and
 * stream), image generation and a multipart edit (the SDK's images.edit), a Sora video
 * (multipart submit -> poll -> content) and a Veo video. Upstream keys come from `${VAR}`
 * references in the config file, as an operator writes them.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI, { toFile } from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';
import { startMockMediaGemini, type MockMediaGemini } from '../../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';
import { PNG_BASE64, sha256, type MultipartBody } from '../../helpers/mock-media-server.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';

const PLATFORM_KEY = 'mg-cli-shipped-key-0001';
const PNG = Buffer.from(PNG_BASE64, 'base64');

let chat: MockOpenAI;
let media: MockMediaOpenAI;
let gemini: MockMediaGemini;
let child: ChildProcess | undefined;
let url: string;
let output: () => string;
let client: OpenAI;

beforeAll(async () => {
  await ensureCliBuilt();
  [chat, media, gemini] = await Promise.all([startMockOpenAI(), startMockMediaOpenAI(), startMockMediaGemini()]);
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-cli-shipped-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      providers: [
        { id: 'chat', type: 'openai', baseURL: chat.baseURL, apiKey: '${CHAT_KEY}' },
        { id: 'media', type: 'openai', baseURL: media.baseURL, apiKey: '${MEDIA_KEY}' },
        { id: 'google', type: 'gemini', baseURL: gemini.baseURL, apiKey: '${GEMINI_KEY}' },
      ],
      models: [
        { id: 'gpt-4o', provider: 'chat' },
        { id: 'gpt-image-1', provider: 'media' },
        { id: 'sora-2', provider: 'media' },
        { id: 'veo-3', provider: 'google', upstreamModel: 'veo-3.0-generate-001' },
      ],
      keys: [{ id: 'k', key: PLATFORM_KEY }],
    }),
  );
  const started = await spawnCli(['--config', configPath], { CHAT_KEY: chat.apiKey, MEDIA_KEY: media.apiKey, GEMINI_KEY: gemini.apiKey });
  child = started.child;
  url = started.url;
  output = started.output;
  client = new OpenAI({ baseURL: `${url}/v1`, apiKey: PLATFORM_KEY, maxRetries: 0 });
}, 180_000);

afterAll(async () => {
  if (child) await stopChild(child);
  await Promise.all([chat?.close(), media?.close(), gemini?.close()]);
});

describe('the standalone server (real CLI process) against the strict mock vendors', () => {
  it('chat with the openai SDK, sync and stream', async () => {
    const sync = await client.chat.completions.create({ model: 'gpt-4o', messages: [{ role: 'user', content: 'hello shipped path' }] });
    expect(sync.choices[0]?.message.content).toBe('[openai] you said: hello shipped path');
    const sent = chat.requests.at(-1);
    expect(sent?.headers['content-type']).toBe('application/json');
    expect(sent?.headers.authorization).toBe(`Bearer ${chat.apiKey}`);

    const stream = await client.chat.completions.create({ model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: 'one two three' }] });
    let text = '';
    let finish: string | null | undefined;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta?.content ?? '';
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('[openai] you said: one two three');
    expect(finish).toBe('stop');
  });

  it('image generation (JSON upstream) and an edit that reaches the upstream as real multipart', async () => {
    const generated = await client.images.generate({ model: 'gpt-image-1', prompt: 'a lighthouse' });
    expect(Buffer.from(generated.data?.[0]?.b64_json ?? '', 'base64').subarray(0, 8).equals(PNG.subarray(0, 8))).toBe(true);
    expect(media.requests.at(-1)?.headers['content-type']).toBe('application/json');

    const image = Buffer.concat([PNG, Buffer.from('first')]);
    const mask = Buffer.concat([PNG, Buffer.from('mask')]);
    const before = media.requests.length;
    const edited = await client.images.edit({
      model: 'gpt-image-1',
      image: await toFile(image, 'photo.png', { type: 'image/png' }),
      mask: await toFile(mask, 'mask.png', { type: 'image/png' }),
      prompt: 'add a red hat',
    });
    expect(edited.data?.[0]?.b64_json).toBe(PNG_BASE64);
    const sent = media.requests.slice(before);
    expect(sent).toHaveLength(1);
    expect(sent[0]?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=\S+$/);
    // A known length, as fetch sends a FormData (not chunked).
    expect(sent[0]?.headers['content-length']).toMatch(/^[1-9]\d*$/);
    expect(sent[0]?.headers['transfer-encoding']).toBeUndefined();
    const form = sent[0]?.body as MultipartBody;
    expect(Object.fromEntries(form.fields)).toEqual({ model: 'gpt-image-1', prompt: 'add a red hat' });
    expect(form.files.map((f) => [f.field, f.filename, f.type, f.sha256])).toEqual([
      ['image', 'photo.png', 'image/png', sha256(image)],
      ['mask', 'mask.png', 'image/png', sha256(mask)],
    ]);
  });

  async function videoUntilDone(model: string, prompt: string): Promise<{ id: string; content: Buffer }> {
    const headers = { authorization: `Bearer ${PLATFORM_KEY}`, 'content-type': 'application/json' };
    const submitted = await fetch(`${url}/v1/video/generations`, { method: 'POST', headers, body: JSON.stringify({ model, prompt }) });
    expect(submitted.status).toBe(202);
    const { task_id: id } = (await submitted.json()) as { task_id: string };
    // The server's own poller advances the task (default timings); read until it is terminal.
    let task: { status: string; error?: unknown } = { status: 'accepted' };
    while (!['succeeded', 'failed', 'cancelled'].includes(task.status)) {
      await new Promise((r) => setTimeout(r, 400));
      const read = await fetch(`${url}/v1/video/generations/${id}`, { headers });
      expect(read.status).toBe(200);
      task = (await read.json()) as typeof task;
    }
    expect(task.status, JSON.stringify(task)).toBe('succeeded');
    const content = await fetch(`${url}/v1/video/generations/${id}/content`, { headers });
    expect(content.status).toBe(200);
    expect(content.headers.get('content-type')).toBe('video/mp4');
    return { id, content: Buffer.from(await content.arrayBuffer()) };
  }

  it('a Sora video and a Veo video: submit -> poll -> content bytes equal the upstream bytes', async () => {
    const [soraVideo, veoVideo] = await Promise.all([videoUntilDone('sora-2', 'a paper boat on a river'), videoUntilDone('veo-3', 'a drone shot over a forest')]);

    const submit = media.requests.find((r) => r.method === 'POST' && r.path === '/v1/videos');
    expect(submit?.headers['content-type']).toMatch(/^multipart\/form-data; boundary=\S+$/);
    expect(Object.fromEntries((submit?.body as MultipartBody).fields)).toMatchObject({ model: 'sora-2', prompt: 'a paper boat on a river' });
    const soraId = media.videoIds.at(-1) as string;
    expect(soraVideo.content.equals(media.videoBytes(soraId))).toBe(true);

    const veoSubmit = gemini.requests.find((r) => r.method === 'POST' && r.path.endsWith(':predictLongRunning'));
    expect(veoSubmit?.headers['content-type']).toBe('application/json');
    const download = gemini.requests.filter((r) => r.path.includes(':download')).at(-1);
    const fileId = /files\/([^:]+):download/.exec(download?.path ?? '')?.[1] as string;
    expect(veoVideo.content.equals(gemini.videoBytes(fileId))).toBe(true);
  }, 90_000);

  it('never prints an upstream key, and runs on its own (the REDIS_URL of the test run does not reach it)', () => {
    for (const key of [chat.apiKey, media.apiKey, gemini.apiKey]) expect(output()).not.toContain(key);
    expect(output()).toContain('listening on');
    expect(output()).not.toContain('shared through Redis');
  });
});
