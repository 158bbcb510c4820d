/**
 * POST /v1/images/edits bodies: multipart/form-data (what the SDKs send: `image`, `image[]` or
 * repeated fields, optional `mask`, text fields) or JSON (`images: [{image_url} | {file_id}]`).
 */
import { z } from 'zod';
import { GatewayError } from '../../../core/errors.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { imageEditOptionsSchema, type ImageEditRequest, type ImageInput } from '../images-api.js';
import { quoteInput } from '../../../core/quote-input.js';
import { protoKeyError } from '../../../wire/json-guard.js';
import { parseForm } from '../../shared/multipart-parts.js';

const MAX_IMAGES = 16;
const INT_FIELDS = new Set(['n', 'output_compression', 'partial_images']);
const BOOL_FIELDS = new Set(['stream']);

const jsonImageRef = z.union([
  z.strictObject({ image_url: z.string().min(1) }),
  z.strictObject({ file_id: z.string().min(1) }),
]);

const jsonEditSchema = z.looseObject({
  images: z.array(jsonImageRef).min(1, 'at least one image is required').max(MAX_IMAGES),
  mask: jsonImageRef.optional(),
});

function refToInput(ref: z.infer<typeof jsonImageRef>): ImageInput {
  return 'image_url' in ref ? { kind: 'url', url: ref.image_url } : { kind: 'file_id', fileId: ref.file_id };
}

/** Multipart values are strings; numbers and booleans are converted before validation. */
function coerce(key: string, value: string): unknown {
  if (INT_FIELDS.has(key) && /^-?\d+$/.test(value.trim())) return Number(value);
  if (BOOL_FIELDS.has(key) && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** More parts than an edit has (16 images, a mask and its fields): past it, no parsing at all. */
const MAX_PARTS = 200;

export async function parseEditMultipart(bytes: Uint8Array, contentType: string): Promise<ImageEditRequest> {
  const form = await parseForm(bytes, contentType, MAX_PARTS);
  const images: ImageInput[] = [];
  let mask: ImageInput | undefined;
  const fields: Record<string, unknown> = {};
  const formFields: Array<[string, string]> = [];
  for (const [key, value] of form.entries()) {
    if (key === 'image' || key === 'image[]') {
      if (typeof value === 'string') throw new GatewayError('invalid_request', `'${quoteInput(key)}' must be a file upload.`, { param: 'image' });
      images.push({ kind: 'file', file: value, name: value.name || `image-${images.length}.png` });
    } else if (key === 'mask') {
      if (typeof value === 'string') throw new GatewayError('invalid_request', "'mask' must be a file upload.", { param: 'mask' });
      if (mask) throw new GatewayError('invalid_request', "Only one 'mask' may be sent.", { param: 'mask' });
      mask = { kind: 'file', file: value, name: value.name || 'mask.png' };
    } else {
      if (typeof value !== 'string') throw new GatewayError('invalid_request', `'${quoteInput(key)}' must be a text field, not a file.`, { param: key });
      // A form field name is a key like a JSON body's: `__proto__` is refused as there (json-guard.ts).
      if (key === '__proto__') throw protoKeyError(key);
      if (Object.hasOwn(fields, key)) throw new GatewayError('invalid_request', `'${quoteInput(key)}' was sent more than once.`, { param: key });
      const coerced = coerce(key, value);
      fields[key] = coerced;
      // A number or a boolean is forwarded as it was validated (`n=" 2 "` goes on as "2").
      formFields.push([key, typeof coerced === 'string' ? value : String(coerced)]);
    }
  }
  if (images.length === 0) throw new GatewayError('invalid_request', "At least one 'image' (or 'image[]') file is required.", { param: 'image' });
  if (images.length > MAX_IMAGES) throw new GatewayError('invalid_request', `At most ${MAX_IMAGES} images may be sent.`, { param: 'image' });
  const options = parseOrThrow(imageEditOptionsSchema, fields);
  return { encoding: 'multipart', options, images, ...(mask ? { mask } : {}), formFields };
}

export function parseEditJson(body: Record<string, unknown>): ImageEditRequest {
  const refs = parseOrThrow(jsonEditSchema, body);
  const options = parseOrThrow(imageEditOptionsSchema, body);
  return {
    encoding: 'json',
    options,
    images: refs.images.map(refToInput),
    ...(refs.mask ? { mask: refToInput(refs.mask) } : {}),
    json: body,
  };
}
