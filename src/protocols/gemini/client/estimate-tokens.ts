/**
 * Local :countTokens estimate for upstreams that cannot count Gemini requests: characters / 4 of
 * all text (function calls and results as JSON), plus a fixed 258 tokens per image or document,
 * which is what Gemini charges for an image.
 */
import type { GeminiContent, GeminiPart } from '../gemini-api.js';

const MEDIA_TOKENS = 258;

function partChars(p: GeminiPart): { chars: number; media: number } {
  if (p.text !== undefined) return { chars: p.text.length, media: 0 };
  if (p.inlineData || p.fileData) return { chars: 0, media: 1 };
  if (p.functionCall) return { chars: p.functionCall.name.length + JSON.stringify(p.functionCall.args ?? {}).length, media: 0 };
  if (p.functionResponse) return { chars: p.functionResponse.name.length + JSON.stringify(p.functionResponse.response ?? {}).length, media: 0 };
  if (p.executableCode) return { chars: p.executableCode.code.length, media: 0 };
  if (p.codeExecutionResult) return { chars: (p.codeExecutionResult.output ?? '').length, media: 0 };
  return { chars: 0, media: 0 };
}

export function estimateGeminiTokens(contents: GeminiContent[], extra: { systemInstruction?: { parts: GeminiPart[] } | undefined; tools?: unknown } = {}): number {
  let chars = 0;
  let media = 0;
  const parts = [...contents.flatMap((c) => c.parts), ...(extra.systemInstruction?.parts ?? [])];
  for (const p of parts) {
    const n = partChars(p);
    chars += n.chars;
    media += n.media;
  }
  if (extra.tools !== undefined) chars += JSON.stringify(extra.tools).length;
  return Math.ceil(chars / 4) + media * MEDIA_TOKENS;
}
