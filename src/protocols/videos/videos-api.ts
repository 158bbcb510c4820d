/** zod schema of the POST /v1/video/generations body (new-api style task request). */
import { z } from 'zod';

const wholeSeconds = z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'expected whole seconds').transform(Number)]);

export const metadataSchema = z.object({
  durationSeconds: wholeSeconds.optional(),
  aspectRatio: z.string().regex(/^[1-9]\d*:[1-9]\d*$/, "expected '<w>:<h>', e.g. '16:9'").optional(),
  resolution: z.string().regex(/^[1-9]\d*p$/, "expected '<n>p', e.g. '720p'").optional(),
  negativePrompt: z.string().optional(),
  personGeneration: z.string().min(1).optional(),
  generateAudio: z.boolean().optional(),
});

const callbackUrl = z.string().refine((v) => {
  try {
    const u = new URL(v);
    return u.protocol === 'https:' || u.protocol === 'http:';
  } catch {
    return false;
  }
}, 'expected an absolute http(s) URL');

export const videoRequestSchema = z.object({
  model: z.string().min(1),
  prompt: z.string().trim().min(1, 'a non-empty prompt is required'),
  duration: wholeSeconds.optional(),
  metadata: metadataSchema.optional(),
  callback_url: callbackUrl.optional(),
  user: z.string().optional(),
  n: z.literal(1, 'only one video per request is supported').optional(),
});
export type VideoRequest = z.infer<typeof videoRequestSchema>;
