/**
 * OpenAI Images API wire format (POST /v1/images/generations, /v1/images/edits). Known fields are
 * typed; unknown ones pass through to OpenAI-style upstreams and are refused when translating.
 */
import { z } from 'zod';

const sizeSchema = z.string().regex(/^(auto|[1-9]\d*x[1-9]\d*)$/, "expected 'auto' or '<width>x<height>'");

/** Fields shared by generations and edits (edits arrive as strings in multipart; coerced first). */
const imageOptionsShape = {
  model: z.string().min(1, 'a model is required'),
  prompt: z.string().trim().min(1, 'a non-empty prompt is required'),
  n: z.number().int().min(1).max(10).optional(),
  size: sizeSchema.optional(),
  quality: z.enum(['auto', 'low', 'medium', 'high', 'standard', 'hd']).optional(),
  response_format: z.enum(['url', 'b64_json']).optional(),
  output_format: z.enum(['png', 'jpeg', 'webp']).optional(),
  output_compression: z.number().int().min(0).max(100).optional(),
  background: z.enum(['transparent', 'opaque', 'auto']).optional(),
  moderation: z.enum(['low', 'auto']).optional(),
  stream: z.boolean().optional(),
  partial_images: z.number().int().min(0).max(3).optional(),
  user: z.string().optional(),
};

export const imageGenerationSchema = z.looseObject({
  ...imageOptionsShape,
  style: z.enum(['vivid', 'natural']).optional(),
});
export type ImageGenerationRequest = z.infer<typeof imageGenerationSchema>;

export const imageEditOptionsSchema = z.looseObject({
  ...imageOptionsShape,
  input_fidelity: z.enum(['high', 'low']).optional(),
});
type ImageEditOptions = z.infer<typeof imageEditOptionsSchema>;

/** An input image of an edit, in whichever form the caller sent it. */
export type ImageInput =
  | { kind: 'file'; file: Blob; name: string }
  | { kind: 'url'; url: string }
  | { kind: 'file_id'; fileId: string };

export interface ImageEditRequest {
  /** How the caller sent it; OpenAI-style upstreams get the same encoding back. */
  encoding: 'multipart' | 'json';
  options: ImageEditOptions;
  /** In the caller's order; the mask applies to the first. */
  images: ImageInput[];
  mask?: ImageInput;
  /** The JSON body as received (encoding `json`), for pass-through. */
  json?: Record<string, unknown>;
  /** Multipart text fields as received (encoding `multipart`), for pass-through. */
  formFields?: Array<[string, string]>;
}

/** `ImagesResponse` as the gateway answers it. */
export interface ImagesResponse {
  created: number;
  data: Array<{ b64_json?: string; url?: string; revised_prompt?: string | null }>;
  output_format?: string;
  size?: string;
  quality?: string;
  background?: string;
  usage?: {
    input_tokens: number;
    input_tokens_details: { text_tokens: number; image_tokens: number };
    output_tokens: number;
    total_tokens: number;
  };
}

/** Fields a GPT image model rejects that the gateway handles itself (see images.md, pitfall 1). */
export function isGptImageModel(upstreamModel: string): boolean {
  return /(^|\/)(gpt-image|chatgpt-image)/i.test(upstreamModel);
}
