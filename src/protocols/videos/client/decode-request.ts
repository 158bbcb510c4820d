/**
 * POST /v1/video/generations body (new-api style task request): validated field by field, then
 * checked against what the chosen model can do. Every refusal is a 400 naming the field.
 */
import { GatewayError } from '../../../errors.js';
import type { VideoLimits } from '../../../providers/video/types.js';
import type { VideoJob } from '../../../tasks/video-task.js';
import { metadataSchema, videoRequestSchema, type VideoRequest } from '../videos-api.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { quoteInput } from '../../../quote-input.js';

const TOP_LEVEL = new Set(Object.keys(videoRequestSchema.shape));
const METADATA = new Set(Object.keys(metadataSchema.shape));

function rejectUnknown(obj: Record<string, unknown>, allowed: Set<string>, prefix: string): void {
  for (const key of Object.keys(obj)) {
    if (!allowed.has(key)) {
      const param = prefix ? `${prefix}.${key}` : key;
      throw new GatewayError('invalid_request', `Unknown parameter '${quoteInput(param)}'. Supported: ${[...allowed].join(', ')}.`, { param, detail: 'unknown_parameter' });
    }
  }
}

/** Shape and types; unknown fields are refused rather than silently dropped. */
export function parseVideoRequest(body: Record<string, unknown>): VideoRequest {
  rejectUnknown(body, TOP_LEVEL, '');
  const metadata = body.metadata;
  if (metadata && typeof metadata === 'object' && !Array.isArray(metadata)) rejectUnknown(metadata as Record<string, unknown>, METADATA, 'metadata');
  return parseOrThrow(videoRequestSchema, body);
}

function unsupported(modelId: string, param: string, message: string): GatewayError {
  return new GatewayError('unsupported', `The model '${modelId}' ${message}`, { param, detail: 'unsupported_value' });
}

const list = (values: ReadonlyArray<string | number>) => values.map(String).join(', ');

/** Checks the request against the model's limits and fills in defaults. */
export function toVideoJob(req: VideoRequest, modelId: string, limits: VideoLimits): VideoJob {
  const meta = req.metadata ?? {};
  if (req.duration !== undefined && meta.durationSeconds !== undefined && req.duration !== meta.durationSeconds) {
    throw new GatewayError('invalid_request', `'duration' (${req.duration}) and 'metadata.durationSeconds' (${meta.durationSeconds}) disagree; send one of them.`, { param: 'metadata.durationSeconds' });
  }
  const durationParam = req.duration !== undefined ? 'duration' : 'metadata.durationSeconds';
  const durationSeconds = req.duration ?? meta.durationSeconds ?? limits.defaultDuration;
  if (!limits.durations.includes(durationSeconds)) {
    throw unsupported(modelId, durationParam, `supports durations of ${list(limits.durations)} seconds; got ${durationSeconds}.`);
  }
  const aspectRatio = meta.aspectRatio ?? limits.defaultAspectRatio;
  if (!limits.aspectRatios.includes(aspectRatio)) {
    throw unsupported(modelId, 'metadata.aspectRatio', `supports aspect ratios ${list(limits.aspectRatios)}; got '${quoteInput(aspectRatio)}'.`);
  }
  const resolution = meta.resolution ?? limits.defaultResolution;
  if (!limits.resolutions.includes(resolution)) {
    throw unsupported(modelId, 'metadata.resolution', `supports resolutions ${list(limits.resolutions)}; got '${quoteInput(resolution)}'.`);
  }
  const job: VideoJob = { prompt: req.prompt, durationSeconds, aspectRatio, resolution };
  if (meta.negativePrompt !== undefined) {
    if (!limits.negativePrompt) throw unsupported(modelId, 'metadata.negativePrompt', 'does not accept a negative prompt.');
    job.negativePrompt = meta.negativePrompt;
  }
  if (meta.personGeneration !== undefined) {
    if (limits.personGeneration.length === 0) throw unsupported(modelId, 'metadata.personGeneration', 'has no personGeneration setting.');
    if (!limits.personGeneration.includes(meta.personGeneration)) {
      throw unsupported(modelId, 'metadata.personGeneration', `supports personGeneration ${list(limits.personGeneration)}; got '${quoteInput(meta.personGeneration)}'.`);
    }
    job.personGeneration = meta.personGeneration;
  }
  if (meta.generateAudio !== undefined) {
    if (limits.audio === 'always' && !meta.generateAudio) throw unsupported(modelId, 'metadata.generateAudio', 'always generates audio; it cannot be turned off.');
    if (limits.audio === 'never' && meta.generateAudio) throw unsupported(modelId, 'metadata.generateAudio', 'cannot generate audio.');
    job.generateAudio = meta.generateAudio;
  }
  return job;
}
