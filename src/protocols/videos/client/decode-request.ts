/**
 * POST /v1/video/generations body (new-api style task request), validated field by field; every
 * refusal is a 400 naming the field. What the chosen model can do is checked by the video task
 * service (tasks/video/video-job.ts); the wire schema is in videos-api.ts.
 */
import { GatewayError } from '../../../core/errors.js';
import { metadataSchema, videoRequestSchema, type VideoRequest } from '../videos-api.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { quoteInput } from '../../../core/quote-input.js';

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
