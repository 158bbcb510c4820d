/**
 * Gemini's video generation as a client speaks it (@google/genai `models.generateVideos`):
 * POST /v1beta/models/{model}:predictLongRunning with `instances[0].prompt` and `parameters`
 * (`aspectRatio`, `durationSeconds`, `resolution`, `negativePrompt`, `personGeneration`,
 * `sampleCount` 1), read into the gateway's video request; an operation is named
 * `models/{model}/operations/{id}` and a finished video is the file `files/{id}`. A starting
 * image, a last frame, reference images or a video to extend are refused with a 400 naming them.
 */
import { GatewayError } from '../../../core/errors.js';
import { quoteInput } from '../../../core/quote-input.js';
import type { VideoRequest } from '../videos-api.js';

const INSTANCE_FIELDS = new Set(['prompt']);
const UNSUPPORTED_INSTANCE = new Set(['image', 'lastFrame', 'video', 'referenceImages']);
const PARAMETERS = new Set(['aspectRatio', 'durationSeconds', 'resolution', 'negativePrompt', 'personGeneration', 'sampleCount', 'generateAudio']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function stringParam(p: Record<string, unknown>, name: string): string | undefined {
  const v = p[name];
  if (v === undefined || v === null) return undefined;
  if (typeof v !== 'string') throw new GatewayError('invalid_request', `parameters.${name} must be a string.`, { param: `parameters.${name}` });
  return v;
}

/** A predictLongRunning body for `model` as the gateway's video request. */
export function geminiVideoRequest(model: string, body: Record<string, unknown>): VideoRequest {
  for (const key of Object.keys(body)) {
    if (key !== 'instances' && key !== 'parameters') throw new GatewayError('invalid_request', `Unknown field '${quoteInput(key, 60)}'; a video request has instances and parameters.`, { param: key });
  }
  const instances = body.instances;
  if (!Array.isArray(instances) || instances.length !== 1 || !isObject(instances[0])) {
    throw new GatewayError('invalid_request', 'instances must hold exactly one instance with a prompt.', { param: 'instances' });
  }
  const instance = instances[0];
  for (const key of Object.keys(instance)) {
    if (UNSUPPORTED_INSTANCE.has(key)) throw new GatewayError('unsupported', `instances[0].${key} is not supported through the gateway; send a text prompt.`, { param: `instances[0].${key}`, detail: 'unsupported_value' });
    if (!INSTANCE_FIELDS.has(key)) throw new GatewayError('invalid_request', `Unknown field 'instances[0].${quoteInput(key, 60)}'.`, { param: `instances[0].${key}` });
  }
  const prompt = instance.prompt;
  if (typeof prompt !== 'string' || !prompt.trim()) throw new GatewayError('invalid_request', 'instances[0].prompt must be a non-empty string.', { param: 'instances[0].prompt' });
  const p = body.parameters ?? {};
  if (!isObject(p)) throw new GatewayError('invalid_request', 'parameters must be an object.', { param: 'parameters' });
  for (const key of Object.keys(p)) {
    if (!PARAMETERS.has(key)) throw new GatewayError('unsupported', `parameters.${quoteInput(key, 60)} is not supported through the gateway. Supported: ${[...PARAMETERS].join(', ')}.`, { param: `parameters.${key}`, detail: 'unsupported_parameter' });
  }
  if (p.sampleCount !== undefined && p.sampleCount !== null && p.sampleCount !== 1) {
    throw new GatewayError('invalid_request', 'Only one video per request is supported (numberOfVideos / parameters.sampleCount 1).', { param: 'parameters.sampleCount' });
  }
  const seconds = p.durationSeconds;
  if (seconds !== undefined && seconds !== null && (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1)) {
    throw new GatewayError('invalid_request', 'parameters.durationSeconds must be a whole number of seconds.', { param: 'parameters.durationSeconds' });
  }
  if (p.generateAudio !== undefined && p.generateAudio !== null && typeof p.generateAudio !== 'boolean') {
    throw new GatewayError('invalid_request', 'parameters.generateAudio must be true or false.', { param: 'parameters.generateAudio' });
  }
  const metadata: NonNullable<VideoRequest['metadata']> = {};
  const aspectRatio = stringParam(p, 'aspectRatio');
  if (aspectRatio !== undefined) metadata.aspectRatio = aspectRatio;
  const resolution = stringParam(p, 'resolution');
  if (resolution !== undefined) metadata.resolution = resolution;
  const negativePrompt = stringParam(p, 'negativePrompt');
  if (negativePrompt !== undefined) metadata.negativePrompt = negativePrompt;
  const personGeneration = stringParam(p, 'personGeneration');
  if (personGeneration !== undefined) metadata.personGeneration = personGeneration;
  if (typeof p.generateAudio === 'boolean') metadata.generateAudio = p.generateAudio;
  return { model, prompt, ...(typeof seconds === 'number' ? { duration: seconds } : {}), ...(Object.keys(metadata).length ? { metadata } : {}) };
}

/** The task id behind an operation or file id (the id is the task's random part: Gemini's SDK reads file ids as [a-z0-9]+). */
export const GEMINI_TASK_PREFIX = 'vtask_';

export function geminiIdOfTask(taskId: string): string {
  return taskId.startsWith(GEMINI_TASK_PREFIX) ? taskId.slice(GEMINI_TASK_PREFIX.length) : taskId;
}

export function taskIdOfGeminiId(id: string): string {
  return `${GEMINI_TASK_PREFIX}${id}`;
}
