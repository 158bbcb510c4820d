/**
 * n images from a Gemini image model are n generateContent calls: when one of them fails, the retry
 * asks only for the missing ones (not the whole batch again), and the answer's usage and cost are
 * those of every image the upstream made; a request that fails after some images were made (one
 * of three refused for safety) still pays for them. The openai SDK through node:http with the
 * shipped upstream client, upstream the strict Gemini media mock.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import type { ResponseEvent } from '../../../src/observability/hooks.js';
import { mediaProviders } from '../../helpers/gateway-config.js';
import { startMockMediaGemini, type MockMediaGemini } from '../../helpers/mock-media-gemini.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../../helpers/mock-media-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

const KEY = 'mg-images-batch-key-0001';
const PRICING = { inputPerMTok: 1, outputPerMTok: 30 };

let openai: MockMediaOpenAI;
let gemini: MockMediaGemini;
let gateway: Gateway;
let server: RunningServer;
const events: ResponseEvent[] = [];

beforeAll(async () => {
  openai = await startMockMediaOpenAI();
  gemini = await startMockMediaGemini();
  gateway = createShippedGateway(
    { providers: mediaProviders(openai, gemini), models: [{ id: 'nano-banana', provider: 'google', upstreamModel: 'gemini-2.5-flash-image', pricing: PRICING }], keys: [{ id: 'k', key: KEY }] },
    { hooks: { onResponse: (e) => void events.push(e) } },
  );
  server = await serve(gateway, { port: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await openai?.close();
  await gemini?.close();
});

const client = (): OpenAI => new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
const generateCalls = (): number => gemini.requests.filter((r) => r.path.endsWith(':generateContent')).length;

describe('n images from Gemini', () => {
  it('one failed call of three: only it is made again; usage and cost count the three images', async () => {
    const single = await client().images.generate({ model: 'nano-banana', prompt: 'a red kite' });
    const before = generateCalls();
    gemini.failNext(503, { error: { code: 503, message: 'The model is overloaded.', status: 'UNAVAILABLE' } });
    const { data, response } = await client().images.generate({ model: 'nano-banana', prompt: 'a red kite', n: 3 }).withResponse();
    expect(data.data?.length).toBe(3);
    expect(generateCalls() - before).toBe(4);
    expect(data.usage?.output_tokens).toBe((single.usage?.output_tokens ?? 0) * 3);
    const cost = Number(response.headers.get('x-modelgate-cost-usd'));
    expect(cost).toBeCloseTo(((data.usage?.input_tokens ?? 0) * PRICING.inputPerMTok + (data.usage?.output_tokens ?? 0) * PRICING.outputPerMTok) / 1e6, 9);
  });

  it('a request refused after images were made still records their usage and cost', async () => {
    events.length = 0;
    gemini.failNext(200, { candidates: [{ content: { role: 'model', parts: [] }, finishReason: 'IMAGE_SAFETY' }], usageMetadata: { promptTokenCount: 7, candidatesTokenCount: 0, totalTokenCount: 7 } });
    const err = await client().images.generate({ model: 'nano-banana', prompt: 'a blue kite', n: 3 }).then(
      () => undefined,
      (e: unknown) => e as InstanceType<typeof OpenAI.APIError>,
    );
    expect(err?.status).toBe(400);
    const event = events.find((e) => e.status === 400);
    expect(event?.usage?.outputTokens).toBeGreaterThan(0); // the two images made
    expect(event?.costUsd).toBeGreaterThan(0);
  });
});
