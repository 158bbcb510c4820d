/** Per-model video limits: provider defaults, then the model's `options.video` from the config. */
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import type { ResolvedModel } from '../../routing/model-registry.js';
import type { VideoLimits } from './types.js';

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
export function videoLimitsFor(model: ResolvedModel, defaults: VideoLimits): VideoLimits {
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

/** OpenAI-style `WxH` for an aspect ratio and resolution: the table, else short side = resolution. */
export function sizeFor(limits: VideoLimits, aspectRatio: string, resolution: string): string {
  const known = limits.sizes[`${aspectRatio}@${resolution}`];
  if (known) return known;
  const [a, b] = aspectRatio.split(':').map(Number);
  const short = Number.parseInt(resolution, 10);
  if (!a || !b || !short) throw new GatewayError('invalid_request', `Cannot derive a size from aspect ratio '${aspectRatio}' and resolution '${resolution}'.`, { param: 'metadata.aspectRatio' });
  const even = (n: number) => Math.round(n / 2) * 2;
  return a >= b ? `${even((short * a) / b)}x${short}` : `${short}x${even((short * b) / a)}`;
}
