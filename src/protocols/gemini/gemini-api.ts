/**
 * zod schemas of the Gemini generateContent wire format (v1beta). Requests are proto3-JSON and may
 * use lowerCamelCase or snake_case field names: every structured object level is normalised to
 * camelCase before it is checked. Free-form JSON (function args/responses, schemas) is left as is.
 * Objects are loose: fields the gateway does not model survive for pass-through and providerOptions.
 */
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import { guessMediaType } from '../../ir/media.js';
import type { IRFilePart, IRImagePart } from '../../ir/types.js';
import { quoteInput } from '../../core/quote-input.js';

const snakeToCamel = (k: string): string => k.replace(/_([a-z0-9])/g, (_m, c: string) => c.toUpperCase());

/** Renames the snake_case keys of one object level to camelCase (other values untouched). */
function camelKeys(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const key = k.includes('_') ? snakeToCamel(k) : k;
    if (!Object.hasOwn(out, key) || k === key) out[key] = v;
  }
  return out;
}

/** A loose object whose keys are camel-cased first. */
function obj<S extends z.ZodRawShape>(shape: S) {
  return z.preprocess(camelKeys, z.looseObject(shape));
}

const jsonObject = z.record(z.string(), z.unknown());
const base64 = z.string().regex(/^[A-Za-z0-9+/_-]*={0,2}$/, 'must be base64');

const inlineDataSchema = obj({ mimeType: z.string().min(1, 'is required'), data: base64.min(1, 'is required') });
const fileDataSchema = obj({ mimeType: z.string().optional(), fileUri: z.string().min(1, 'is required') });
const functionCallSchema = obj({ id: z.string().optional(), name: z.string().min(1, 'is required'), args: jsonObject.nullish() });

const DATA_FIELDS = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'] as const;

const partSchema = obj({
  text: z.string().optional(),
  inlineData: inlineDataSchema.optional(),
  fileData: fileDataSchema.optional(),
  functionCall: functionCallSchema.optional(),
  functionResponse: obj({
    id: z.string().optional(),
    name: z.string().min(1, 'is required'),
    response: jsonObject.nullish(),
    parts: z.array(obj({ inlineData: inlineDataSchema.optional(), fileData: fileDataSchema.optional() })).optional(),
  }).optional(),
  executableCode: obj({ language: z.string().optional(), code: z.string() }).optional(),
  codeExecutionResult: obj({ outcome: z.string().optional(), output: z.string().optional() }).optional(),
  thought: z.boolean().optional(),
  thoughtSignature: base64.optional(),
}).superRefine((p, ctx) => {
  const set = DATA_FIELDS.filter((k) => p[k] !== undefined);
  if (set.length === 0) ctx.addIssue({ code: 'custom', message: `a part needs one of ${DATA_FIELDS.join(', ')}` });
  else if (set.length > 1) ctx.addIssue({ code: 'custom', path: [set[1] as string], message: `a part holds exactly one data field (found ${set.join(' and ')})` });
});

export type GeminiPart = z.output<typeof partSchema>;

const contentSchema = obj({
  // The legacy `function` role (function results) is still sent by old clients.
  role: z.enum(['user', 'model', 'function'], { message: "must be 'user' or 'model' (system prompts go in 'systemInstruction')" }).optional(),
  parts: z.array(partSchema).min(1, 'must not be empty'),
});

export type GeminiContent = z.output<typeof contentSchema>;

export const systemInstructionSchema = obj({ role: z.string().optional(), parts: z.array(partSchema) });

const functionDeclarationSchema = obj({
  name: z.string().regex(/^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/, 'must start with a letter or _ and use letters, digits, _ . : - (max 128)'),
  description: z.string().optional(),
  parameters: jsonObject.nullish(),
  parametersJsonSchema: z.unknown().optional(),
  response: jsonObject.nullish(),
  responseJsonSchema: z.unknown().optional(),
});

export const toolSchema = obj({ functionDeclarations: z.array(functionDeclarationSchema).optional() });

const toolConfigSchema = obj({
  functionCallingConfig: obj({
    mode: z.enum(['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED']).optional(),
    allowedFunctionNames: z.array(z.string()).optional(),
  }).optional(),
});

const thinkingConfigSchema = obj({
  includeThoughts: z.boolean().optional(),
  thinkingBudget: z.number().int().min(-1).optional(),
  thinkingLevel: z.string().optional(),
});

const generationConfigSchema = obj({
  temperature: z.number().min(0).max(2).optional(),
  topP: z.number().min(0).max(1).optional(),
  topK: z.number().min(0).optional(),
  maxOutputTokens: z.number().int().min(1).optional(),
  stopSequences: z.array(z.string()).max(5, 'at most 5 stop sequences').optional(),
  candidateCount: z.number().int().min(1).optional(),
  presencePenalty: z.number().optional(),
  frequencyPenalty: z.number().optional(),
  seed: z.number().int().optional(),
  responseMimeType: z.string().optional(),
  responseSchema: jsonObject.optional(),
  responseJsonSchema: z.unknown().optional(),
  responseModalities: z.array(z.string()).optional(),
  thinkingConfig: thinkingConfigSchema.optional(),
});

/** POST /v1beta/models/{model}:generateContent and :streamGenerateContent. */
export const generateContentRequestSchema = obj({
  contents: z.array(contentSchema).min(1, 'must contain at least one content'),
  systemInstruction: systemInstructionSchema.optional(),
  tools: z.array(toolSchema).optional(),
  toolConfig: toolConfigSchema.optional(),
  safetySettings: z.array(jsonObject).optional(),
  generationConfig: generationConfigSchema.optional(),
  cachedContent: z.string().optional(),
});

export type GenerateContentRequest = z.output<typeof generateContentRequestSchema>;

/** POST :countTokens — `contents` or a whole `generateContentRequest`. */
export const countTokensRequestSchema = obj({
  contents: z.array(contentSchema).optional(),
  generateContentRequest: z
    .preprocess(camelKeys, z.looseObject({ model: z.string().optional(), contents: z.array(contentSchema).min(1, 'must contain at least one content') }))
    .optional(),
});

// ---- responses (what an upstream sends back; camelCase only, validated loosely) ----

const responsePartSchema = z.looseObject({
  text: z.string().optional(),
  thought: z.boolean().optional(),
  thoughtSignature: z.string().optional(),
  inlineData: z.looseObject({ mimeType: z.string().optional(), data: z.string() }).optional(),
  functionCall: z.looseObject({ id: z.string().optional(), name: z.string(), args: jsonObject.nullish() }).optional(),
  executableCode: z.looseObject({ language: z.string().optional(), code: z.string() }).optional(),
  codeExecutionResult: z.looseObject({ outcome: z.string().optional(), output: z.string().optional() }).optional(),
});

export type GeminiResponsePart = z.output<typeof responsePartSchema>;

const usageMetadataSchema = z.looseObject({
  promptTokenCount: z.number().optional(),
  candidatesTokenCount: z.number().optional(),
  totalTokenCount: z.number().optional(),
  thoughtsTokenCount: z.number().optional(),
  cachedContentTokenCount: z.number().optional(),
  toolUsePromptTokenCount: z.number().optional(),
});

export type UsageMetadataWire = z.output<typeof usageMetadataSchema>;

export const generateContentResponseSchema = z.looseObject({
  candidates: z
    .array(
      z.looseObject({
        content: z.looseObject({ role: z.string().optional(), parts: z.array(responsePartSchema).optional() }).optional(),
        finishReason: z.string().optional(),
        index: z.number().optional(),
      }),
    )
    .optional(),
  promptFeedback: z.looseObject({ blockReason: z.string().optional() }).optional(),
  usageMetadata: usageMetadataSchema.optional(),
  modelVersion: z.string().optional(),
  responseId: z.string().optional(),
});

export type GenerateContentResponseWire = z.output<typeof generateContentResponseSchema>;

/** An IR image or file -> a Gemini `inlineData`/`fileData` part (both sides write media parts). */
export function encodeMedia(p: IRImagePart | IRFilePart, param: string): Record<string, unknown> {
  const s = p.source;
  if (s.kind === 'base64') return { inlineData: { mimeType: s.mediaType, data: s.data } };
  if (s.kind === 'url') {
    const fallback = p.type === 'image' ? 'image/jpeg' : 'application/pdf';
    return { fileData: { mimeType: s.mediaType ?? guessMediaType(s.url, fallback), fileUri: s.url } };
  }
  throw new GatewayError('unsupported', `File ids (${quoteInput(s.fileId)}) of another vendor cannot be sent to a Gemini model; send the document inline.`, { param });
}
