/**
 * A local input-token estimate for `POST /v1/responses/input_tokens` when the upstream cannot
 * count (not OpenAI): characters / 4 of every text the model reads (tool calls and results as
 * JSON, tool definitions included), plus a flat cost per image or document.
 */
import type { IRChatRequest, IRContentPart } from '../../../ir/types.js';

const MEDIA_TOKENS = 1000;

function count(p: IRContentPart, acc: { chars: number; media: number }): void {
  switch (p.type) {
    case 'text':
    case 'reasoning':
      acc.chars += p.text.length;
      return;
    case 'image':
    case 'file':
      acc.media++;
      return;
    case 'tool-call':
      acc.chars += p.name.length + p.arguments.length;
      return;
    case 'tool-result':
      for (const c of p.content) count(c, acc);
  }
}

export function estimateResponsesInputTokens(ir: IRChatRequest): number {
  const acc = { chars: 0, media: 0 };
  for (const s of ir.system ?? []) acc.chars += s.text.length;
  for (const m of ir.messages) for (const p of m.content) count(p, acc);
  if (ir.tools?.length) acc.chars += JSON.stringify(ir.tools).length;
  return Math.max(1, Math.ceil(acc.chars / 4) + acc.media * MEDIA_TOKENS);
}
