/**
 * Gemini function calls usually have no id, and thinking models attach a `thoughtSignature` that
 * must come back with the call in the next request. Clients of other protocols only echo the tool
 * call id, so a call decoded from Gemini gets an id that carries its signature:
 * `<id>__thought__<signature as base64url>`. Encoding back to Gemini recovers the signature from it.
 */

const SEP = '__thought__';

/** Placeholder the Gemini API accepts for function calls that never had a signature. */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

function toBase64Url(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  return b64 + '='.repeat((4 - (b64.length % 4)) % 4);
}

/** The IR id of a Gemini function call: its own id, or one made from the response id and position. */
export function toolCallIdFor(geminiId: string | undefined, responseKey: string, index: number, signature?: string): string {
  const base = geminiId && !geminiId.includes(SEP) ? geminiId : `call_${responseKey}_${index}`;
  return signature ? `${base}${SEP}${toBase64Url(signature)}` : base;
}

/** The thought signature carried in a tool call id, if any. */
export function signatureFromToolCallId(id: string): string | undefined {
  const at = id.indexOf(SEP);
  if (at < 0) return undefined;
  const sig = id.slice(at + SEP.length);
  return sig ? fromBase64Url(sig) : undefined;
}

/** A short key that keeps synthesized ids unique across the turns of a conversation. */
export function responseKeyOf(responseId: string | undefined): string {
  const clean = (responseId ?? '').replace(/[^A-Za-z0-9]/g, '').slice(0, 16);
  return clean || crypto.randomUUID().replace(/-/g, '').slice(0, 12);
}
