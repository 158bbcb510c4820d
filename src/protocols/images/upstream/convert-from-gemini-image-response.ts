/**
 * Gemini generateContent answers (one per requested image) -> OpenAI `ImagesResponse`: every
 * `inlineData` image part becomes a `b64_json` item; usage is summed from `usageMetadata`. A
 * blocked prompt or a safety stop without an image is the caller's 400, no image otherwise a 502.
 */
import { z } from 'zod';
import { GatewayError } from '../../../core/errors.js';
import type { ImagesResponse } from '../images-api.js';

const detailsSchema = z.array(z.looseObject({ modality: z.string().optional(), tokenCount: z.number().optional() })).optional();

const partSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  inlineData: z.looseObject({ mimeType: z.string(), data: z.string() }).optional(),
  inline_data: z.looseObject({ mime_type: z.string(), data: z.string() }).optional(),
});

export const geminiImageResponseSchema = z.looseObject({
  candidates: z
    .array(z.looseObject({ content: z.looseObject({ parts: z.array(partSchema).optional() }).optional(), finishReason: z.string().optional() }))
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: z
    .looseObject({
      promptTokenCount: z.number().optional(),
      candidatesTokenCount: z.number().optional(),
      thoughtsTokenCount: z.number().optional(),
      totalTokenCount: z.number().optional(),
      promptTokensDetails: detailsSchema,
      candidatesTokensDetails: detailsSchema,
    })
    .optional(),
});
export type GeminiImageResponse = z.infer<typeof geminiImageResponseSchema>;

const SAFETY_STOPS = new Set(['SAFETY', 'IMAGE_SAFETY', 'PROHIBITED_CONTENT', 'IMAGE_PROHIBITED_CONTENT', 'BLOCKLIST', 'SPII', 'RECITATION', 'IMAGE_RECITATION']);

function modalityTokens(details: z.infer<typeof detailsSchema>, modality: string): number {
  return (details ?? []).filter((d) => d.modality === modality).reduce((n, d) => n + (d.tokenCount ?? 0), 0);
}

/** Images of one answer (thought images are drafts and are skipped). */
function imagesOf(res: GeminiImageResponse, modelId: string): Array<{ mimeType: string; data: string }> {
  if (res.promptFeedback?.blockReason) {
    throw new GatewayError('invalid_request', `The image model '${modelId}' blocked the prompt (${res.promptFeedback.blockReason}).`, { param: 'prompt', detail: 'content_policy_violation' });
  }
  const out: Array<{ mimeType: string; data: string }> = [];
  let finish: string | undefined;
  let text = '';
  for (const c of res.candidates ?? []) {
    finish = finish ?? c.finishReason;
    for (const p of c.content?.parts ?? []) {
      if (p.thought) continue;
      const inline = p.inlineData ?? (p.inline_data ? { mimeType: p.inline_data.mime_type, data: p.inline_data.data } : undefined);
      if (inline && inline.mimeType.startsWith('image/')) out.push(inline);
      else if (p.text) text += p.text;
    }
  }
  if (out.length > 0) return out;
  if (finish && SAFETY_STOPS.has(finish)) {
    throw new GatewayError('invalid_request', `The image model '${modelId}' refused to produce the image (${finish}).`, { param: 'prompt', detail: 'content_policy_violation' });
  }
  const said = text.trim() ? ` It answered: "${text.trim().slice(0, 200)}"` : '';
  throw new GatewayError('bad_gateway', `The image model '${modelId}' returned no image (finishReason ${finish ?? 'none'}).${said}`);
}

/** The tokens of image calls summed (each call re-sends the prompt; the bill is per call, so inputs add up too). */
export function geminiImageTokens(responses: readonly GeminiImageResponse[]): { input: number; inputImage: number; output: number } {
  let input = 0;
  let inputImage = 0;
  let output = 0;
  for (const res of responses) {
    const u = res.usageMetadata;
    input += u?.promptTokenCount ?? 0;
    inputImage += modalityTokens(u?.promptTokensDetails, 'IMAGE');
    output += (u?.candidatesTokenCount ?? 0) + (u?.thoughtsTokenCount ?? 0);
  }
  return { input, inputImage, output };
}

export function fromGeminiImageResponses(responses: GeminiImageResponse[], modelId: string, created: number): ImagesResponse {
  const data: ImagesResponse['data'] = [];
  let mime = 'image/png';
  for (const res of responses) {
    for (const img of imagesOf(res, modelId)) {
      data.push({ b64_json: img.data });
      mime = img.mimeType;
    }
  }
  const { input, inputImage, output } = geminiImageTokens(responses);
  return {
    created,
    data,
    output_format: mime.replace(/^image\//, '').replace('jpg', 'jpeg'),
    usage: { input_tokens: input, input_tokens_details: { text_tokens: input - inputImage, image_tokens: inputImage }, output_tokens: output, total_tokens: input + output },
  };
}
