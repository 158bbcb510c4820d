/**
 * A reasoning item's `encrypted_content` as the gateway writes it: an opaque token carrying what the
 * vendor needs to accept its own thinking back on the next turn (Anthropic's signature or redacted
 * data, Gemini's thought signature) together with the exact text it signs and the protocol it came
 * from. Stateless clients (Codex sends `store: false`) replay reasoning items verbatim, so thinking
 * survives a tool round trip. The token is `mg1.` + base64url(JSON); it is not encrypted (the
 * signatures inside are the vendors' own and only they can check them). OpenAI's own encrypted
 * content never starts with `mg1.` (it is base64url without dots).
 *
 * Where a client reads the field as bytes (Gemini's `thoughtSignature`: standard base64 that the
 * SDKs and the API decode), the same content travels as the standard, padded base64 of the UTF-8
 * text `mg1.` + JSON (`encodeReasoningTokenBytes`): it always starts `bWcxLnsi` (`mg1.{"`), which
 * a vendor's own signature, opaque binary, does not.
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

/** Standard, padded base64 of the UTF-8 bytes of `text`. */
function utf8ToBase64(text: string): string {
  const bytes = new TextEncoder().encode(text);
  let bin = '';
  for (let i = 0; i < bytes.length; i += 0x8000) bin += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(bin);
}

/** The UTF-8 text of base64 (either alphabet, padding optional); throws when it is not base64. */
function base64ToUtf8(s: string): string {
  const b64 = s.replace(/-/g, '+').replace(/_/g, '/').replace(/=+$/, '');
  const bin = atob(b64 + '='.repeat((4 - (b64.length % 4)) % 4));
  const bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new TextDecoder('utf-8', { fatal: true }).decode(bytes);
}

const toBase64Url = (text: string): string => utf8ToBase64(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** `mg1.{"` in base64: how a token in bytes form begins. */
const BYTES_PREFIX = 'bWcxLnsi';

export function isGatewayReasoningToken(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.startsWith(PREFIX);
}

/** The token's JSON, or undefined when there is nothing a vendor would check. */
function tokenJson(part: IRReasoningPart, origin: ProtocolName): string | undefined {
  if (!part.signature && part.redactedData === undefined) return undefined;
  const body: Record<string, string> = { o: origin, t: part.text };
  if (part.signature) body.s = part.signature;
  if (part.redactedData !== undefined) body.r = part.redactedData;
  return JSON.stringify(body);
}

/** A token's JSON -> its content; undefined (never a throw) when it is not one. */
function tokenOf(json: () => string): ReasoningToken | undefined {
  try {
    const body = JSON.parse(json()) as Record<string, unknown>;
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

/** The token for a reasoning part, or undefined when there is nothing a vendor would check. */
export function encodeReasoningToken(part: IRReasoningPart, origin: ProtocolName): string | undefined {
  const json = tokenJson(part, origin);
  return json === undefined ? undefined : PREFIX + toBase64Url(json);
}

/** The token's content, or undefined when the value is not a (valid) gateway token. */
export function decodeReasoningToken(value: string | null | undefined): ReasoningToken | undefined {
  if (!isGatewayReasoningToken(value)) return undefined;
  return tokenOf(() => base64ToUtf8((value as string).slice(PREFIX.length)));
}

/** The token as standard, padded base64 (a field the client reads as bytes), or undefined when there is nothing to check. */
export function encodeReasoningTokenBytes(part: IRReasoningPart, origin: ProtocolName): string | undefined {
  const json = tokenJson(part, origin);
  return json === undefined ? undefined : utf8ToBase64(PREFIX + json);
}

/** Whether a text (a request body) may hold a token in bytes form: one substring search. */
export function mayHoldReasoningTokenBytes(text: string): boolean {
  return text.includes(BYTES_PREFIX);
}

/** Whether a bytes field holds a gateway token (cheap: its first characters). */
export function isGatewayReasoningTokenBytes(value: string | null | undefined): boolean {
  return typeof value === 'string' && value.startsWith(BYTES_PREFIX);
}

/** The content of a token in bytes form, or undefined when the value is not one (a vendor's own signature). */
export function decodeReasoningTokenBytes(value: string | null | undefined): ReasoningToken | undefined {
  if (!isGatewayReasoningTokenBytes(value)) return undefined;
  return tokenOf(() => {
    const text = base64ToUtf8(value as string);
    if (!text.startsWith(PREFIX)) throw new SyntaxError('not a token');
    return text.slice(PREFIX.length);
  });
}
