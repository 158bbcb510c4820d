/**
 * The OpenAI Images API (POST /v1/images/generations and /v1/images/edits). Client side (client/):
 * the edit request, JSON or multipart. An OpenAI-style upstream gets the caller's request through
 * passthrough.ts (model rewritten, same encoding); a Gemini image model gets generateContent calls
 * built and read back by upstream/. Errors are OpenAI-shaped (shared/error-bodies.ts).
 */
export { imageGenerationSchema, type ImageEditRequest, type ImageGenerationRequest } from './images-api.js';
export { parseEditJson, parseEditMultipart } from './client/parse-edit-request.js';
export { openAIEditBody, openAIGenerationBody } from './passthrough.js';
export { checkGeminiImageOptions, toGeminiImageRequest } from './upstream/convert-to-gemini-image-request.js';
export { fromGeminiImageResponses, geminiImageResponseSchema, geminiImageTokens, type GeminiImageResponse } from './upstream/convert-from-gemini-image-response.js';
