/**
 * The OpenAI Videos API (Sora) and compatible servers: POST /v1/videos (multipart, as the SDK
 * sends it), GET /v1/videos/{id}, GET /v1/videos/{id}/content. The built-in mock vendor speaks it
 * too (with its own limits). `seconds` is a string on this API.
 */
import type { RequestObserver } from '../../observability/request-observer.js';
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import type { Provider, VideoAdapter } from '../types.js';
import type { UpstreamVideoState, VideoJob, VideoLimits } from '../video-api.js';
import { callUpstream, readUpstreamJson } from '../../upstream/call.js';
import { OPENAI_VIDEO_SIZES, videoSize } from '../../protocols/videos/video-sizes.js';

const videoObjectSchema = z.looseObject({
  id: z.string().min(1),
  status: z.string(),
  progress: z.number().nullish(),
  expires_at: z.number().nullish(),
  error: z.looseObject({ code: z.string().nullish(), message: z.string().nullish() }).nullish(),
});


export function openAIVideoLimits(upstreamModel: string): VideoLimits {
  const pro = /pro/i.test(upstreamModel);
  return {
    durations: [4, 8, 12],
    defaultDuration: 4,
    aspectRatios: ['16:9', '9:16'],
    defaultAspectRatio: '16:9',
    resolutions: pro ? ['720p', '1024p'] : ['720p'],
    defaultResolution: '720p',
    audio: 'always',
    negativePrompt: false,
    personGeneration: [],
    sizes: { ...OPENAI_VIDEO_SIZES },
  };
}

function mapOpenAIVideo(raw: Record<string, unknown>, providerId: string): UpstreamVideoState {
  const parsed = videoObjectSchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with an unexpected video object.`);
  const v = parsed.data;
  const expiresAt = typeof v.expires_at === 'number' ? v.expires_at * 1000 : undefined;
  const progress = typeof v.progress === 'number' ? Math.max(0, Math.min(100, v.progress)) : undefined;
  switch (v.status) {
    case 'queued':
      return { status: 'queued', progress: progress ?? 0 };
    case 'in_progress':
      return { status: 'in_progress', ...(progress !== undefined ? { progress } : {}) };
    case 'completed':
      return { status: 'succeeded', progress: 100, outputs: [{ ref: v.id, contentType: 'video/mp4' }], ...(expiresAt ? { expiresAt } : {}) };
    case 'failed':
      return {
        status: 'failed',
        error: { code: v.error?.code ?? 'upstream_failed', message: v.error?.message ?? 'The upstream reported the generation as failed.' },
      };
    default:
      // Unknown states (new API values) keep the job running; a later poll tells more.
      return { status: 'in_progress', ...(progress !== undefined ? { progress } : {}) };
  }
}

/** OpenAI-style `WxH` for an aspect ratio and resolution: the model's table, else short side = resolution. */
function sizeFor(limits: VideoLimits, aspectRatio: string, resolution: string): string {
  const size = videoSize(aspectRatio, resolution, limits.sizes);
  if (!size) throw new GatewayError('invalid_request', `Cannot derive a size from aspect ratio '${aspectRatio}' and resolution '${resolution}'.`, { param: 'metadata.aspectRatio' });
  return size;
}

function videoPath(id: string): string {
  return `/videos/${encodeURIComponent(id)}`;
}

export const openAIVideosAdapter: VideoAdapter = {
  name: 'openai-videos',
  defaultLimits: openAIVideoLimits,

  async submit(provider: Provider, upstreamModel: string, job: VideoJob, limits: VideoLimits, observer?: RequestObserver) {
    const target = provider.apiTarget('/videos');
    const form = new FormData();
    form.append('model', upstreamModel);
    form.append('prompt', job.prompt);
    form.append('seconds', String(job.durationSeconds));
    form.append('size', sizeFor(limits, job.aspectRatio, job.resolution));
    const res = await callUpstream(provider, { url: target.url, method: 'POST', headers: target.headers, body: form, ...(observer ? { observer } : {}) });
    const json = await readUpstreamJson(res, provider.id);
    const state = mapOpenAIVideo(json, provider.id);
    return { upstreamId: String(json.id), state };
  },

  async poll(provider: Provider, _upstreamModel: string, upstreamId: string) {
    const target = provider.apiTarget(videoPath(upstreamId));
    const res = await callUpstream(provider, { url: target.url, headers: target.headers });
    return mapOpenAIVideo(await readUpstreamJson(res, provider.id), provider.id);
  },

  async download(provider: Provider, ref: string, signal: AbortSignal) {
    const target = provider.apiTarget(`${videoPath(ref)}/content`);
    return (await callUpstream(provider, { url: target.url, headers: target.headers, signal })).response;
  },

  async cancel(provider: Provider, upstreamId: string) {
    const target = provider.apiTarget(videoPath(upstreamId));
    const res = await callUpstream(provider, { url: target.url, method: 'DELETE', headers: target.headers });
    await res.response.body?.cancel();
    res.done();
  },
};
