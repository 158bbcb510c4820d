/**
 * An OpenAI reasoning item travels through the IR as a reasoning part whose `signature` names it:
 * `openai-responses:<item id>:<encrypted_content>`. Client protocols replay signatures verbatim
 * (Anthropic `thinking.signature`, Gemini `thoughtSignature`), so the next turn still knows the
 * item came from OpenAI and can send it back as a `reasoning` item with its `encrypted_content`,
 * while a signature from another vendor is never sent to OpenAI (it would be rejected).
 */
import type { IRReasoningPart } from '../../../ir/types.js';

const PREFIX = 'openai-responses:';

export interface OpenAIReasoningRef {
  /** The reasoning item id (`rs_...`), when known. */
  id?: string;
  encryptedContent: string;
}

export function toReasoningSignature(itemId: string, encryptedContent: string): string {
  return `${PREFIX}${itemId}:${encryptedContent}`;
}

/** The OpenAI reasoning item an IR reasoning part carries, if it carries one. */
export function openAIReasoningOf(part: IRReasoningPart): OpenAIReasoningRef | undefined {
  const sig = part.signature;
  if (sig?.startsWith(PREFIX)) {
    const rest = sig.slice(PREFIX.length);
    const colon = rest.indexOf(':');
    if (colon > 0 && colon < rest.length - 1) return { id: rest.slice(0, colon), encryptedContent: rest.slice(colon + 1) };
    return undefined;
  }
  // A Responses client's own reasoning item, kept as providerOptions by its decoder.
  const opts = part.providerOptions?.['openai-responses'];
  if (opts && typeof opts.encryptedContent === 'string' && opts.encryptedContent) {
    return { ...(typeof opts.itemId === 'string' ? { id: opts.itemId } : {}), encryptedContent: opts.encryptedContent };
  }
  return undefined;
}
