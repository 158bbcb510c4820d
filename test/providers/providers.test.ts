/** What each vendor folder declares: API targets with the vendor's credential header, and capabilities. */
import { describe, expect, it } from 'vitest';
import { createProvider } from '../../src/providers/registry.js';
import type { ProviderConfig } from '../../src/config/schema.js';

const deps = { fetch: () => Promise.reject(new Error('no network in this test')), now: () => 0, defaultTimeoutMs: 1000 };
const make = (cfg: ProviderConfig) => createProvider(cfg, deps);

describe('providers', () => {
  it('OpenAI: /v1 base, bearer key, configured headers, no content type on API targets', () => {
    const p = make({ id: 'oa', type: 'openai', apiKey: 'sk-test-0123456789', headers: { 'openai-organization': 'org-1' } });
    const target = p.apiTarget('/videos');
    expect(target.url).toBe('https://api.openai.com/v1/videos');
    expect(Object.fromEntries(target.headers)).toEqual({ authorization: 'Bearer sk-test-0123456789', 'openai-organization': 'org-1' });
    expect(p.imageApi).toBe('openai-images');
    expect(p.videoApi?.name).toBe('openai-videos');
    expect(p.chatDialect).toEqual({ maxTokensField: 'max_completion_tokens', streamTerminator: 'done-required' });
    expect(p.chatInputModalities).toEqual(['text', 'image', 'pdf']);
    expect(p.responsesForEveryModel).toBe(true);
    expect(p.responsesApi?.chatRequest({ upstreamModel: 'gpt-4o', stream: true, inboundHeaders: new Headers() }).url).toBe('https://api.openai.com/v1/responses');
    expect(p.responsesApi?.videoApi).toBe(p.videoApi);
  });

  it('OpenAI-compatible: its own base, max_tokens, no PDFs, Responses only where configured', () => {
    const p = make({ id: 'local', type: 'openai-compatible', baseURL: 'http://127.0.0.1:8000/v1/' });
    expect(p.apiTarget('/images/generations')).toMatchObject({ url: 'http://127.0.0.1:8000/v1/images/generations' });
    expect([...p.apiTarget('/x').headers]).toEqual([]);
    expect(p.chatDialect).toEqual({ maxTokensField: 'max_tokens', streamTerminator: 'finish-reason' });
    expect(p.chatInputModalities).toEqual(['text', 'image']);
    expect(p.responsesForEveryModel).toBeUndefined();
  });

  it('Gemini: API key header, Veo and image generation, Gemini token limits, Interactions view', () => {
    const p = make({ id: 'g', type: 'gemini', apiKey: 'AIza-test-0123456789' });
    const target = p.apiTarget('/v1beta/models/veo-3.0-generate-001:predictLongRunning');
    expect(target.url).toBe('https://generativelanguage.googleapis.com/v1beta/models/veo-3.0-generate-001:predictLongRunning');
    expect(target.headers.get('x-goog-api-key')).toBe('AIza-test-0123456789');
    expect(p.imageApi).toBe('gemini-generate-content');
    expect(p.videoApi?.name).toBe('veo');
    expect(p.defaultTokenLimits).toEqual({ input: 1_048_576, output: 65_536 });
    expect(p.chatRequest({ upstreamModel: 'models/gemini-2.5-flash', stream: true, inboundHeaders: new Headers() }).url).toBe(
      'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse',
    );
    expect(p.interactionsApi?.chatProtocol).toBe('gemini-interactions');
  });

  it('Anthropic: chat only', () => {
    const p = make({ id: 'a', type: 'anthropic', apiKey: 'sk-ant-test-0123456789' });
    expect(p.imageApi).toBeUndefined();
    expect(p.videoApi).toBeUndefined();
    expect(p.defaultTokenLimits).toEqual({ input: 128_000, output: 16_384 });
    const call = p.chatRequest({ upstreamModel: 'claude', stream: false, inboundHeaders: new Headers({ 'anthropic-beta': 'b1' }) });
    expect(call.url).toBe('https://api.anthropic.com/v1/messages');
    expect(Object.fromEntries(call.headers)).toMatchObject({ 'x-api-key': 'sk-ant-test-0123456789', 'anthropic-version': '2023-06-01', 'anthropic-beta': 'b1' });
  });

  it('mock: OpenAI wire format in process, with its own video limits', () => {
    const p = make({ id: 'm', type: 'mock' });
    expect(p.apiTarget('/videos').url).toBe('http://mock.modelgate.invalid/v1/videos');
    expect(p.imageApi).toBe('openai-images');
    expect(p.videoApi?.defaultLimits('anything').resolutions).toEqual(['720p', '1080p']);
  });
});

describe("a provider with the caller's own key", () => {
  it('carries it, and says so, in every view (chat, Responses, Interactions)', async () => {
    const { withCallerKey } = await import('../../src/providers/caller-credential.js');
    for (const cfg of [
      { id: 'g', type: 'gemini', apiKey: 'AIza-gateway-0123456789' },
      { id: 'oa', type: 'openai', apiKey: 'sk-gateway-0123456789' },
    ] as ProviderConfig[]) {
      const own = withCallerKey(make(cfg), 'own-key-0123456789', deps);
      for (const view of [own, own.responsesApi, own.interactionsApi].filter((v) => v !== undefined)) {
        expect(view.credential).toBe('caller');
        expect(view.secrets).toEqual(['own-key-0123456789']);
        expect([...view.apiTarget('/x').headers.values()].join(' ')).toContain('own-key-0123456789');
      }
    }
  });
});
