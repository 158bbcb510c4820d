/**
 * Google Veo on the Gemini API: POST /v1beta/models/{m}:predictLongRunning, poll
 * GET /v1beta/{operation name}, download the sample's Files-API URI with the API key (proxied,
 * never handed to callers). Veo reports no progress; a running job shows 50 like peers do.
 */
import type { RequestObserver } from '../../observability/request-observer.js';
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import type { Provider, VideoAdapter } from '../types.js';
import type { UpstreamVideoState, VideoJob, VideoLimits } from '../video-api.js';
import { callUpstream, readUpstreamJson } from '../../upstream/call.js';

const INLINE_PREFIX = 'inline:';

/** `models/veo-3.0` or `veo-3.0` -> `veo-3.0`, URL-encoded for a path segment. */
export function geminiModelSegment(upstreamModel: string): string {
  return encodeURIComponent(upstreamModel.replace(/^models\//, ''));
}

const operationSchema = z.looseObject({
  name: z.string().min(1),
  done: z.boolean().nullish(),
  error: z.looseObject({ code: z.number().nullish(), message: z.string().nullish(), status: z.string().nullish() }).nullish(),
  response: z
    .looseObject({
      generateVideoResponse: z
        .looseObject({
          generatedSamples: z
            .array(z.looseObject({ video: z.looseObject({ uri: z.string().nullish(), encodedVideo: z.string().nullish(), encoding: z.string().nullish(), mimeType: z.string().nullish() }).nullish() }))
            .nullish(),
          raiMediaFilteredCount: z.number().nullish(),
          raiMediaFilteredReasons: z.array(z.string()).nullish(),
        })
        .nullish(),
    })
    .nullish(),
});

function veoVideoLimits(upstreamModel: string): VideoLimits {
  const veo2 = /veo-2/i.test(upstreamModel);
  return {
    durations: veo2 ? [5, 6, 7, 8] : [4, 6, 8],
    defaultDuration: 8,
    aspectRatios: ['16:9', '9:16'],
    defaultAspectRatio: '16:9',
    resolutions: veo2 ? ['720p'] : ['720p', '1080p'],
    defaultResolution: '720p',
    // Veo 3 on the Gemini API always adds audio; `generateAudio` is a Vertex-only switch.
    audio: /veo-3/i.test(upstreamModel) ? 'always' : 'never',
    negativePrompt: true,
    personGeneration: ['allow_all', 'allow_adult', 'dont_allow'],
    sizes: {},
  };
}

function mapVeoOperation(raw: Record<string, unknown>, providerId: string): UpstreamVideoState {
  const parsed = operationSchema.safeParse(raw);
  if (!parsed.success) throw new GatewayError('bad_gateway', `The upstream provider '${providerId}' answered with an unexpected operation.`);
  const op = parsed.data;
  if (!op.done) return { status: 'in_progress', progress: 50 };
  if (op.error) {
    return { status: 'failed', error: { code: op.error.status ?? String(op.error.code ?? 'upstream_failed'), message: op.error.message ?? 'The upstream reported the operation as failed.' } };
  }
  const result = op.response?.generateVideoResponse;
  const outputs: Array<{ ref: string; contentType: string | null }> = [];
  for (const sample of result?.generatedSamples ?? []) {
    const video = sample.video;
    if (video?.uri) outputs.push({ ref: video.uri, contentType: video.mimeType ?? 'video/mp4' });
    else if (video?.encodedVideo) {
      const mime = video.encoding ?? video.mimeType ?? 'video/mp4';
      outputs.push({ ref: `${INLINE_PREFIX}${mime};${video.encodedVideo}`, contentType: mime });
    }
  }
  if (outputs.length > 0) return { status: 'succeeded', progress: 100, outputs };
  if ((result?.raiMediaFilteredCount ?? 0) > 0) {
    const reasons = result?.raiMediaFilteredReasons?.join('; ') || 'The result was removed by the safety filter.';
    return { status: 'failed', error: { code: 'content_filtered', message: reasons } };
  }
  return { status: 'failed', error: { code: 'no_video', message: 'The upstream finished without producing a video.' } };
}

/** Operation names contain slashes; keep them, but nothing that could leave the API path. */
function operationPath(name: string): string {
  if (!/^[A-Za-z0-9._\-/]+$/.test(name) || name.split('/').includes('..')) {
    throw new GatewayError('bad_gateway', 'The upstream returned an operation name the gateway will not follow.');
  }
  return `/v1beta/${name}`;
}

export const veoAdapter: VideoAdapter = {
  name: 'veo',
  defaultLimits: veoVideoLimits,

  async submit(provider: Provider, upstreamModel: string, job: VideoJob, limits: VideoLimits, observer?: RequestObserver) {
    const target = provider.apiTarget(`/v1beta/models/${geminiModelSegment(upstreamModel)}:predictLongRunning`);
    target.headers.set('content-type', 'application/json');
    const parameters: Record<string, unknown> = {
      aspectRatio: job.aspectRatio,
      resolution: job.resolution,
      durationSeconds: job.durationSeconds,
      sampleCount: 1,
    };
    if (job.negativePrompt !== undefined) parameters.negativePrompt = job.negativePrompt;
    if (job.personGeneration !== undefined) parameters.personGeneration = job.personGeneration;
    if (limits.audio === 'optional' && job.generateAudio !== undefined) parameters.generateAudio = job.generateAudio;
    const body = JSON.stringify({ instances: [{ prompt: job.prompt }], parameters });
    const res = await callUpstream(provider, { url: target.url, method: 'POST', headers: target.headers, body, ...(observer ? { observer } : {}) });
    const json = await readUpstreamJson(res, provider.id);
    const parsed = operationSchema.safeParse(json);
    if (!parsed.success) throw new GatewayError('bad_gateway', `The upstream provider '${provider.id}' did not return an operation name.`);
    operationPath(parsed.data.name);
    const state = parsed.data.done ? mapVeoOperation(json, provider.id) : { status: 'queued' as const, progress: 0 };
    return { upstreamId: parsed.data.name, state };
  },

  async poll(provider: Provider, _upstreamModel: string, upstreamId: string) {
    const target = provider.apiTarget(operationPath(upstreamId));
    const res = await callUpstream(provider, { url: target.url, headers: target.headers });
    return mapVeoOperation(await readUpstreamJson(res, provider.id), provider.id);
  },

  async download(provider: Provider, ref: string, signal: AbortSignal) {
    if (ref.startsWith(INLINE_PREFIX)) {
      const [mime, data] = ref.slice(INLINE_PREFIX.length).split(';', 2);
      const bytes = Uint8Array.from(atob(data ?? ''), (c) => c.charCodeAt(0));
      return new Response(bytes, { headers: { 'content-type': mime || 'video/mp4', 'content-length': String(bytes.byteLength) } });
    }
    const base = provider.apiTarget('');
    let url: URL;
    try {
      url = new URL(ref);
    } catch {
      throw new GatewayError('bad_gateway', 'The upstream returned a video URI the gateway cannot read.');
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new GatewayError('bad_gateway', 'The upstream returned a video URI the gateway cannot read.');
    // The API key only goes to the provider's own origin; other URIs must be pre-signed.
    const headers = url.origin === new URL(base.url).origin ? base.headers : new Headers();
    return (await callUpstream(provider, { url: url.toString(), headers, signal })).response;
  },
};
