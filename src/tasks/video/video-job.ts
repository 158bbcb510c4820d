/** A video request checked against what the chosen model can do, with its defaults filled in. */
import { GatewayError } from '../../core/errors.js';
import type { VideoRequest } from '../../protocols/videos/index.js';
import type { VideoJob, VideoLimits } from '../../providers/video-api.js';
import { quoteInput } from '../../core/quote-input.js';

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
