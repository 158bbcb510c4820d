import type { BodyKind } from '../request/guards.js';
import type { ErrorShape } from '../protocols/shared/error-bodies.js';
import type { EndpointContext } from './services.js';
import { chatCompletions } from './chat-completions.js';
import { createEmbeddings, geminiEmbed } from './embeddings.js';
import { geminiModelAction } from './gemini.js';
import { getGeminiModel, listGeminiModels } from './gemini-models.js';
import { countTokens, messages } from './messages.js';
import { getModel, listModels } from './models.js';
import { imageEdits, imageGenerations } from './images.js';
import { createInteraction } from './interactions.js';
import { cancelInteraction, deleteInteraction, getInteraction } from './interactions-stored.js';
import { countResponseInputTokens, createResponse } from './responses.js';
import { cancelResponse, deleteResponse, getResponse, listInputItems } from './responses-stored.js';
import { cancelVideoGeneration, getVideoContent, getVideoGeneration, submitVideoGeneration } from './videos.js';
import type { Reply } from '../reply/reply.js';
import { getOwnKey } from './key-info.js';
import { createVideo, deleteVideo, listVideos, retrieveVideo, videoContent } from './openai-videos.js';
import { downloadGeminiVideo, geminiPredictLongRunning, getGeminiVideoOperation } from './gemini-videos.js';
import { GatewayError } from '../core/errors.js';
import { quoteInput } from '../core/quote-input.js';

export interface Route {
  method: string;
  /** The path template (`/v1/responses/{id}`): the hook events' `route` and the spans' `http.route`. */
  route: string;
  /** Matched against the path; named groups become params. */
  pattern: RegExp;
  errorShape: ErrorShape | ((ctx: EndpointContext) => ErrorShape);
  handler: (ctx: EndpointContext, params: Record<string, string>) => Promise<Reply>;
  /** Media types a body may have (checked before authentication); default JSON only. */
  bodyKinds?: readonly BodyKind[];
}

export const ROUTES: Route[] = [
  { method: 'POST', route: '/v1/chat/completions', pattern: /^\/v1\/chat\/completions$/, errorShape: 'openai', handler: chatCompletions },
  { method: 'POST', route: '/v1/responses', pattern: /^\/v1\/responses$/, errorShape: 'openai', handler: createResponse },
  { method: 'POST', route: '/v1/responses/input_tokens', pattern: /^\/v1\/responses\/input_tokens$/, errorShape: 'openai', handler: countResponseInputTokens },
  { method: 'GET', route: '/v1/responses/{id}', pattern: /^\/v1\/responses\/(?<id>[^/]+)$/, errorShape: 'openai', handler: getResponse },
  { method: 'DELETE', route: '/v1/responses/{id}', pattern: /^\/v1\/responses\/(?<id>[^/]+)$/, errorShape: 'openai', handler: deleteResponse },
  { method: 'POST', route: '/v1/responses/{id}/cancel', pattern: /^\/v1\/responses\/(?<id>[^/]+)\/cancel$/, errorShape: 'openai', handler: cancelResponse },
  { method: 'GET', route: '/v1/responses/{id}/input_items', pattern: /^\/v1\/responses\/(?<id>[^/]+)\/input_items$/, errorShape: 'openai', handler: listInputItems },
  { method: 'POST', route: '/v1/embeddings', pattern: /^\/v1\/embeddings$/, errorShape: 'openai', handler: createEmbeddings },
  { method: 'POST', route: '/v1/images/generations', pattern: /^\/v1\/images\/generations$/, errorShape: 'openai', handler: imageGenerations },
  { method: 'POST', route: '/v1/images/edits', pattern: /^\/v1\/images\/edits$/, errorShape: 'openai', handler: imageEdits, bodyKinds: ['json', 'multipart'] },
  { method: 'POST', route: '/v1/video/generations', pattern: /^\/v1\/video\/generations$/, errorShape: 'openai', handler: submitVideoGeneration },
  { method: 'GET', route: '/v1/video/generations/{id}', pattern: /^\/v1\/video\/generations\/(?<id>[^/]+)$/, errorShape: 'openai', handler: getVideoGeneration },
  { method: 'DELETE', route: '/v1/video/generations/{id}', pattern: /^\/v1\/video\/generations\/(?<id>[^/]+)$/, errorShape: 'openai', handler: cancelVideoGeneration },
  { method: 'GET', route: '/v1/video/generations/{id}/content', pattern: /^\/v1\/video\/generations\/(?<id>[^/]+)\/content$/, errorShape: 'openai', handler: getVideoContent },
  { method: 'POST', route: '/v1/videos', pattern: /^\/v1\/videos$/, errorShape: 'openai', handler: createVideo, bodyKinds: ['json', 'multipart'] },
  { method: 'GET', route: '/v1/videos', pattern: /^\/v1\/videos$/, errorShape: 'openai', handler: listVideos },
  { method: 'GET', route: '/v1/videos/{id}', pattern: /^\/v1\/videos\/(?<id>[^/]+)$/, errorShape: 'openai', handler: retrieveVideo },
  { method: 'DELETE', route: '/v1/videos/{id}', pattern: /^\/v1\/videos\/(?<id>[^/]+)$/, errorShape: 'openai', handler: deleteVideo },
  { method: 'GET', route: '/v1/videos/{id}/content', pattern: /^\/v1\/videos\/(?<id>[^/]+)\/content$/, errorShape: 'openai', handler: videoContent },
  { method: 'GET', route: '/v1/key', pattern: /^\/v1\/key$/, errorShape: 'openai', handler: getOwnKey },
  { method: 'POST', route: '/v1/messages', pattern: /^\/v1\/messages$/, errorShape: 'anthropic', handler: messages },
  { method: 'POST', route: '/v1/messages/count_tokens', pattern: /^\/v1\/messages\/count_tokens$/, errorShape: 'anthropic', handler: countTokens },
  {
    method: 'POST',
    route: '/{version}/models/{model}:{action}',
    pattern: /^\/(?:v1beta|v1)\/models\/(?<model>.+):(?<action>generateContent|streamGenerateContent|countTokens)$/,
    errorShape: 'gemini',
    handler: geminiModelAction,
  },
  {
    method: 'POST',
    route: '/{version}/models/{model}:{embedAction}',
    pattern: /^\/(?:v1beta|v1)\/models\/(?<model>.+):(?<action>embedContent|batchEmbedContents)$/,
    errorShape: 'gemini',
    handler: geminiEmbed,
  },
  {
    method: 'POST',
    route: '/{version}/models/{model}:predictLongRunning',
    pattern: /^\/(?:v1beta|v1)\/models\/(?<model>[^:]+):predictLongRunning$/,
    errorShape: 'gemini',
    handler: geminiPredictLongRunning,
  },
  { method: 'GET', route: '/v1beta/models/{model}/operations/{operation}', pattern: /^\/v1beta\/models\/(?<model>[^/]+)\/operations\/(?<operation>[^/]+)$/, errorShape: 'gemini', handler: getGeminiVideoOperation },
  // @google/genai's files.download reads a file id out of an https URI only; given an http one (a gateway without TLS)
  // it puts the whole URI in the path: the id is the last `files/{id}` either way.
  { method: 'GET', route: '/v1beta/files/{file}:download', pattern: /^\/v1beta\/files\/(?:.*\/files\/)?(?<file>[^/:]+):download$/, errorShape: 'gemini', handler: downloadGeminiVideo },
  // Any other Gemini method on a model (`:predict`, ...): a 404 that says what is served, not the 405 the GET model
  // route's path would give.
  {
    method: 'POST',
    route: '/{version}/models/{model}:{unknownAction}',
    pattern: /^\/(?:v1beta|v1)\/models\/(?<model>.+):(?<action>[A-Za-z]+)$/,
    errorShape: 'gemini',
    handler: unknownGeminiAction,
  },
  { method: 'POST', route: '/v1beta/interactions', pattern: /^\/v1beta\/interactions$/, errorShape: 'gemini', handler: createInteraction },
  { method: 'GET', route: '/v1beta/interactions/{id}', pattern: /^\/v1beta\/interactions\/(?<id>[^/]+)$/, errorShape: 'gemini', handler: getInteraction },
  { method: 'DELETE', route: '/v1beta/interactions/{id}', pattern: /^\/v1beta\/interactions\/(?<id>[^/]+)$/, errorShape: 'gemini', handler: deleteInteraction },
  { method: 'POST', route: '/v1beta/interactions/{id}/cancel', pattern: /^\/v1beta\/interactions\/(?<id>[^/]+)\/cancel$/, errorShape: 'gemini', handler: cancelInteraction },
  { method: 'GET', route: '/v1beta/models', pattern: /^\/v1beta\/models$/, errorShape: 'gemini', handler: listGeminiModels },
  { method: 'GET', route: '/v1beta/models/{model}', pattern: /^\/v1beta\/models\/(?<model>.+)$/, errorShape: 'gemini', handler: getGeminiModel },
  {
    method: 'GET',
    route: '/v1/models',
    pattern: /^\/v1\/models$/,
    errorShape: (ctx) => (ctx.request.headers.has('anthropic-version') ? 'anthropic' : 'openai'),
    handler: listModels,
  },
  {
    method: 'GET',
    route: '/v1/models/{id}',
    pattern: /^\/v1\/models\/(?<id>.+)$/,
    errorShape: (ctx) => (ctx.request.headers.has('anthropic-version') ? 'anthropic' : 'openai'),
    handler: getModel,
  },
  // Gemini's OpenAI-compatible endpoint: clients set up for it (OpenAI SDK with baseURL `{host}/v1beta/openai/`) change only the host.
  { method: 'POST', route: '/v1beta/openai/chat/completions', pattern: /^\/v1beta\/openai\/chat\/completions$/, errorShape: 'openai', handler: chatCompletions },
  { method: 'GET', route: '/v1beta/openai/models', pattern: /^\/v1beta\/openai\/models$/, errorShape: 'openai', handler: listModels },
  { method: 'GET', route: '/v1beta/openai/models/{id}', pattern: /^\/v1beta\/openai\/models\/(?<id>.+)$/, errorShape: 'openai', handler: getModel },
  { method: 'POST', route: '/v1beta/openai/embeddings', pattern: /^\/v1beta\/openai\/embeddings$/, errorShape: 'openai', handler: createEmbeddings },
  { method: 'POST', route: '/v1beta/openai/images/generations', pattern: /^\/v1beta\/openai\/images\/generations$/, errorShape: 'openai', handler: imageGenerations },
];

/** Error shape for paths no route matched, guessed from the path. */
export function shapeForPath(path: string): ErrorShape {
  if (path.startsWith('/v1beta/openai/')) return 'openai';
  if (path.startsWith('/v1beta')) return 'gemini';
  if (path.startsWith('/v1/messages')) return 'anthropic';
  return 'openai';
}

/** The methods some route takes on this path (the `Allow` header of a 405). */
export function allowedMethods(path: string): string[] {
  return [...new Set(ROUTES.filter((r) => r.pattern.test(path)).map((r) => r.method))];
}

/** POST /{version}/models/{model}:{action} for a Gemini method the gateway does not serve. */
function unknownGeminiAction(_ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const action = params.action ?? '';
  return Promise.reject(
    new GatewayError('not_found', `The Gemini method ':${quoteInput(action, 40)}' is not served here; on models the gateway serves :generateContent, :streamGenerateContent, :countTokens, :embedContent, :batchEmbedContents and :predictLongRunning (video).`, { detail: 'unknown_route' }),
  );
}
