/**
 * POST /v1/video/generations body (new-api style task request), validated field by field; every
 * refusal is a 400 naming the field. What the chosen model can do is checked by the video task
 * service (tasks/video/video-job.ts).
 */
import { z } from 'zod';
import { GatewayError } from '../../errors.js';
import { parseOrThrow } from '../zod-error.js';
import { quoteInput } from '../../quote-input.js';

const wholeSeconds = z.union([z.number().int().positive(), z.string().regex(/^\d+$/, 'expected whole seconds').transform(Number)]);

const metadataSchema = z.object({
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
