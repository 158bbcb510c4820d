/** The deterministic answers of the mock Gemini upstream (shared mock-vendor contract). */
import { isObj, type Json } from './mock-gemini-validate.js';
import { argsFromSchema, wordChunks } from './mock-reply-parts.js';

const VENDOR = 'gemini';

export interface GeminiReply {
  /** Parts of the answer in order (thought summary, text, function calls). */
  parts: Json[];
  finishReason: 'STOP' | 'MAX_TOKENS' | 'SAFETY';
  promptTokens: number;
  candidatesTokens: number;
  thoughtsTokens: number;
  /** The reply text (without thoughts), for stream splitting. */
  text: string | null;
  /** Candidate-level grounding of a search answer (on the last chunk of a stream). */
  groundingMetadata?: Json;
}

/** A reply scripted by a test (`scriptNext`): these parts after the computed thoughts. */
export interface ScriptedGeminiReply {
  parts: Json[];
  /** `SAFETY`: the answer was blocked by the safety filters. */
  finishReason?: 'SAFETY';
  groundingMetadata?: Json;
}

/** The computed reply with a scripted answer in place of its text or calls; usage counted the same way. */
export function applyScript(computed: GeminiReply, script: ScriptedGeminiReply): GeminiReply {
  const thoughts = computed.parts.filter((p) => p.thought === true);
  const texts = script.parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text as string);
  const calls = script.parts.filter((p) => p.functionCall !== undefined).length;
  const words = texts.join(' ').split(/\s+/).filter(Boolean).length;
  return {
    ...computed,
    parts: [...thoughts, ...script.parts],
    finishReason: script.finishReason ?? 'STOP',
    candidatesTokens: words + 5 * calls,
    text: calls === 0 && texts.length ? texts.join('') : null,
    ...(script.groundingMetadata ? { groundingMetadata: script.groundingMetadata } : {}),
  };
}


/** The text a function result stands for: `{result: "x"}` -> `x`, anything else -> its JSON. */
function resultText(response: unknown): string {
  if (isObj(response)) {
    const keys = Object.keys(response);
    if (keys.length === 1) {
      const only = response[keys[0]!];
      if ((keys[0] === 'result' || keys[0] === 'output' || keys[0] === 'content') && typeof only === 'string') return only;
    }
  }
  return JSON.stringify(response);
}

function thinkingOn(req: Json): { on: boolean; includeThoughts: boolean } {
  const g = isObj(req.generationConfig) ? req.generationConfig : {};
  const t = isObj(g.thinkingConfig) ? g.thinkingConfig : undefined;
  if (!t) return { on: false, includeThoughts: false };
  return { on: t.thinkingBudget !== 0, includeThoughts: t.includeThoughts === true };
}

/** A stable fake signature for a function call. */
export function signatureFor(name: string): string {
  return Buffer.from(`mock-thought-signature:${name}`).toString('base64');
}

export function computeReply(req: Json): GeminiReply {
  const contents = req.contents as Json[];
  const promptTokens = 10 * contents.length;
  const last = contents[contents.length - 1]!;
  const lastParts = last.parts as Json[];
  const g = isObj(req.generationConfig) ? req.generationConfig : {};
  const thinking = thinkingOn(req);
  const thoughtParts: Json[] = thinking.includeThoughts ? [{ text: `**Thinking**\n\n[${VENDOR}] thinking`, thought: true }] : [];
  const thoughtsTokens = thinking.includeThoughts ? 3 : 0;
  const carriesResults = lastParts.some((p) => p.functionResponse !== undefined);

  const decls: Json[] = [];
  for (const t of Array.isArray(req.tools) ? (req.tools as Json[]) : []) {
    if (Array.isArray(t.functionDeclarations)) decls.push(...(t.functionDeclarations as Json[]));
  }
  const tc = isObj(req.toolConfig) ? req.toolConfig : {};
  const fcc = isObj(tc.functionCallingConfig) ? tc.functionCallingConfig : {};
  const allowed = Array.isArray(fcc.allowedFunctionNames) ? (fcc.allowedFunctionNames as string[]) : undefined;
  const callable = allowed ? decls.filter((d) => allowed.includes(String(d.name))) : decls;
  if (callable.length && fcc.mode !== 'NONE' && !carriesResults) {
    const calls = callable.slice(0, 2).map((d, i): Json => {
      const part: Json = { functionCall: { name: d.name, args: argsFromSchema(d.parameters ?? d.parametersJsonSchema, { caseInsensitive: true }) } };
      if (thinking.on && i === 0) part.thoughtSignature = signatureFor(String(d.name));
      return part;
    });
    return { parts: [...thoughtParts, ...calls], finishReason: 'STOP', promptTokens, candidatesTokens: 5 * calls.length, thoughtsTokens, text: null };
  }

  let text: string;
  if (carriesResults) {
    const results = lastParts.filter((p) => p.functionResponse !== undefined).map((p) => resultText((p.functionResponse as Json).response));
    text = `[${VENDOR}] tool results: ${results.join('; ')}`;
  } else {
    const lastUser = [...contents].reverse().find((c) => c.role !== 'model');
    const parts = lastUser ? (lastUser.parts as Json[]) : [];
    text = `[${VENDOR}] you said: ${parts.filter((p) => typeof p.text === 'string' && p.thought !== true).map((p) => p.text as string).join(' ')}`;
    for (const p of parts) {
      const media = (isObj(p.inlineData) ? p.inlineData : isObj(p.fileData) ? p.fileData : undefined) as Json | undefined;
      if (!media) continue;
      const mime = String(media.mimeType ?? '');
      if (mime.startsWith('image/')) text += ' [image]';
      else if (mime === 'application/pdf') text += ' [pdf]';
    }
  }
  let finishReason: GeminiReply['finishReason'] = 'STOP';
  const stops = Array.isArray(g.stopSequences) ? (g.stopSequences as string[]) : [];
  let cut = -1;
  for (const s of stops) {
    const at = s ? text.indexOf(s) : -1;
    if (at >= 0 && (cut < 0 || at < cut)) cut = at;
  }
  if (cut >= 0) text = text.slice(0, cut);
  const words = text.split(/\s+/).filter(Boolean);
  if (typeof g.maxOutputTokens === 'number' && words.length > g.maxOutputTokens) {
    text = words.slice(0, g.maxOutputTokens).join(' ');
    finishReason = 'MAX_TOKENS';
  }
  const candidatesTokens = text.split(/\s+/).filter(Boolean).length;
  return { parts: [...thoughtParts, { text }], finishReason, promptTokens, candidatesTokens, thoughtsTokens, text };
}

export function usageOf(r: GeminiReply, final: boolean): Json {
  if (!final) return { promptTokenCount: r.promptTokens, totalTokenCount: r.promptTokens, promptTokensDetails: [{ modality: 'TEXT', tokenCount: r.promptTokens }] };
  return {
    promptTokenCount: r.promptTokens,
    candidatesTokenCount: r.candidatesTokens,
    totalTokenCount: r.promptTokens + r.candidatesTokens + r.thoughtsTokens,
    promptTokensDetails: [{ modality: 'TEXT', tokenCount: r.promptTokens }],
    ...(r.thoughtsTokens ? { thoughtsTokenCount: r.thoughtsTokens } : {}),
  };
}

/** Words with their leading spaces kept: "a b  c" -> ["a", " b", "  c"]. */

/**
 * The chunks of a streamed answer: thoughts first, then each text one word per chunk and every
 * other part (function calls, server-side tool calls) whole in its own chunk. The finish reason
 * rides on the last text chunk, or (like the real API after calls) on a final empty text part.
 */
export function streamChunks(r: GeminiReply, base: (parts: Json[], finish: string | undefined, final: boolean) => Json): Json[] {
  const out: Json[] = [];
  for (const p of r.parts) if (p.thought === true) out.push(base([p], undefined, false));
  const rest = r.parts.filter((p) => p.thought !== true);
  rest.forEach((p, i) => {
    if (typeof p.text !== 'string') return void out.push(base([p], undefined, false));
    const words = wordChunks(p.text);
    const lastPart = i === rest.length - 1;
    if (words.length === 0 && lastPart) return void out.push(base([{ text: '' }], r.finishReason, true));
    words.forEach((w, k) => {
      const last = lastPart && k === words.length - 1;
      out.push(base([{ text: w }], last ? r.finishReason : undefined, last));
    });
  });
  const tail = rest[rest.length - 1];
  if (!tail || typeof tail.text !== 'string') out.push(base([{ text: '' }], r.finishReason, true));
  return out;
}

/** Tokens counted by :countTokens: words in all text parts plus 258 per media part. */
export function countTokens(contents: Json[]): number {
  let n = 0;
  for (const c of contents) {
    for (const p of (c.parts as Json[]) ?? []) {
      if (typeof p.text === 'string') n += p.text.split(/\s+/).filter(Boolean).length;
      else if (p.inlineData || p.fileData) n += 258;
      else n += 5;
    }
  }
  return n;
}
