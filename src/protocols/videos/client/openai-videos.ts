/**
 * OpenAI's Videos API as a client speaks it (the openai SDK's `client.videos`): POST /v1/videos
 * (multipart/form-data, as the SDK always sends it, or JSON) with `prompt`, `model`, `seconds`
 * (a string: '4', '8', '12') and `size` (`WxH`), read into the gateway's video request; and the
 * size of a job for its Video object. `input_reference` (a starting image) is refused with a 400
 * naming it: no configured video vendor takes one through the gateway yet.
 */
import { GatewayError } from '../../../core/errors.js';
import { quoteInput } from '../../../core/quote-input.js';
import { protoKeyError } from '../../../wire/json-guard.js';
import type { VideoRequest } from '../videos-api.js';
import { parseForm } from '../../shared/multipart-parts.js';
import { OPENAI_VIDEO_SIZES, videoSize } from '../video-sizes.js';

/** More parts than a create has (its five fields): past it, no parsing at all. */
const MAX_PARTS = 20;

/** OpenAI's model when a request names none, as at OpenAI. */
export const DEFAULT_OPENAI_VIDEO_MODEL = 'sora-2';

const FIELDS = new Set(['prompt', 'model', 'seconds', 'size', 'input_reference']);

/** OpenAI's sizes -> the gateway's aspect ratio and resolution (the Sora upstream maps them back). */
const SIZES: Record<string, { aspectRatio: string; resolution: string }> = Object.fromEntries(
  Object.entries(OPENAI_VIDEO_SIZES).map(([key, size]) => {
    const [aspectRatio = '', resolution = ''] = key.split('@');
    return [size, { aspectRatio, resolution }];
  }),
);

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** `WxH` as an aspect ratio and a resolution (the short side): OpenAI's four sizes by name, any other reduced. */
function sizeSettings(size: string): { aspectRatio: string; resolution: string } {
  const known = SIZES[size];
  if (known) return known;
  const m = /^([1-9]\d{0,4})x([1-9]\d{0,4})$/.exec(size);
  if (!m) throw new GatewayError('invalid_request', `'size' must be '<width>x<height>' such as '1280x720', got '${quoteInput(size, 40)}'.`, { param: 'size' });
  const w = Number(m[1]);
  const h = Number(m[2]);
  const d = gcd(w, h);
  return { aspectRatio: `${w / d}:${h / d}`, resolution: `${Math.min(w, h)}p` };
}

/** A job's aspect ratio and resolution as OpenAI's `WxH` (the short side is the resolution). */
export function openAIVideoSize(aspectRatio: string, resolution: string): string {
  return videoSize(aspectRatio, resolution) ?? `${aspectRatio}@${resolution}`;
}

function text(fields: Record<string, unknown>, name: string): string | undefined {
  const v = fields[name];
  if (v === undefined) return undefined;
  if (typeof v !== 'string') throw new GatewayError('invalid_request', `'${name}' must be a string.`, { param: name });
  return v;
}

/** The create body's fields (from JSON or form fields) as the gateway's video request. */
export function openAIVideoRequest(fields: Record<string, unknown>): VideoRequest {
  for (const key of Object.keys(fields)) {
    if (!FIELDS.has(key)) throw new GatewayError('invalid_request', `Unknown parameter '${quoteInput(key)}'. Supported: ${[...FIELDS].join(', ')}.`, { param: key, detail: 'unknown_parameter' });
  }
  if (fields.input_reference !== undefined) {
    throw new GatewayError('unsupported', "'input_reference' (a starting image) is not supported through the gateway; send a text prompt.", { param: 'input_reference', detail: 'unsupported_value' });
  }
  const prompt = text(fields, 'prompt');
  if (prompt === undefined || !prompt.trim()) throw new GatewayError('invalid_request', "A non-empty 'prompt' is required.", { param: 'prompt' });
  const model = text(fields, 'model') ?? DEFAULT_OPENAI_VIDEO_MODEL;
  if (!model) throw new GatewayError('invalid_request', "'model' must not be empty.", { param: 'model' });
  const rawSeconds = fields.seconds;
  let duration: number | undefined;
  if (rawSeconds !== undefined) {
    const s = typeof rawSeconds === 'number' ? String(rawSeconds) : rawSeconds;
    if (typeof s !== 'string' || !/^[1-9]\d{0,3}$/.test(s)) throw new GatewayError('invalid_request', `'seconds' must be a whole number of seconds such as '4', got ${quoteInput(JSON.stringify(rawSeconds), 40)}.`, { param: 'seconds' });
    duration = Number(s);
  }
  const size = text(fields, 'size');
  const metadata = size === undefined ? undefined : sizeSettings(size);
  return { model, prompt, ...(duration !== undefined ? { duration } : {}), ...(metadata ? { metadata } : {}) };
}

/** A multipart/form-data create body's fields (the SDK's encoding): text fields only, each once; a file only as `input_reference` (refused). */
export async function openAIVideoForm(bytes: Uint8Array, contentType: string): Promise<Record<string, unknown>> {
  const form = await parseForm(bytes, contentType, MAX_PARTS);
  const fields: Record<string, unknown> = {};
  for (const [key, value] of form.entries()) {
    if (key === '__proto__') throw protoKeyError(key);
    if (Object.hasOwn(fields, key)) throw new GatewayError('invalid_request', `'${quoteInput(key)}' was sent more than once.`, { param: key });
    if (typeof value !== 'string' && key !== 'input_reference') throw new GatewayError('invalid_request', `'${quoteInput(key)}' must be a text field, not a file.`, { param: key });
    fields[key] = value;
  }
  return fields;
}
