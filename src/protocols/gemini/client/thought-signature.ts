/**
 * `thoughtSignature` for Gemini clients of other vendors' models. The field is bytes (standard
 * base64 that the SDKs and the API decode, and that the gateway checks when it comes back), so the
 * reasoning another vendor signed travels in it as a gateway token in bytes form
 * (shared/reasoning-token.ts): the vendor's signature (Anthropic's, or OpenAI's reasoning item id and
 * `encrypted_content`), the exact text it signs and the protocol it came from. The next turn reads it
 * back, so a tool round trip keeps the thinking that vendor needs; a signature never reaches a
 * vendor that did not make it.
 */
import type { IRReasoningPart, ProtocolName } from '../../../ir/types.js';
import { decodeReasoningTokenBytes, encodeReasoningTokenBytes } from '../../shared/reasoning-token.js';

/** The thoughtSignature a Gemini client gets for a reasoning part the `upstream` produced (undefined: none). */
export function thoughtSignatureFor(part: IRReasoningPart, upstream: ProtocolName | undefined): string | undefined {
  // Gemini's own signatures are base64 already (and an unknown origin is left as it was).
  if (upstream === undefined || upstream === 'gemini') return part.signature;
  return encodeReasoningTokenBytes(part, upstream);
}

/**
 * A thought part's signature -> the IR reasoning it stands for, for an upstream speaking `target`
 * (undefined: not known). A gateway token gives back the other vendor's signature and the exact
 * text it signs; Gemini's own signature stays as it is. A signature never goes to a vendor that did
 * not make it (it would refuse the request): then only the text remains.
 */
export function reasoningOfSignature(text: string, signature: string | undefined, target: ProtocolName | undefined): IRReasoningPart {
  const token = decodeReasoningTokenBytes(signature);
  if (token) {
    // The text the signature signs, exactly as it was (a client may have split or dropped the thought's text).
    if (target !== undefined && token.origin !== target) return { type: 'reasoning', text: token.text };
    return {
      type: 'reasoning',
      text: token.text,
      ...(token.signature ? { signature: token.signature } : {}),
      ...(token.redactedData !== undefined ? { redactedData: token.redactedData } : {}),
    };
  }
  if (!signature || (target !== undefined && target !== 'gemini')) return { type: 'reasoning', text };
  return { type: 'reasoning', text, signature, providerOptions: { gemini: { thoughtSignature: signature } } };
}
