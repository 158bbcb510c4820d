/**
 * Gemini's video generation through the gateway with the official @google/genai client:
 * models.generateVideos (POST :predictLongRunning), operations.getVideosOperation until done, and
 * files.download of the generated video; the same task reached through another vendor (Sora behind
 * a Veo-speaking client); another key's operation a 404; refusals in Gemini's shape naming
 * `parameters.*` and `instances[0].*`. node:http with the shipped upstream client, upstreams the
 * strict Veo and Sora mocks; the poller runs on a real clock.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GoogleGenAI, type GenerateVideosOperation } from '@google/genai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { mediaProviders } from '../../helpers/gateway-config.js';
import { startMockMediaGemini, type MockMediaGemini } from '../../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY_A = 'mg-gemini-videos-key-a-01';
const KEY_B = 'mg-gemini-videos-key-b-02';

let openai: MockMediaOpenAI;
let gemini: MockMediaGemini;
let gateway: Gateway;
let server: RunningServer;

beforeAll(async () => {
  openai = await startMockMediaOpenAI();
  gemini = await startMockMediaGemini();
  gateway = createShippedGateway(
    {
      providers: mediaProviders(openai, gemini),
      models: [
        { id: 'veo-3.0-generate-001', provider: 'google' },
        { id: 'sora-2', provider: 'openai' },
      ],
      keys: [
        { id: 'team-a', key: KEY_A },
        { id: 'team-b', key: KEY_B },
      ],
    },
    { video: { pollerTickMs: 10, pollIntervalMs: 10, maxPollIntervalMs: 20, staleAfterMs: 0 } },
  );
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await openai?.close();
  await gemini?.close();
});

const client = (apiKey = KEY_A): GoogleGenAI => new GoogleGenAI({ apiKey, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 } } });

async function untilDone(ai: GoogleGenAI, first: GenerateVideosOperation): Promise<GenerateVideosOperation> {
  let op = first;
  for (let i = 0; i < 300 && !op.done; i++) {
    await new Promise((r) => setTimeout(r, 20));
    op = await ai.operations.getVideosOperation({ operation: op });
  }
  return op;
}

async function status(call: Promise<unknown>): Promise<{ status?: number; message: string }> {
  const err = (await call.then(
    () => undefined,
    (e: unknown) => e,
  )) as { status?: number; message?: string } | undefined;
  expect(err).toBeDefined();
  return { ...(err?.status !== undefined ? { status: err.status } : {}), message: err?.message ?? '' };
}

describe('models.generateVideos through the gateway', () => {
  it('generates on Veo, follows the operation to done and downloads the video', async () => {
    const ai = client();
    const first = await ai.models.generateVideos({ model: 'veo-3.0-generate-001', prompt: 'a lighthouse at dusk', config: { aspectRatio: '16:9', durationSeconds: 8, resolution: '1080p', negativePrompt: 'people' } });
    expect(first.name).toMatch(/^models\/veo-3.0-generate-001\/operations\/[0-9a-f]{32}$/);
    const sent = gemini.requests.find((r) => r.path.endsWith(':predictLongRunning'))?.body as { instances: unknown[]; parameters: Record<string, unknown> };
    expect(sent.parameters).toMatchObject({ aspectRatio: '16:9', durationSeconds: 8, resolution: '1080p', negativePrompt: 'people' });
    const done = await untilDone(ai, first);
    expect(done.error).toBeUndefined();
    const video = done.response?.generatedVideos?.[0];
    expect(video?.video?.uri).toContain('/v1beta/files/');
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-veo-'));
    const file = join(dir, 'out.mp4');
    await ai.files.download({ file: video as NonNullable<typeof video>, downloadPath: file });
    // The caller never sees the upstream's operation or file.
    expect(JSON.stringify(done)).not.toContain('op1xyz');
    expect(JSON.stringify(done)).not.toContain('file1abc');
    expect(readFileSync(file).equals(gemini.videoBytes('file1abc'))).toBe(true);
  }, 30_000);

  it('reaches another vendor the same way (Sora), and keeps keys apart', async () => {
    const ai = client();
    const first = await ai.models.generateVideos({ model: 'sora-2', prompt: 'a paper plane', config: { aspectRatio: '9:16', durationSeconds: 4 } });
    const done = await untilDone(ai, first);
    expect(done.response?.generatedVideos?.length).toBe(1);
    expect((await status(client(KEY_B).operations.getVideosOperation({ operation: first }))).status).toBe(404);
  }, 30_000);

  it('refuses what it cannot do, naming the field', async () => {
    const ai = client();
    const bad = await status(ai.models.generateVideos({ model: 'veo-3.0-generate-001', prompt: 'x', config: { durationSeconds: 5 } }));
    expect(bad.status).toBe(400);
    expect(bad.message).toContain('parameters.durationSeconds');
    const two = await status(ai.models.generateVideos({ model: 'veo-3.0-generate-001', prompt: 'x', config: { numberOfVideos: 2 } }));
    expect(two.status).toBe(400);
    expect(two.message).toContain('parameters.sampleCount');
    const res = await fetch(`${server.url}/v1beta/models/veo-3.0-generate-001:predictLongRunning`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY_A, 'content-type': 'application/json' },
      body: JSON.stringify({ instances: [{ prompt: 'x', image: { bytesBase64Encoded: 'AAAA', mimeType: 'image/png' } }] }),
    });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 400, status: 'INVALID_ARGUMENT' });
    expect(body.error.message).toContain('instances[0].image');
  });
});
