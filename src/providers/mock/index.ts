import type { ProviderConfig } from '../../config/schema.js';
import type { Provider } from '../types.js';
import { openAIVideoLimits, openAIVideosAdapter } from '../openai/videos.js';
import type { VideoLimits } from '../video-api.js';
import { mockChatResponse } from './chat.js';
import { mockEmbeddingsRoute } from './embeddings.js';
import { mockImagesRoute } from './images.js';
import { mockVideosRoute } from './videos.js';

/** Routes of the in-process mock vendor (OpenAI-compatible wire format): chat, embeddings, images, videos. */
export type { MockRoute } from './route.js';
import type { MockRoute } from './route.js';

const chatRoute: MockRoute = async (request, url, now) => {
  if (request.method !== 'POST' || !url.pathname.endsWith('/chat/completions')) return undefined;
  let body: unknown;
  try {
    body = await request.json();
  } catch {
    return new Response(JSON.stringify({ error: { message: 'invalid JSON', type: 'invalid_request_error', param: null, code: null } }), { status: 400 });
  }
  return mockChatResponse(body as Parameters<typeof mockChatResponse>[0], now);
};

const MOCK_BASE_URL = 'http://mock.modelgate.invalid/v1';

/** OpenAI's video limits, but any size (so 1080p and square work). */
function mockVideoLimits(): VideoLimits {
  return { ...openAIVideoLimits('mock'), aspectRatios: ['16:9', '9:16', '1:1'], resolutions: ['720p', '1080p'], sizes: {} };
}

export function createMockProvider(cfg: ProviderConfig, now: () => number, extraRoutes: MockRoute[] = []): Provider {
  const routes = [chatRoute, mockEmbeddingsRoute, mockImagesRoute, mockVideosRoute, ...extraRoutes];
  const fetch = async (input: Request | string | URL, init?: RequestInit): Promise<Response> => {
    const request = input instanceof Request ? input : new Request(input, init);
    const url = new URL(request.url);
    const seconds = Math.floor(now() / 1000);
    for (const route of routes) {
      const res = await route(request, url, seconds);
      if (res) return res;
    }
    return new Response(JSON.stringify({ error: { message: `mock: no route for ${request.method} ${url.pathname}`, type: 'invalid_request_error', param: null, code: null } }), { status: 404 });
  };
  return {
    id: cfg.id,
    type: 'mock',
    config: cfg,
    chatProtocol: 'openai-chat',
    fetch,
    timeoutMs: cfg.timeoutMs ?? 30_000,
    secrets: [],
    chatRequest() {
      return { url: `${MOCK_BASE_URL}/chat/completions`, headers: new Headers({ 'content-type': 'application/json' }) };
    },
    apiTarget(path) {
      return { url: `${MOCK_BASE_URL}${path}`, headers: new Headers() };
    },
    imageApi: 'openai-images',
    embeddingsApi: 'openai-embeddings',
    videoApi: { ...openAIVideosAdapter, defaultLimits: mockVideoLimits },
    chatInputModalities: ['text', 'image', 'pdf'],
    defaultTokenLimits: { input: 128_000, output: 16_384 },
    chatDialect: {},
  };
}
