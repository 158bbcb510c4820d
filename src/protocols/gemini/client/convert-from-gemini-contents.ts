/**
 * Gemini `contents` -> IR messages. Gemini function calls have no ids (or optional ones) and
 * results are matched by name, so ids are synthesized per call and each `functionResponse` is
 * paired with a call of the previous model turn: by `id` when it names one, else by name in order.
 */
import { GatewayError } from '../../../core/errors.js';
import { guessMediaType } from '../../../ir/media.js';
import type { IRContentPart, IRFilePart, IRImagePart, IRMessage, IRReasoningPart, IRTextPart, IRToolResultPart, ProtocolName } from '../../../ir/types.js';
import type { GeminiContent, GeminiPart } from '../gemini-api.js';
import { quoteInput } from '../../../core/quote-input.js';
import { reasoningOfSignature } from './thought-signature.js';
import { decodeReasoningTokenBytes } from '../../shared/reasoning-token.js';

interface PendingCall {
  id: string;
  name: string;
}

type FunctionResponse = NonNullable<GeminiPart['functionResponse']>;
type MediaRef = { mimeType: string; data: string } | { mimeType?: string | undefined; fileUri: string };

/** inlineData/fileData -> IR image or file part; audio and video have no IR form. */
function mediaPart(media: MediaRef, param: string): IRImagePart | IRFilePart {
  const isInline = 'data' in media;
  const mime = media.mimeType ?? (isInline ? 'application/octet-stream' : guessMediaType(media.fileUri));
  if (mime.startsWith('audio/') || mime.startsWith('video/')) {
    throw new GatewayError('unsupported', `${quoteInput(mime)} input cannot be translated for this model; only images, PDFs and text documents can.`, { param });
  }
  const source = isInline ? { kind: 'base64' as const, mediaType: mime, data: media.data } : { kind: 'url' as const, url: media.fileUri, mediaType: mime };
  return mime.startsWith('image/') ? { type: 'image', source } : { type: 'file', source };
}

function signatureOptions(sig: string | undefined): Pick<IRTextPart, 'providerOptions'> {
  return sig ? { providerOptions: { gemini: { thoughtSignature: sig } } } : {};
}

/** A function result's text: `{result|output|content: "x"}` -> `x`, otherwise its JSON. */
function resultContent(response: Record<string, unknown> | null | undefined): { text: string; isError: boolean } {
  const r = response ?? {};
  const keys = Object.keys(r);
  if (keys.length === 1) {
    const key = keys[0] as string;
    const only = r[key];
    if (typeof only === 'string' && (key === 'result' || key === 'output' || key === 'content')) return { text: only, isError: false };
    if (key === 'error') return { text: typeof only === 'string' ? only : JSON.stringify(only), isError: true };
  }
  return { text: JSON.stringify(r), isError: false };
}

function decodeFunctionResponse(fr: FunctionResponse, pending: PendingCall[], param: string): IRToolResultPart {
  let at = fr.id ? pending.findIndex((c) => c.id === fr.id) : -1;
  if (at < 0) at = pending.findIndex((c) => c.name === fr.name);
  if (at < 0) {
    throw new GatewayError('invalid_request', `The function response '${quoteInput(fr.name)}' does not answer a function call of the previous model turn.`, { param: `${param}.functionResponse.name` });
  }
  const call = pending.splice(at, 1)[0] as PendingCall;
  const { text, isError } = resultContent(fr.response);
  const content: IRToolResultPart['content'] = [{ type: 'text', text }];
  (fr.parts ?? []).forEach((p, k) => {
    const media = p.inlineData ?? p.fileData;
    if (media) content.push(mediaPart(media, `${param}.functionResponse.parts[${k}]`));
  });
  return { type: 'tool-result', toolCallId: call.id, toolName: call.name, content, ...(isError ? { isError } : {}) };
}

function codeText(p: GeminiPart): string | undefined {
  if (p.executableCode) return `\`\`\`${(p.executableCode.language ?? 'python').toLowerCase()}\n${p.executableCode.code}\n\`\`\``;
  if (p.codeExecutionResult) return `\`\`\`\n${p.codeExecutionResult.output ?? ''}\n\`\`\``;
  return undefined;
}

/**
 * Adjacent thought parts form one IR reasoning block: a stream may send the thought text and its
 * signature in separate parts, and other vendors need the signature on the text it signs (a
 * gateway token carries that text itself: thought-signature.ts).
 */
function pushThought(parts: IRContentPart[], open: IRReasoningPart | undefined, text: string, signature: string | undefined, target: ProtocolName | undefined): IRReasoningPart | undefined {
  const prev = parts[parts.length - 1] === open ? open : undefined;
  if (!signature) {
    if (prev) {
      prev.text += text;
      return prev;
    }
    const part: IRReasoningPart = { type: 'reasoning', text };
    parts.push(part);
    return part;
  }
  const part = reasoningOfSignature((prev?.text ?? '') + text, signature, target);
  if (prev) parts[parts.length - 1] = part;
  else parts.push(part);
  return undefined;
}

/** The reasoning a gateway token on a non-thought part stands for (undefined: no token, e.g. Gemini's own signature). */
function carriedReasoning(signature: string | undefined, target: ProtocolName | undefined): IRReasoningPart | undefined {
  if (!signature || !decodeReasoningTokenBytes(signature)) return undefined;
  return reasoningOfSignature('', signature, target);
}

function decodeModelTurn(content: GeminiContent, i: number, calls: PendingCall[], target: ProtocolName | undefined): IRContentPart[] {
  const parts: IRContentPart[] = [];
  /** The thought whose text is still coming (its signature may follow in a later part). */
  let thought: IRReasoningPart | undefined;
  content.parts.forEach((p, j) => {
    const param = `contents[${i}].parts[${j}]`;
    // Another vendor's reasoning handed out on a text or call part (the client did not ask for
    // thought parts): it comes back before that part, as it was.
    const carried = !p.thought && (p.functionCall || p.text !== undefined) ? carriedReasoning(p.thoughtSignature, target) : undefined;
    if (carried) parts.push(carried);
    const own = carried ? undefined : p.thoughtSignature;
    if (p.functionCall) {
      const fc = p.functionCall;
      const id = fc.id ?? `call_${i}_${j}`;
      calls.push({ id, name: fc.name });
      parts.push({ type: 'tool-call', id, name: fc.name, arguments: JSON.stringify(fc.args ?? {}), ...signatureOptions(own) });
    } else if (p.text !== undefined) {
      if (p.thought) thought = pushThought(parts, thought, p.text, p.thoughtSignature, target);
      else if (p.text) parts.push({ type: 'text', text: p.text, ...signatureOptions(own) });
    } else if (p.inlineData || p.fileData) {
      parts.push(mediaPart((p.inlineData ?? p.fileData) as MediaRef, param));
    } else if (p.functionResponse) {
      throw new GatewayError('invalid_request', 'A function response belongs in a user turn, not a model turn.', { param: `${param}.functionResponse` });
    } else {
      const text = codeText(p);
      if (text) parts.push({ type: 'text', text });
    }
  });
  return parts;
}

function decodeUserPart(p: GeminiPart, param: string): IRContentPart | undefined {
  if (p.text !== undefined) return p.text || p.thought ? { type: 'text', text: p.text } : undefined;
  if (p.inlineData) return mediaPart(p.inlineData, `${param}.inlineData`);
  if (p.fileData) return mediaPart(p.fileData, `${param}.fileData`);
  if (p.functionCall) throw new GatewayError('invalid_request', "Function calls come from the model: they belong in a 'model' turn.", { param: `${param}.functionCall` });
  const text = codeText(p);
  return text ? { type: 'text', text } : undefined;
}

/** `target`: the upstream's protocol, when known (a signature only goes back to the vendor that made it). */
export function convertFromGeminiContents(contents: GeminiContent[], target?: ProtocolName): IRMessage[] {
  const out: IRMessage[] = [];
  let pending: PendingCall[] = [];
  contents.forEach((content, i) => {
    if (content.role === 'model') {
      const calls: PendingCall[] = [];
      const parts = decodeModelTurn(content, i, calls, target);
      pending = calls;
      if (parts.length) out.push({ role: 'assistant', content: parts });
      return;
    }
    const results: IRToolResultPart[] = [];
    const rest: IRContentPart[] = [];
    content.parts.forEach((p, j) => {
      const param = `contents[${i}].parts[${j}]`;
      if (p.functionResponse) results.push(decodeFunctionResponse(p.functionResponse, pending, param));
      else {
        const part = decodeUserPart(p, param);
        if (part) rest.push(part);
      }
    });
    if (results.length) out.push({ role: 'tool', content: results });
    if (rest.length) out.push({ role: 'user', content: rest });
  });
  return out;
}
