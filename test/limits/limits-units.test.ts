/**
 * The small pieces of the limits: OpenAI's reset duration format, UTC calendar periods, the cost
 * of a usage, the token estimate of a request body, and the credential a video task resolves to.
 */
import { describe, expect, it } from 'vitest';
import { createServices } from '../../src/gateway/services.js';
import { costOf } from '../../src/limits/cost.js';
import { DEFAULT_OUTPUT_RESERVE, estimateChatRequest, estimateInputTokens } from '../../src/limits/estimate-request.js';
import { formatUsd } from '../../src/limits/limit-headers.js';
import { periodBounds } from '../../src/limits/periods.js';
import { formatResetDuration } from '../../src/limits/reset-format.js';
import { taskProvider } from '../../src/tasks/video/video-credential.js';
import type { VideoTaskData } from '../../src/tasks/video/video-task.js';

describe('reset durations as OpenAI writes them', () => {
  it.each([
    [0, '0ms'],
    [17, '17ms'],
    [999.2, '1s'],
    [1000, '1s'],
    [1500, '1.5s'],
    [2365, '2.365s'],
    [59_990, '59.99s'],
    [60_000, '1m0s'],
    [360_000, '6m0s'],
    [61_500, '1m1.5s'],
    [3_723_000, '1h2m3s'],
    [-5, '0ms'],
  ])('%d ms -> %s', (ms, text) => {
    expect(formatResetDuration(ms)).toBe(text);
  });
});

describe('calendar periods (UTC)', () => {
  const at = (iso: string) => Date.parse(iso);
  it('day, ISO week (Monday) and month, with their ends', () => {
    expect(periodBounds('day', at('2025-03-09T23:59:59.999Z'))).toEqual({ id: '2025-03-09', start: at('2025-03-09T00:00:00Z'), end: at('2025-03-10T00:00:00Z') });
    // 2025-03-09 is a Sunday: its week began on Monday 3 March.
    expect(periodBounds('week', at('2025-03-09T12:00:00Z'))).toEqual({ id: 'w2025-03-03', start: at('2025-03-03T00:00:00Z'), end: at('2025-03-10T00:00:00Z') });
    expect(periodBounds('week', at('2025-03-10T00:00:00Z')).id).toBe('w2025-03-10');
    expect(periodBounds('month', at('2024-02-29T18:00:00Z'))).toEqual({ id: '2024-02', start: at('2024-02-01T00:00:00Z'), end: at('2024-03-01T00:00:00Z') });
    expect(periodBounds('month', at('2025-12-31T23:00:00Z')).end).toBe(at('2026-01-01T00:00:00Z'));
  });
});

describe('cost', () => {
  const pricing = { inputPerMTok: 3, outputPerMTok: 15, cachedInputPerMTok: 0.3 };
  it('prices uncached input, cached input and output; unknown usage or price is no cost', () => {
    expect(costOf(pricing, { inputTokens: 1_000_000, outputTokens: 0 })).toBe(3);
    expect(costOf(pricing, { inputTokens: 1000, cachedInputTokens: 600, outputTokens: 200 })).toBeCloseTo((400 * 3 + 600 * 0.3 + 200 * 15) / 1e6, 12);
    expect(costOf({ inputPerMTok: 3, outputPerMTok: 15 }, { inputTokens: 1000, cachedInputTokens: 600 })).toBeCloseTo(0.003, 12);
    expect(costOf(pricing, {})).toBeUndefined();
    expect(costOf(undefined, { inputTokens: 5 })).toBeUndefined();
  });
  it('formats USD without an exponent', () => {
    expect(formatUsd(1.5e-7)).toBe('0.00000015');
    expect(formatUsd(0)).toBe('0');
    expect(formatUsd(12)).toBe('12');
    expect(formatUsd(0.0008)).toBe('0.0008');
  });
});

describe('token estimate of a request body', () => {
  it('counts the text the model reads, a flat cost per media payload, and the requested output', () => {
    const text = 'x'.repeat(400);
    expect(estimateInputTokens({ model: 'a-very-long-model-name-that-is-not-read', messages: [{ role: 'user', content: text }] })).toBe(100);
    const image = `data:image/png;base64,${'A'.repeat(100_000)}`;
    expect(estimateInputTokens({ messages: [{ role: 'user', content: [{ type: 'image_url', image_url: { url: image } }] }] })).toBe(1000);
    expect(estimateInputTokens({ contents: [{ parts: [{ inlineData: { mimeType: 'image/png', data: 'B'.repeat(50_000) } }] }] })).toBe(1000);
    expect(estimateChatRequest({ messages: [], max_completion_tokens: 50, max_tokens: 70, n: 2 }).output).toBe(100);
    expect(estimateChatRequest({ contents: [], generationConfig: { maxOutputTokens: 30, candidateCount: 3 } }).output).toBe(90);
    expect(estimateChatRequest({ input: 'hi', max_output_tokens: 64 }).output).toBe(64);
    expect(estimateChatRequest({ messages: [] }).output).toBe(DEFAULT_OUTPUT_RESERVE);
  });
  it('walks deep bodies without recursion', () => {
    let deep: unknown = 'leaf text';
    for (let i = 0; i < 200_000; i++) deep = [deep];
    expect(estimateInputTokens({ messages: deep })).toBe(3);
  });
});

describe('the credential of a video task', () => {
  const rt = createServices({
    providers: [{ id: 'media', type: 'openai', apiKey: 'gateway-media-0123456789' }],
    keys: [
      { id: 'own', key: 'mg-own-key-00000001', providerKeys: { media: 'own-media-0123456789' } },
      { id: 'plain', key: 'mg-plain-key-0000002' },
    ],
  });
  const data = (ownCredential: VideoTaskData['ownCredential'], providerId = 'media') => ({ providerId, ownCredential }) as VideoTaskData;
  const keyOf = (found: ReturnType<typeof taskProvider>) => ('provider' in found ? found.provider.chatRequest({ upstreamModel: 'm', stream: false, inboundHeaders: new Headers() }).headers.get('authorization') : found);

  it("uses the gateway's key, the config key's own key, or the principal's; waits or fails when it cannot", () => {
    expect(keyOf(taskProvider(rt, 'plain', data(null)))).toBe('Bearer gateway-media-0123456789');
    expect(keyOf(taskProvider(rt, 'own', data('config-key')))).toBe('Bearer own-media-0123456789');
    expect(keyOf(taskProvider(rt, 'host', data('principal'), { id: 'host', providerKeys: { media: 'host-media-0123456789' } }))).toBe('Bearer host-media-0123456789');
    expect(taskProvider(rt, 'host', data('principal'))).toEqual({ wait: true });
    expect(taskProvider(rt, 'host', data('principal'), { id: 'host' })).toMatchObject({ error: { code: 'credential_unavailable' } });
    // The key lost its providerKeys since: never the gateway's key instead.
    expect(taskProvider(rt, 'plain', data('config-key'))).toMatchObject({ error: { code: 'credential_unavailable' } });
    expect(taskProvider(rt, 'own', data(null, 'gone'))).toMatchObject({ error: { code: 'provider_unavailable' } });
  });
});
