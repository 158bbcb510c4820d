/** Gemini generateContent request -> IR (used when the upstream speaks another protocol). */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatRequest, IRResponseFormat, IRTextPart, IRTool, IRToolChoice } from '../../../ir/types.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import type { DecodeContext } from '../../types.js';
import { convertFromGeminiContents } from './convert-from-gemini-contents.js';
import { generateContentRequestSchema, type GenerateContentRequest } from '../gemini-api.js';
import { toJsonSchemaObject } from './schema-dialect.js';
import { quoteInput } from '../../../core/quote-input.js';
import { unmodelledFields } from '../../shared/provider-options.js';
import { ownValue } from '../../../core/own-key.js';

/** Top-level fields the IR models; the rest travels in providerOptions.gemini. */
const MODELED = new Set(['contents', 'systemInstruction', 'tools', 'toolConfig', 'generationConfig']);
const MODELED_GENERATION = new Set([
  'temperature', 'topP', 'topK', 'maxOutputTokens', 'stopSequences', 'candidateCount', 'presencePenalty', 'frequencyPenalty', 'seed',
  'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'thinkingConfig',
]);
/** Settings whose meaning would be lost on another vendor: a clear 400 instead. */
const UNTRANSLATABLE_GENERATION = new Set(['speechConfig', 'imageConfig', 'audioTimestamp']);

type GenerationConfig = NonNullable<GenerateContentRequest['generationConfig']>;

export function validateGeminiRequest(body: Record<string, unknown>): GenerateContentRequest {
  return parseOrThrow(generateContentRequestSchema, body);
}

export function decodeGeminiRequest(body: Record<string, unknown>, ctx: DecodeContext<GenerateContentRequest>): IRChatRequest {
  const req = ctx.validated ?? validateGeminiRequest(body);
  if (req.cachedContent !== undefined) {
    throw new GatewayError('unsupported', `cachedContent refers to a Gemini context cache and cannot be used with the model '${ctx.model}'.`, { param: 'cachedContent' });
  }
  const ir: IRChatRequest = { model: ctx.model, messages: convertFromGeminiContents(req.contents, ctx.target), stream: ctx.stream };
  if (ctx.stream) ir.streamUsage = true;
  const system = decodeSystem(req.systemInstruction);
  if (system.length) ir.system = system;

  const tools = decodeTools(req.tools ?? []);
  const choice = decodeToolChoice(req.toolConfig, tools);
  if (tools.length) ir.tools = choice.tools;
  if (choice.choice) ir.toolChoice = choice.choice;

  const extra = unmodelledFields(req, MODELED);
  if (req.generationConfig) {
    const genExtra = decodeGenerationConfig(req.generationConfig, ir, ctx.model);
    if (Object.keys(genExtra).length) extra.generationConfig = genExtra;
  }
  if (Object.keys(extra).length) ir.providerOptions = { gemini: extra };
  return ir;
}

function decodeSystem(si: GenerateContentRequest['systemInstruction']): IRTextPart[] {
  const out: IRTextPart[] = [];
  si?.parts.forEach((p, j) => {
    if (p.text === undefined) throw new GatewayError('unsupported', 'Only text parts can be translated in a system instruction.', { param: `systemInstruction.parts[${j}]` });
    if (p.text) out.push({ type: 'text', text: p.text });
  });
  return out;
}

function decodeTools(tools: NonNullable<GenerateContentRequest['tools']>): IRTool[] {
  const out: IRTool[] = [];
  tools.forEach((tool, i) => {
    for (const [key, value] of Object.entries(tool)) {
      if (value === undefined || value === null) continue;
      if (key !== 'functionDeclarations') {
        out.push({ type: 'provider', protocol: 'gemini', name: `${key} (tools[${i}])`, raw: { [key]: value } });
        continue;
      }
      for (const d of tool.functionDeclarations ?? []) {
        const parameters = toJsonSchemaObject(d.parametersJsonSchema ?? d.parameters ?? undefined);
        out.push({ type: 'function', name: d.name, ...(d.description ? { description: d.description } : {}), ...(parameters ? { parameters } : {}) });
      }
    }
  });
  return out;
}

function decodeToolChoice(tc: GenerateContentRequest['toolConfig'], tools: IRTool[]): { tools: IRTool[]; choice?: IRToolChoice } {
  const fcc = tc?.functionCallingConfig;
  if (!fcc?.mode || fcc.mode === 'MODE_UNSPECIFIED') return { tools };
  if (fcc.mode === 'NONE') return { tools, choice: { type: 'none' } };
  if (fcc.mode === 'AUTO' || fcc.mode === 'VALIDATED') return { tools, choice: { type: 'auto' } };
  const allowed = fcc.allowedFunctionNames ?? [];
  const declared = new Set(tools.filter((t) => t.type === 'function').map((t) => t.name));
  allowed.forEach((name, k) => {
    if (!declared.has(name)) {
      throw new GatewayError('invalid_request', `allowedFunctionNames names '${quoteInput(name)}', which is not a declared function.`, { param: `toolConfig.functionCallingConfig.allowedFunctionNames[${k}]` });
    }
  });
  if (allowed.length === 1) return { tools, choice: { type: 'tool', name: allowed[0] as string } };
  // ANY restricted to several functions: offer only those, and require a call.
  if (allowed.length > 1) return { tools: tools.filter((t) => t.type !== 'function' || allowed.includes(t.name)), choice: { type: 'required' } };
  return { tools, choice: { type: 'required' } };
}

const LEVELS = { minimal: 'minimal', low: 'low', medium: 'medium', high: 'high' } as const;

/** Fills the IR from generationConfig; returns the fields it does not model. */
function decodeGenerationConfig(g: GenerationConfig, ir: IRChatRequest, model: string): Record<string, unknown> {
  const extra: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(g)) {
    if (v === undefined) continue;
    if (UNTRANSLATABLE_GENERATION.has(k)) throw new GatewayError('unsupported', `generationConfig.${k} cannot be translated for the model '${model}'.`, { param: `generationConfig.${k}` });
    if (!MODELED_GENERATION.has(k)) extra[k] = v;
  }
  if (g.temperature !== undefined) ir.temperature = g.temperature;
  if (g.topP !== undefined) ir.topP = g.topP;
  if (g.topK !== undefined) ir.topK = g.topK;
  if (g.maxOutputTokens !== undefined) ir.maxTokens = g.maxOutputTokens;
  if (g.stopSequences?.length) ir.stop = g.stopSequences;
  if (g.candidateCount !== undefined) ir.n = g.candidateCount;
  if (g.presencePenalty !== undefined) ir.presencePenalty = g.presencePenalty;
  if (g.frequencyPenalty !== undefined) ir.frequencyPenalty = g.frequencyPenalty;
  if (g.seed !== undefined) ir.seed = g.seed;
  const other = g.responseModalities?.find((m) => m.toUpperCase() !== 'TEXT');
  if (other) throw new GatewayError('unsupported', `responseModalities ${other} cannot be produced by the model '${model}'.`, { param: 'generationConfig.responseModalities' });
  const format = decodeResponseFormat(g);
  if (format) ir.responseFormat = format;
  const t = g.thinkingConfig;
  if (t) {
    const reasoning: NonNullable<IRChatRequest['reasoning']> = {};
    if (t.includeThoughts !== undefined) reasoning.includeThoughts = t.includeThoughts;
    if (t.thinkingBudget === 0) reasoning.effort = 'none';
    else if (t.thinkingBudget !== undefined && t.thinkingBudget > 0) reasoning.budgetTokens = t.thinkingBudget;
    if (t.thinkingLevel) {
      const level = ownValue<(typeof LEVELS)[keyof typeof LEVELS]>(LEVELS, t.thinkingLevel.toLowerCase());
      if (!level) throw new GatewayError('invalid_request', `Unknown thinkingLevel '${quoteInput(t.thinkingLevel)}'; use MINIMAL, LOW, MEDIUM or HIGH.`, { param: 'generationConfig.thinkingConfig.thinkingLevel' });
      reasoning.effort = level;
    }
    if (Object.keys(reasoning).length) ir.reasoning = reasoning;
  }
  return extra;
}

function decodeResponseFormat(g: GenerationConfig): IRResponseFormat | undefined {
  const mime = g.responseMimeType?.toLowerCase();
  const schema = g.responseJsonSchema ?? g.responseSchema;
  if (mime === undefined || mime === 'text/plain') {
    if (schema !== undefined) throw new GatewayError('invalid_request', "A response schema requires responseMimeType 'application/json'.", { param: 'generationConfig.responseMimeType' });
    return mime ? { type: 'text' } : undefined;
  }
  if (mime !== 'application/json') {
    throw new GatewayError('unsupported', `responseMimeType '${quoteInput(g.responseMimeType)}' cannot be translated; use application/json or text/plain.`, { param: 'generationConfig.responseMimeType' });
  }
  const js = schema === undefined ? undefined : toJsonSchemaObject(schema);
  return js ? { type: 'json_schema', name: 'response', schema: js } : { type: 'json' };
}
