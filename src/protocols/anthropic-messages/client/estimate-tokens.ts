/**
 * A local input-token estimate for count_tokens when the upstream is not Anthropic: about four
 * characters per token over every text the model would read, plus a flat cost per image/document
 * (their base64 payload says little about their token cost).
 */
import type { CountTokensRequest } from '../anthropic-messages-api.js';

const MEDIA_TOKENS = 1600;

function walk(value: unknown, acc: { chars: number; media: number }): void {
  if (typeof value === 'string') {
    acc.chars += value.length;
    return;
  }
  if (Array.isArray(value)) {
    for (const v of value) walk(v, acc);
    return;
  }
  if (!value || typeof value !== 'object') return;
  const obj = value as Record<string, unknown>;
  if ((obj.type === 'image' || obj.type === 'document') && obj.source && typeof obj.source === 'object') {
    const src = obj.source as Record<string, unknown>;
    if (src.type !== 'text' && src.type !== 'content') {
      acc.media++;
      return;
    }
  }
  for (const [k, v] of Object.entries(obj)) {
    if (k === 'cache_control' || k === 'type' || k === 'role' || k === 'signature') continue;
    walk(v, acc);
  }
}

export function estimateInputTokens(req: CountTokensRequest): number {
  const acc = { chars: 0, media: 0 };
  walk(req.system, acc);
  walk(req.messages, acc);
  if (req.tools) acc.chars += JSON.stringify(req.tools).length;
  return Math.max(1, Math.ceil(acc.chars / 4) + acc.media * MEDIA_TOKENS);
}
