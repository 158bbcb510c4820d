/** IR response -> Gemini GenerateContentResponse. */
import type { IRChatResponse, IRContentPart, IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import { parseToolArguments } from '../../shared/tool-arguments.js';
import { encodeMedia } from '../gemini-api.js';
import { toGeminiFinishReason } from './map-finish-reason.js';
import { toGeminiUsage } from './usage.js';
import type { Json } from '../../shared/json.js';

/** Tool arguments as a Gemini `args` object; undefined when they are not one. */
export function argsObject(args: string): Json | undefined {
  const parsed = parseToolArguments(args);
  return parsed.kind === 'object' ? parsed.value : undefined;
}

/** One IR part -> a Gemini part (undefined when it has no Gemini form). */
function encodePart(p: IRContentPart): Json | undefined {
  switch (p.type) {
    case 'text':
      return { text: p.text };
    case 'reasoning':
      return { text: p.text, thought: true, ...(p.signature ? { thoughtSignature: p.signature } : {}) };
    case 'tool-call': {
      const args = argsObject(p.arguments);
      return args ? { functionCall: { id: p.id, name: p.name, args } } : undefined;
    }
    case 'image':
    case 'file':
      return p.source.kind === 'file-id' ? undefined : encodeMedia(p, 'content');
    default:
      return undefined;
  }
}

export function encodeGeminiResponse(res: IRChatResponse, meta: ResponseMeta, _warnings: IRWarning[]): Json {
  const parts: Json[] = [];
  let malformed = false;
  for (const p of res.content) {
    const part = encodePart(p);
    if (part) parts.push(part);
    else if (p.type === 'tool-call') malformed = true;
  }
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
