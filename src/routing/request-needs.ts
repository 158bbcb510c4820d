/**
 * What a request needs from the model that serves it, read from the client's body in any protocol
 * (chat completions, messages, Gemini, Responses, Interactions): images, PDF documents, tools. A
 * fallback model is only tried when it can serve all of it.
 */
import type { ResolvedModel } from './model-registry.js';

type Capability = ResolvedModel['capabilities'][number];

export interface RequestNeeds {
  capability: Capability;
  image: boolean;
  pdf: boolean;
  tools: boolean;
}

const IMAGE_TYPES = new Set(['image_url', 'image', 'input_image']);
const DOCUMENT_TYPES = new Set(['document', 'input_file', 'file']);
const INLINE_KEYS = ['inlineData', 'inline_data', 'fileData', 'file_data'];
const MAX_DEPTH = 24;

/** The needs of a chat request body. */
export function chatNeeds(body: Record<string, unknown>): RequestNeeds {
  const needs: RequestNeeds = { capability: 'chat', image: false, pdf: false, tools: Array.isArray(body.tools) && body.tools.length > 0 };
  for (const [key, value] of Object.entries(body)) if (key !== 'tools') scan(value, needs, 0);
  return needs;
}

function scan(value: unknown, needs: RequestNeeds, depth: number): void {
  if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || (needs.image && needs.pdf)) return;
  if (Array.isArray(value)) {
    for (const v of value) scan(v, needs, depth + 1);
    return;
  }
  const obj = value as Record<string, unknown>;
  if (typeof obj.type === 'string') {
    if (IMAGE_TYPES.has(obj.type)) needs.image = true;
    else if (DOCUMENT_TYPES.has(obj.type)) needs.pdf = true;
  }
  for (const key of INLINE_KEYS) {
    const part = obj[key] as { mimeType?: unknown; mime_type?: unknown } | undefined;
    const mime = part && typeof part === 'object' ? (part.mimeType ?? part.mime_type) : undefined;
    if (typeof mime === 'string') {
      if (mime.startsWith('image/')) needs.image = true;
      else if (mime === 'application/pdf') needs.pdf = true;
    }
  }
  for (const v of Object.values(obj)) scan(v, needs, depth + 1);
}

/**
 * Whether `model` can serve a request with these needs: the capability, image and PDF input
 * (`inputModalities`), tools (unless the model's `options.tools` is false).
 */
export function canServe(model: ResolvedModel, needs: RequestNeeds): boolean {
  if (!model.capabilities.includes(needs.capability)) return false;
  if (needs.image && !model.inputModalities.includes('image')) return false;
  if (needs.pdf && !model.inputModalities.includes('pdf')) return false;
  return !(needs.tools && model.options.tools === false);
}
