/**
 * Interactions input -> IR messages. `input` is a string, one content, a content list (one user
 * turn) or a list of steps; output steps of an earlier interaction are valid input steps too, so
 * the same conversion turns a stored interaction's output into history. Consecutive steps of one
 * role share one IR message. A `thought` step's signature is either Gemini's own or a gateway
 * reasoning token (`mg1.`) carrying another vendor's signed thinking; the origin travels in
 * providerOptions so only the vendor that signed it gets it back.
 */
import { GatewayError } from '../../../core/errors.js';
import type { IRContentPart, IRFilePart, IRImagePart, IRMessage, IRReasoningPart, IRTextPart, ProtocolName } from '../../../ir/types.js';
import { decodeReasoningToken } from '../../shared/reasoning-token.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import {
  CONTENT_TYPES,
  contentSchema,
  functionCallStepSchema,
  functionResultStepSchema,
  isServerToolStep,
  modelOutputStepSchema,
  thoughtStepSchema,
  userInputStepSchema,
  type Content,
  type CreateInteractionRequest,
  type Json,
} from '../gemini-interactions-api.js';

export const GEMINI_INTERACTIONS: ProtocolName = 'gemini-interactions';

export interface StepDecodeContext {
  /** Public model id, for error messages. */
  model: string;
  /** Function call id -> name of every call seen so far (results are paired with them). */
  callNames: Map<string, string>;
  /** Refuse a function_result whose call_id no earlier function_call has (translated turns). */
  pairResults?: boolean;
}

function isContentType(type: unknown): boolean {
  return typeof type === 'string' && (CONTENT_TYPES as readonly string[]).includes(type);
}

/** The input as steps: how GET shows it and how a later stateless Gemini turn replays it. 400 for a list mixing contents and steps. */
export function inputAsSteps(input: CreateInteractionRequest['input']): Json[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return input ? [{ type: 'user_input', content: [{ type: 'text', text: input }] }] : [];
  if (!Array.isArray(input)) return isContentType(input.type) ? [{ type: 'user_input', content: [input] }] : [input];
  if (input.length === 0) return [];
  const contents = input.map((x) => isContentType(x.type));
  const mixed = contents.findIndex((c) => c !== contents[0]);
  if (mixed >= 0) {
    throw new GatewayError('invalid_request', 'input must be a list of contents or a list of steps, not both.', { param: `input[${mixed}].type` });
  }
  return contents[0] ? [{ type: 'user_input', content: input }] : input;
}

/** The reasoning part a thought step stands for; undefined when it holds nothing. */
function reasoningOfThought(step: Json, param: string): IRReasoningPart | undefined {
  const t = parseOrThrow(thoughtStepSchema, step, param);
  const text = (t.summary ?? []).flatMap((s) => (s.type === 'text' ? [s.text] : [])).join('\n\n');
  const token = decodeReasoningToken(t.signature);
  if (token) {
    return {
      type: 'reasoning',
      text: token.text,
      ...(token.signature ? { signature: token.signature } : {}),
      ...(token.redactedData !== undefined ? { redactedData: token.redactedData } : {}),
      providerOptions: { 'gemini-interactions': { origin: token.origin } },
    };
  }
  if (!t.signature && !text) return undefined;
  return { type: 'reasoning', text, ...(t.signature ? { signature: t.signature } : {}), providerOptions: { 'gemini-interactions': { origin: GEMINI_INTERACTIONS } } };
}

function mediaPart(c: Content, param: string, model: string): IRImagePart | IRFilePart {
  if (c.type === 'image' || c.type === 'document') {
    const media = c as { data?: string; uri?: string; mime_type?: string };
    const image = c.type === 'image';
    if (media.data !== undefined) {
      if (image && !media.mime_type) throw new GatewayError('invalid_request', 'An image with inline data needs its mime_type.', { param: `${param}.mime_type` });
      const source = { kind: 'base64' as const, mediaType: media.mime_type ?? 'application/pdf', data: media.data };
      return image ? { type: 'image', source } : { type: 'file', source };
    }
    const source = { kind: 'url' as const, url: media.uri as string, ...(media.mime_type ? { mediaType: media.mime_type } : {}) };
    return image ? { type: 'image', source } : { type: 'file', source };
  }
  throw new GatewayError('unsupported', `${c.type === 'audio' ? 'Audio' : 'Video'} content cannot be sent to the model '${model}'.`, { param: `${param}.type` });
}

/** Contents -> IR parts (text, images, documents). */
function contentParts(raw: unknown[], param: string, model: string): Array<IRTextPart | IRImagePart | IRFilePart> {
  return raw.flatMap((item, j): Array<IRTextPart | IRImagePart | IRFilePart> => {
    const at = `${param}[${j}]`;
    const c = parseOrThrow(contentSchema, item, at);
    if (c.type === 'text') return c.text ? [{ type: 'text', text: c.text }] : [];
    return [mediaPart(c, at, model)];
  });
}

function resultParts(result: unknown, param: string, model: string): Array<IRTextPart | IRImagePart | IRFilePart> {
  if (typeof result === 'string') return [{ type: 'text', text: result }];
  if (Array.isArray(result)) return contentParts(result, param, model);
  return [{ type: 'text', text: JSON.stringify(result) }];
}

/** Steps -> IR messages (and the calls they make recorded in `ctx.callNames`). */
export function decodeSteps(steps: readonly Json[], ctx: StepDecodeContext, prefix = 'input'): IRMessage[] {
  const out: IRMessage[] = [];
  const push = (role: IRMessage['role'], parts: IRContentPart[]): void => {
    if (!parts.length) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.content.push(...parts);
    else out.push({ role, content: parts });
  };
  steps.forEach((raw, i) => {
    const param = `${prefix}[${i}]`;
    const type = typeof raw.type === 'string' ? raw.type : '';
    switch (type) {
      case 'user_input': {
        const step = parseOrThrow(userInputStepSchema, raw, param);
        push('user', contentParts(step.content ?? [], `${param}.content`, ctx.model));
        return;
      }
      case 'model_output': {
        const step = parseOrThrow(modelOutputStepSchema, raw, param);
        push('assistant', contentParts(step.content ?? [], `${param}.content`, ctx.model));
        return;
      }
      case 'thought': {
        const part = reasoningOfThought(raw, param);
        if (part) push('assistant', [part]);
        return;
      }
      case 'function_call': {
        const call = parseOrThrow(functionCallStepSchema, raw, param);
        ctx.callNames.set(call.id, call.name);
        push('assistant', [{ type: 'tool-call', id: call.id, name: call.name, arguments: JSON.stringify(call.arguments) }]);
        return;
      }
      case 'function_result': {
        const res = parseOrThrow(functionResultStepSchema, raw, param);
        const known = ctx.callNames.get(res.call_id);
        if (known === undefined && ctx.pairResults) {
          throw new GatewayError('invalid_request', `No function_call with id '${res.call_id}' precedes this function_result.`, { param: `${param}.call_id` });
        }
        const toolName = res.name ?? known;
        push('tool', [
          {
            type: 'tool-result',
            toolCallId: res.call_id,
            ...(toolName ? { toolName } : {}),
            content: resultParts(res.result, `${param}.result`, ctx.model),
            ...(res.is_error ? { isError: true } : {}),
          },
        ]);
        return;
      }
      default:
        if (isContentType(type)) throw new GatewayError('invalid_request', 'input must be a list of contents or a list of steps, not both.', { param: `${param}.type` });
        if (isServerToolStep(type)) {
          throw new GatewayError('unsupported', `Steps of Gemini's built-in tools ('${type}') can only be sent to Gemini models, not to the model '${ctx.model}'.`, { param: `${param}.type` });
        }
        throw new GatewayError('invalid_request', `Unknown step type '${type}'.`, { param: `${param}.type` });
    }
  });
  return out;
}

/** The protocol a reasoning part came from (set by this codec), if known. */
export function reasoningOrigin(part: IRReasoningPart): ProtocolName | undefined {
  const origin = part.providerOptions?.['gemini-interactions']?.origin;
  return typeof origin === 'string' ? (origin as ProtocolName) : undefined;
}

/**
 * Reasoning signatures only mean something to the vendor that made them. Reasoning of another
 * origin keeps its text but loses its signature, so each encoder applies its own rule for unsigned
 * thinking (Anthropic leaves it out, OpenAI never replays it).
 */
export function keepOwnSignatures(messages: IRMessage[], target: ProtocolName): IRMessage[] {
  return messages.map((m) => {
    if (m.role !== 'assistant' || !m.content.some((p) => p.type === 'reasoning')) return m;
    return {
      ...m,
      content: m.content.map((p) => {
        if (p.type !== 'reasoning' || reasoningOrigin(p) === target) return p;
        const { signature: _s, redactedData: _r, ...rest } = p;
        return rest;
      }),
    };
  });
}
