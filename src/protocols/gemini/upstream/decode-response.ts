/** Gemini GenerateContentResponse -> IR; a malformed answer is a 502. */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatResponse, IRContentPart, IRTextPart } from '../../../ir/types.js';
import { generateContentResponseSchema, type GeminiResponsePart } from '../gemini-api.js';
import { fromGeminiFinishReason } from './map-finish-reason.js';
import { groundingCitations, groundingSearch } from './grounding.js';
import { responseKeyOf, toolCallIdFor } from './tool-call-ids.js';
import { fromGeminiUsage } from './usage.js';

/** Candidate metadata worth keeping for callers that look for it. */
const METADATA_KEYS = ['safetyRatings', 'citationMetadata', 'groundingMetadata', 'urlContextMetadata', 'finishMessage', 'avgLogprobs'];

/** One response part -> IR parts; `toolIndex` numbers the function calls of the message. */
export function decodeResponsePart(p: GeminiResponsePart, key: string, toolIndex: number): IRContentPart | undefined {
  if (p.functionCall) {
    const sig = p.thoughtSignature;
    return {
      type: 'tool-call',
      id: toolCallIdFor(p.functionCall.id, key, toolIndex, sig),
      name: p.functionCall.name,
      arguments: JSON.stringify(p.functionCall.args ?? {}),
      ...(sig ? { providerOptions: { gemini: { thoughtSignature: sig } } } : {}),
    };
  }
  if (p.thought && p.text === undefined && p.thoughtSignature) return { type: 'reasoning', text: '', signature: p.thoughtSignature, providerOptions: { gemini: { thoughtSignature: p.thoughtSignature } } };
  if (p.text !== undefined) {
    if (p.thought) return { type: 'reasoning', text: p.text, ...(p.thoughtSignature ? { signature: p.thoughtSignature, providerOptions: { gemini: { thoughtSignature: p.thoughtSignature } } } : {}) };
    if (!p.text) return undefined;
    return { type: 'text', text: p.text, ...(p.thoughtSignature ? { providerOptions: { gemini: { thoughtSignature: p.thoughtSignature } } } : {}) };
  }
  if (p.inlineData) return { type: 'image', source: { kind: 'base64', mediaType: p.inlineData.mimeType ?? 'image/png', data: p.inlineData.data } };
  if (p.executableCode) return { type: 'text', text: `\n\`\`\`${(p.executableCode.language ?? 'python').toLowerCase()}\n${p.executableCode.code}\n\`\`\`\n` };
  if (p.codeExecutionResult) return { type: 'text', text: `\n\`\`\`\n${p.codeExecutionResult.output ?? ''}\n\`\`\`\n` };
  return undefined;
}

/**
 * Search grounding: citations go to the text parts they fall in (the segments count the answer's
 * text as one), the search itself before the text it grounds (the search ran first; OpenAI lists
 * its `web_search_call` before the message that cites it, Anthropic its search blocks before the text).
 */
function addGrounding(content: IRContentPart[], meta: unknown, key: string): void {
  const search = groundingSearch(meta, `ws_${key}`);
  if (!search) return;
  const texts = content.filter((p): p is IRTextPart => p.type === 'text');
  const citations = groundingCitations(meta, texts.map((p) => p.text).join(''));
  let offset = 0;
  for (const part of texts) {
    const end = offset + part.text.length;
    const mine = citations.filter((c) => (c.startIndex ?? 0) >= offset && (c.startIndex ?? 0) < end);
    if (mine.length) part.citations = mine.map((c) => ({ ...c, startIndex: (c.startIndex ?? 0) - offset, endIndex: Math.min(c.endIndex ?? end, end) - offset }));
    offset = end;
  }
  const firstText = content.findIndex((p) => p.type === 'text');
  if (firstText < 0) content.push(search);
  else content.splice(firstText, 0, search);
}

export function decodeGeminiResponse(json: unknown): IRChatResponse {
  const parsed = generateContentResponseSchema.safeParse(json);
  if (!parsed.success) throw new GatewayError('bad_gateway', 'The upstream answered with a malformed Gemini response.');
  const res = parsed.data;
  const key = responseKeyOf(res.responseId);
  const candidate = res.candidates?.[0];
  const blocked = res.promptFeedback?.blockReason;
  // Neither an answer nor a refusal (an error object sent with 200, another API's body): not an empty answer.
  if (!candidate && !blocked) throw new GatewayError('bad_gateway', 'The upstream answered with a malformed Gemini response (no candidates and no block reason).');
  const content: IRContentPart[] = [];
  let toolIndex = 0;
  for (const p of candidate?.content?.parts ?? []) {
    const part = decodeResponsePart(p, key, toolIndex);
    if (!part) continue;
    if (part.type === 'tool-call') toolIndex++;
    content.push(part);
  }
  addGrounding(content, (candidate as Record<string, unknown> | undefined)?.groundingMetadata, key);
  let finishReason = fromGeminiFinishReason(candidate?.finishReason, toolIndex > 0);
  if (!candidate && blocked) finishReason = { unified: 'content-filter', raw: blocked };
  const meta: Record<string, unknown> = {};
  if (candidate) for (const k of METADATA_KEYS) if ((candidate as Record<string, unknown>)[k] !== undefined) meta[k] = (candidate as Record<string, unknown>)[k];
  if (res.promptFeedback) meta.promptFeedback = res.promptFeedback;
  return {
    id: res.responseId ?? `gemini-${key}`,
    model: res.modelVersion ?? 'unknown',
    content,
    finishReason,
    usage: fromGeminiUsage(res.usageMetadata),
    ...(Object.keys(meta).length ? { providerMetadata: { gemini: meta } } : {}),
  };
}
