/**
 * OpenAI and OpenAI-compatible servers: baseURL includes `/v1`, as in the openai SDK. Chat
 * Completions by default; `responsesApi` is the same server through the Responses API
 * (`/responses`), for models configured with `"api": "responses"` (and, on OpenAI itself, for
 * every model a Responses client names). Images and videos through OpenAI's own APIs.
 */
import type { ProviderConfig } from '../../config/schema.js';
import { httpProvider, type HttpVendor } from '../http-provider.js';
import type { FetchLike, Provider } from '../types.js';
import { openAIVideosAdapter } from './videos.js';

export function createOpenAIProvider(cfg: ProviderConfig, fetch: FetchLike, timeoutMs: number): Provider {
  const official = cfg.type === 'openai';
  const vendor: HttpVendor = {
    defaultBaseURL: official ? 'https://api.openai.com/v1' : undefined,
    authorize: (headers, apiKey) => headers.set('authorization', `Bearer ${apiKey}`),
    imageApi: 'openai-images',
    embeddingsApi: 'openai-embeddings',
    videoApi: openAIVideosAdapter,
    // Compatible servers rarely read PDFs; OpenAI does.
    chatInputModalities: official ? ['text', 'image', 'pdf'] : ['text', 'image'],
    defaultTokenLimits: { input: 128_000, output: 16_384 },
    // OpenAI's own API wants max_completion_tokens (reasoning models refuse max_tokens); compatible servers read max_tokens.
    // OpenAI always ends a stream with `data: [DONE]` (after the usage chunk); some compatible servers never send it.
    chatDialect: official
      ? { maxTokensField: 'max_completion_tokens', streamTerminator: 'done-required' }
      : { maxTokensField: 'max_tokens', streamTerminator: 'finish-reason' },
    ...(official ? { responsesForEveryModel: true } : {}),
  };
  const chat = httpProvider(cfg, fetch, timeoutMs, vendor, { chatProtocol: 'openai-chat', chatUrl: (base) => `${base}/chat/completions` });
  chat.responsesApi = httpProvider(cfg, fetch, timeoutMs, vendor, {
    chatProtocol: 'openai-responses',
    chatUrl: (base) => `${base}/responses`,
    countTokensUrl: (base) => `${base}/responses/input_tokens`,
    // A response OpenAI stored (the default unless `store: false`) is deleted there when the gateway's record is.
    storedObject: (base, id, action) =>
      action === 'cancel' ? { url: `${base}/responses/${encodeURIComponent(id)}/cancel`, method: 'POST' } : { url: `${base}/responses/${encodeURIComponent(id)}`, method: 'DELETE' },
  });
  return chat;
}
