/**
 * Pass-through for OpenAI-style image upstreams: the caller's body with the model rewritten. GPT image
 * models reject `response_format` and always answer base64, so `b64_json` is dropped for them and
 * `url` refused (images.md, pitfall 1). Edits keep their encoding; files go out as `image` when
 * there is one and as repeated `image[]` when there are several, in the caller's order.
 */
import { GatewayError } from '../../core/errors.js';
import { isGptImageModel, type ImageEditRequest } from './images-api.js';

function responseFormatFor(upstreamModel: string, modelId: string, value: unknown): unknown {
  if (value === undefined || !isGptImageModel(upstreamModel)) return value;
  if (value === 'url') {
    throw new GatewayError('unsupported', `The model '${modelId}' returns base64 images only; use response_format 'b64_json' or leave it out.`, { param: 'response_format', detail: 'unsupported_parameter' });
  }
  return undefined;
}

export function openAIGenerationBody(body: Record<string, unknown>, upstreamModel: string, modelId: string): Record<string, unknown> {
  const out: Record<string, unknown> = { ...body, model: upstreamModel };
  const rf = responseFormatFor(upstreamModel, modelId, body.response_format);
  if (rf === undefined) delete out.response_format;
  return out;
}

export function openAIEditBody(req: ImageEditRequest, upstreamModel: string, modelId: string): { body: BodyInit; json: boolean } {
  if (req.encoding === 'json') {
    return { body: JSON.stringify(openAIGenerationBody(req.json ?? {}, upstreamModel, modelId)), json: true };
  }
  const form = new FormData();
  form.append('model', upstreamModel);
  for (const [key, value] of req.formFields ?? []) {
    if (key === 'model') continue;
    if (key === 'response_format' && responseFormatFor(upstreamModel, modelId, value) === undefined) continue;
    form.append(key, value);
  }
  const field = req.images.length === 1 ? 'image' : 'image[]';
  for (const img of req.images) if (img.kind === 'file') form.append(field, img.file, img.name);
  if (req.mask?.kind === 'file') form.append('mask', req.mask.file, req.mask.name);
  return { body: form, json: false };
}
