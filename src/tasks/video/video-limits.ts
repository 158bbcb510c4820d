/** Per-model video limits: the provider's defaults, then the model's `options.video` from the config. */
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import type { ResolvedModel } from '../../routing/model-registry.js';
import type { VideoLimits } from '../../providers/video-api.js';
import type { VideoAdapter } from '../../providers/types.js';

const overrideSchema = z.strictObject({
  durations: z.array(z.number().int().positive()).min(1).optional(),
  defaultDuration: z.number().int().positive().optional(),
  aspectRatios: z.array(z.string().regex(/^\d+:\d+$/)).min(1).optional(),
  defaultAspectRatio: z.string().optional(),
  resolutions: z.array(z.string().regex(/^\d+p$/)).min(1).optional(),
  defaultResolution: z.string().optional(),
  audio: z.enum(['always', 'never', 'optional']).optional(),
  negativePrompt: z.boolean().optional(),
  personGeneration: z.array(z.string()).optional(),
  sizes: z.record(z.string(), z.string().regex(/^\d+x\d+$/)).optional(),
});

/** Limits of a model: `defaults` overridden by `options.video` (a config mistake is a clear error). */
function videoLimitsFor(model: ResolvedModel, defaults: VideoLimits): VideoLimits {
  const raw = model.options.video;
  if (raw === undefined) return defaults;
  const parsed = overrideSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new GatewayError('internal', `The configured options.video of model '${model.id}' are invalid at '${issue?.path.join('.') ?? ''}': ${issue?.message ?? 'invalid'}.`);
  }
  const o = parsed.data;
  const merged: VideoLimits = {
    ...defaults,
    ...Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)),
    sizes: { ...defaults.sizes, ...(o.sizes ?? {}) },
  };
  // Keep defaults inside the allowed sets when only the sets were overridden.
  if (!merged.durations.includes(merged.defaultDuration)) merged.defaultDuration = merged.durations[merged.durations.length - 1] ?? merged.defaultDuration;
  if (!merged.aspectRatios.includes(merged.defaultAspectRatio)) merged.defaultAspectRatio = merged.aspectRatios[0] ?? merged.defaultAspectRatio;
  if (!merged.resolutions.includes(merged.defaultResolution)) merged.defaultResolution = merged.resolutions[0] ?? merged.defaultResolution;
  return merged;
}

/** The model's video API and limits; 400 when its provider has no video API. */
export function videoApiOf(model: ResolvedModel): { adapter: VideoAdapter; limits: VideoLimits } {
  const adapter = model.provider.videoApi;
  if (!adapter) {
    throw new GatewayError('unsupported', `The model '${model.id}' is served by provider '${model.provider.id}' (${model.provider.type}), which has no video API.`, { param: 'model' });
  }
  return { adapter, limits: videoLimitsFor(model, adapter.defaultLimits(model.upstreamModel)) };
}
