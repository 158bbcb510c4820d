/**
 * The video generation task API (POST/GET/DELETE /v1/video/generations, new-api style) and OpenAI's
 * Videos API (/v1/videos, the openai SDK's `client.videos`). Client side (client/): the submit
 * bodies, validated field by field. There is no upstream side here: each vendor's
 * video API (providers/openai/videos.ts, providers/gemini/veo.ts) writes its requests, and the video task service
 * (tasks/video/) checks the request against the model. Errors are OpenAI-shaped (shared/error-bodies.ts).
 */
export type { VideoRequest } from './videos-api.js';
export { parseVideoRequest } from './client/decode-request.js';
export { openAIVideoForm, openAIVideoRequest, openAIVideoSize } from './client/openai-videos.js';
export { geminiIdOfTask, geminiVideoRequest, taskIdOfGeminiId } from './client/gemini-videos.js';
