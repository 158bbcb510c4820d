/**
 * A reasoning item's `encrypted_content` as the gateway writes it: an opaque token carrying what the
 * vendor needs to accept its own thinking back on the next turn (Anthropic's signature or redacted
 * data, Gemini's thought signature) together with the exact text it signs and the protocol it came
 * from. Stateless clients (Codex sends `store: false`) replay reasoning items verbatim, so thinking
 * survives a tool round trip. The token is `mg1.` + base64url(JSON); it is not encrypted (the
 * signatures inside are the vendors' own and only they can check them). OpenAI's own encrypted
 * content never starts with `mg1.` (it is base64url without dots).
 */
import type { IRReasoningPart, ProtocolName } from '../../ir/types.js';

const PREFIX = 'mg1.';
const ORIGINS: readonly ProtocolName[] = ['openai-chat', 'openai-responses', 'anthropic-messages', 'gemini'];

export interface ReasoningToken {
  /** The upstream protocol that produced (and signed) the reasoning. */
  origin: ProtocolName;
  text: string;
  signature?: string;
  redactedData?: string;
}

function toBase64Url(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64Url(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder().decode(bytes);
}

export function isGatewayReasoningToken(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

/** The token for a reasoning part, or undefined when there is nothing a vendor would check. */
export function encodeReasoningToken(part: IRReasoningPart, origin: ProtocolName): string | undefined {
  if (!part.signature && part.redactedData === undefined) return undefined;
  const body: Record<string, string> = { o: origin, t: part.text };
  if (part.signature) body.s = part.signature;
  if (part.redactedData !== undefined) body.r = part.redactedData;
  return PREFIX + toBase64Url(JSON.stringify(body));
}

/** The token's content, or undefined when the value is not a (valid) gateway token. */
export function decodeReasoningToken(value: string | null | undefined): ReasoningToken | undefined {
  if (!isGatewayReasoningToken(value)) return undefined;
  try {
    const body = JSON.parse(fromBase64Url((value as string).slice(PREFIX.length))) as Record<string, unknown>;
    const origin = body.o as ProtocolName;
    if (!ORIGINS.includes(origin) || typeof body.t !== 'string') return undefined;
    return {
      origin,
      text: body.t,
      ...(typeof body.s === 'string' ? { signature: body.s } : {}),
      ...(typeof body.r === 'string' ? { redactedData: body.r } : {}),
    };
  } catch {
    return undefined;
  }
}
