/** IR response -> Gemini GenerateContentResponse. */
import { toStandardBase64 } from '../../../ir/media.js';
import type { IRChatResponse, IRContentPart, IRFilePart, IRImagePart, IRWarning, ProtocolName } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import { parseToolArguments } from '../../shared/tool-arguments.js';
import { encodeMedia } from '../gemini-api.js';
import { toGeminiFinishReason } from './map-finish-reason.js';
import { thoughtSignatureFor } from './thought-signature.js';
import { toGeminiUsage } from './usage.js';
import type { Json } from '../../shared/json.js';

/** Tool arguments as a Gemini `args` object; undefined when they are not one. */
export function argsObject(args: string): Json | undefined {
  const parsed = parseToolArguments(args);
  return parsed.kind === 'object' ? parsed.value : undefined;
}

/** An IR image or file as a Gemini client reads it: inline bytes in standard, padded base64. */
export function clientMedia(p: IRImagePart | IRFilePart): Json | undefined {
  if (p.source.kind === 'file-id') return undefined;
  if (p.source.kind === 'base64') return { inlineData: { mimeType: p.source.mediaType, data: toStandardBase64(p.source.data) } };
  return encodeMedia(p, 'content');
}

/** One IR part -> a Gemini part (undefined when it has no Gemini form). */
function encodePart(p: IRContentPart, upstream: ProtocolName | undefined): Json | undefined {
  switch (p.type) {
    case 'text':
      return { text: p.text };
    case 'reasoning': {
      const thoughtSignature = thoughtSignatureFor(p, upstream);
      return { text: p.text, thought: true, ...(thoughtSignature ? { thoughtSignature } : {}) };
    }
    case 'tool-call': {
      const args = argsObject(p.arguments);
      return args ? { functionCall: { id: p.id, name: p.name, args } } : undefined;
    }
    case 'image':
    case 'file':
      return clientMedia(p);
    default:
      return undefined;
  }
}

export function encodeGeminiResponse(res: IRChatResponse, meta: ResponseMeta, _warnings: IRWarning[]): Json {
  const parts: Json[] = [];
  let malformed = false;
  const thoughts = meta.options?.thoughts !== false;
  /** Without thought parts: a reasoning's signature, for the next part (as Gemini places it). */
  let signature: string | undefined;
  for (const p of res.content) {
    if (p.type === 'reasoning' && !thoughts) {
      if (p.signature !== undefined || p.redactedData !== undefined) signature = thoughtSignatureFor(p, meta.upstream) ?? signature;
      continue;
    }
    const part = encodePart(p, meta.upstream);
    if (part) {
      if (signature && (p.type === 'text' || p.type === 'tool-call')) {
        part.thoughtSignature = signature;
        signature = undefined;
      }
      parts.push(part);
    } else if (p.type === 'tool-call') malformed = true;
  }
  if (signature) parts.push({ text: '', thoughtSignature: signature });
  const finishReason = malformed ? 'MALFORMED_FUNCTION_CALL' : toGeminiFinishReason(res.finishReason);
  const out: Json = {
    candidates: [{ content: parts.length ? { parts, role: 'model' } : { role: 'model' }, finishReason, index: 0 }],
  };
  const usage = toGeminiUsage(res.usage);
  if (usage) out.usageMetadata = usage;
  out.modelVersion = res.model || meta.upstreamModel;
  out.responseId = res.id;
  return out;
}
