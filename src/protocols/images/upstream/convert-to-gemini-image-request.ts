/**
 * OpenAI Images request -> Gemini generateContent with image output. Gemini takes aspect ratios
 * and 1K/2K/4K sizes instead of pixels, returns base64 only, and has no mask, transparency or
 * output-format switch on the Gemini API: such requests are refused, naming the field.
 */
import { GatewayError } from '../../../core/errors.js';
import { guessMediaType, sourceFromUrl } from '../../../ir/media.js';
import type { ImageGenerationRequest, ImageInput } from '../images-api.js';
import type { IRWarning } from '../../../ir/types.js';

const GEMINI_RATIOS = ['1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', '21:9'];

/**
 * Fields the translation understands; anything else is refused rather than dropped. `user` (an
 * end-user id for abuse tracking, not a generation setting) has no Gemini counterpart and is not sent.
 */
const KNOWN = new Set(['model', 'prompt', 'n', 'size', 'quality', 'response_format', 'output_format', 'output_compression', 'background', 'moderation', 'stream', 'partial_images', 'user', 'style', 'input_fidelity', 'images', 'mask']);

type ImageOptions = ImageGenerationRequest & { input_fidelity?: string };

function unsupported(modelId: string, param: string, why: string): GatewayError {
  return new GatewayError('unsupported', `The Gemini image model '${modelId}' ${why}`, { param, detail: 'unsupported_parameter' });
}

const dropped = (setting: string, message: string): IRWarning => ({ setting, action: 'dropped (not supported by gemini)', message });

/** `1536x1024` -> the closest Gemini aspect ratio and, above 1K, an image size; what could not be kept as asked goes to `warnings`. */
function geminiImageConfig(size: string | undefined, quality: string | undefined, warnings: IRWarning[]): Record<string, string> | undefined {
  const config: Record<string, string> = {};
  let longSide = 0;
  if (size && size !== 'auto') {
    const [w, h] = size.split('x').map(Number);
    if (w && h) {
      const target = Math.log(w / h);
      let best = GEMINI_RATIOS[0] as string;
      let bestDiff = Infinity;
      for (const r of GEMINI_RATIOS) {
        const [a, b] = r.split(':').map(Number);
        const diff = Math.abs(Math.log((a ?? 1) / (b ?? 1)) - target);
        if (diff < bestDiff) {
          best = r;
          bestDiff = diff;
        }
      }
      config.aspectRatio = best;
      longSide = Math.max(w, h);
    }
  }
  // 1K is every model's default, so it is never sent (older image models reject imageSize).
  if (longSide > 2048) config.imageSize = '4K';
  else if (longSide > 1024 || quality === 'high' || quality === 'hd') config.imageSize = '2K';
  if (size && size !== 'auto' && size !== '1024x1024') {
    const to = config.aspectRatio ? `aspectRatio ${config.aspectRatio}, imageSize ${config.imageSize ?? '1K'}` : 'the model default';
    warnings.push({ setting: 'size', action: `adjusted to ${to}`, message: `Gemini takes an aspect ratio and a 1K/2K/4K size, not pixels: '${size}' became ${to}; the image's pixel size is Gemini's.` });
  }
  if (quality !== undefined && quality !== 'auto' && quality !== 'high' && quality !== 'hd') {
    warnings.push(dropped('quality', `Gemini has no '${quality}' quality setting (only 'high' maps, to a 2K image); it was not sent.`));
  }
  return Object.keys(config).length ? config : undefined;
}

/** Refuses what Gemini image output cannot do. */
export function checkGeminiImageOptions(modelId: string, o: ImageOptions, raw: Record<string, unknown>): void {
  for (const key of Object.keys(raw)) {
    if (!KNOWN.has(key)) throw unsupported(modelId, key, `does not accept '${key}'.`);
  }
  if (o.response_format === 'url') throw unsupported(modelId, 'response_format', "returns images as base64 only; use response_format 'b64_json' or leave it out.");
  if (o.output_format !== undefined && o.output_format !== 'png') throw unsupported(modelId, 'output_format', "returns PNG images; output_format must be 'png'.");
  if (o.output_compression !== undefined) throw unsupported(modelId, 'output_compression', 'has no output compression setting.');
  if (o.background === 'transparent') throw unsupported(modelId, 'background', 'cannot produce transparent backgrounds.');
  if (o.moderation === 'low') throw unsupported(modelId, 'moderation', "has no 'low' moderation setting.");
  if (o.stream) throw unsupported(modelId, 'stream', 'cannot stream partial images through this gateway.');
  if (o.partial_images !== undefined && o.partial_images > 0) throw unsupported(modelId, 'partial_images', 'cannot stream partial images through this gateway.');
  if (o.style !== undefined) throw unsupported(modelId, 'style', 'has no style setting (a dall-e-3 option).');
  if (o.input_fidelity !== undefined) throw unsupported(modelId, 'input_fidelity', 'has no input_fidelity setting.');
}

function bytesToBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** The image types Gemini reads (OpenAI's edits take PNG, JPEG and WebP). */
const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/webp', 'image/heic', 'image/heif']);

/** The image type of an upload's first bytes (PNG, JPEG, WebP), else undefined. */
function sniffedType(bytes: Uint8Array): string | undefined {
  if (bytes[0] === 0x89 && bytes[1] === 0x50 && bytes[2] === 0x4e && bytes[3] === 0x47) return 'image/png';
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return 'image/jpeg';
  if (bytes[0] === 0x52 && bytes[1] === 0x49 && bytes[2] === 0x46 && bytes[3] === 0x46 && bytes[8] === 0x57 && bytes[9] === 0x45) return 'image/webp';
  return undefined;
}

/** Media type of an upload: its first bytes, else its declared type or its name when that is an image type Gemini reads; anything else is a 400. */
function imageMediaType(declared: string, name: string, bytes: Uint8Array, param: string): string {
  const sniffed = sniffedType(bytes);
  if (sniffed) return sniffed;
  const type = declared.split(';')[0]?.trim().toLowerCase() ?? '';
  if (IMAGE_TYPES.has(type)) return type;
  const guessed = guessMediaType(name, '');
  if (IMAGE_TYPES.has(guessed) && (type === '' || type === 'application/octet-stream')) return guessed;
  throw new GatewayError('invalid_request', `'${param}' is not a PNG, JPEG or WebP image${type ? ` (its type is '${type.slice(0, 60)}')` : ''}.`, { param, detail: 'invalid_image_format' });
}

async function imagePart(modelId: string, input: ImageInput, index: number): Promise<Record<string, unknown>> {
  const param = `image[${index}]`;
  if (input.kind === 'file_id') throw unsupported(modelId, param, 'cannot read OpenAI file ids; send the image itself.');
  if (input.kind === 'file') {
    const bytes = new Uint8Array(await input.file.arrayBuffer());
    return { inlineData: { mimeType: imageMediaType(input.file.type, input.name, bytes, param), data: bytesToBase64(bytes) } };
  }
  const source = sourceFromUrl(input.url);
  if (source.kind === 'base64') {
    const type = source.mediaType.toLowerCase();
    if (!IMAGE_TYPES.has(type)) throw new GatewayError('invalid_request', `'${param}' is not a PNG, JPEG or WebP image (its data URL says '${type.slice(0, 60)}').`, { param, detail: 'invalid_image_format' });
    return { inlineData: { mimeType: type, data: source.data } };
  }
  const mimeType = guessMediaType(input.url, '');
  if (!mimeType.startsWith('image/')) throw unsupported(modelId, param, 'needs the image type; use a data URL or a URL ending in .png/.jpg/.webp.');
  return { fileData: { mimeType, fileUri: input.url } };
}

/** One generateContent body (one image per call; n > 1 makes n calls), and the settings Gemini could not take as sent. */
export async function toGeminiImageRequest(modelId: string, prompt: string, options: ImageOptions, images: ImageInput[] = [], mask?: ImageInput): Promise<{ body: Record<string, unknown>; warnings: IRWarning[] }> {
  if (mask) throw unsupported(modelId, 'mask', 'cannot take a mask; describe the area to change in the prompt.');
  const parts: Array<Record<string, unknown>> = [{ text: prompt }];
  for (const [i, img] of images.entries()) parts.push(await imagePart(modelId, img, i));
  const warnings: IRWarning[] = [];
  const imageConfig = geminiImageConfig(options.size, options.quality, warnings);
  if (options.user !== undefined) warnings.push(dropped('user', 'Gemini takes no end-user id; it was not sent.'));
  return {
    body: { contents: [{ role: 'user', parts }], generationConfig: { responseModalities: ['TEXT', 'IMAGE'], ...(imageConfig ? { imageConfig } : {}) } },
    warnings,
  };
}
