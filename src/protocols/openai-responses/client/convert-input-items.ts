/**
 * Responses input items -> IR messages. Output items of an earlier response are valid input items
 * too, so the same conversion turns a stored response's output into history. Consecutive items of
 * one role share one IR message (a reasoning item, text and the function calls of one assistant
 * turn; the outputs answering them). `system`/`developer` messages join the system prompt.
 */
import { GatewayError } from '../../../core/errors.js';
import { quoteInput } from '../../../core/quote-input.js';
import { guessMediaType, sourceFromUrl } from '../../../ir/media.js';
import type { IRContentPart, IRFilePart, IRImagePart, IRMessage, IRReasoningPart, IRTextPart, ProtocolName } from '../../../ir/types.js';
import { compiledOnFirstUse, parseOrThrow } from '../../shared/zod-error.js';
import {
  customToolCallItemSchema,
  customToolCallOutputItemSchema,
  functionCallItemSchema,
  functionCallOutputItemSchema,
  messageItemSchema,
  reasoningItemSchema,
  toolOutputPartSchema,
  toolSearchCallItemSchema,
  toolSearchOutputItemSchema,
  type ContentPart,
} from '../openai-responses-api.js';
import { customArguments, TOOL_SEARCH, type ToolNames } from './decode-tools.js';
import { decodeReasoningToken } from '../../shared/reasoning-token.js';

// The items of nearly every turn, checked one by one.
const compiledMessageItem = compiledOnFirstUse(messageItemSchema);
const compiledFunctionCallItem = compiledOnFirstUse(functionCallItemSchema);
const compiledFunctionCallOutputItem = compiledOnFirstUse(functionCallOutputItemSchema);

export interface ItemDecodeContext {
  /** Public model id, for error messages. */
  model: string;
  names: ToolNames;
  /** Tool call id -> upstream tool name of every call seen so far (results need the name for Gemini). */
  callNames: Map<string, string>;
  /**
   * Set when decoding a request for a translated upstream: every call output must answer a call seen
   * before it (400 naming the output's call_id otherwise, as OpenAI refuses it), and the calls still
   * unanswered are tracked here (call id -> the param of the call, or undefined for the history's).
   */
  pending?: Map<string, string | undefined>;
}

export interface DecodedItems {
  system: IRTextPart[];
  messages: IRMessage[];
}

type MediaPart = IRImagePart | IRFilePart;

function mediaPart(part: ContentPart, param: string, model: string): MediaPart {
  if (part.type === 'input_image') {
    const p = part as { image_url?: string | null; file_id?: string | null; detail?: string | null };
    if (!p.image_url) {
      throw new GatewayError('unsupported', `Images by OpenAI file id cannot be sent to the model '${model}'; send image_url (a URL or data URL).`, { param });
    }
    const d = p.detail;
    const detail: Pick<IRImagePart, 'detail'> = d === 'low' || d === 'high' || d === 'auto' ? { detail: d } : {};
    return { type: 'image', source: sourceFromUrl(p.image_url), ...detail };
  }
  const f = part as { file_data?: string | null; file_id?: string | null; file_url?: string | null; filename?: string | null };
  const filename = f.filename ? { filename: f.filename } : {};
  if (f.file_data) {
    const source = f.file_data.startsWith('data:')
      ? sourceFromUrl(f.file_data)
      : { kind: 'base64' as const, mediaType: guessMediaType(f.filename ?? undefined, 'application/pdf'), data: f.file_data };
    return { type: 'file', source, ...filename };
  }
  if (f.file_url) return { type: 'file', source: { kind: 'url', url: f.file_url, mediaType: guessMediaType(f.filename ?? f.file_url, 'application/pdf') }, ...filename };
  if (f.file_id) return { type: 'file', source: { kind: 'file-id', fileId: f.file_id }, ...filename };
  throw new GatewayError('invalid_request', 'An input_file part needs file_data, file_url or file_id.', { param });
}

function contentParts(content: string | ContentPart[], param: string, model: string): Array<IRTextPart | MediaPart> {
  if (typeof content === 'string') return content ? [{ type: 'text', text: content }] : [];
  return content.map((part, j): IRTextPart | MediaPart => {
    const at = `${param}[${j}]`;
    switch (part.type) {
      case 'input_text':
      case 'output_text':
        return { type: 'text', text: (part as { text: string }).text };
      case 'refusal':
        return { type: 'text', text: (part as { refusal: string }).refusal };
      case 'input_image':
      case 'input_file':
        return mediaPart(part, at, model);
      default:
        throw new GatewayError('unsupported', `Audio input cannot be sent to the model '${model}'.`, { param: at });
    }
  });
}

function toolOutput(output: unknown, param: string, model: string): Array<IRTextPart | MediaPart> {
  if (typeof output === 'string') return [{ type: 'text', text: output }];
  const parts = (output as unknown[]).map((p, j) => parseOrThrow(toolOutputPartSchema, p, `${param}[${j}]`));
  return contentParts(parts as ContentPart[], param, model);
}

function reasoningPart(raw: unknown, param: string): IRReasoningPart | undefined {
  const item = parseOrThrow(reasoningItemSchema, raw, param);
  const token = decodeReasoningToken(item.encrypted_content);
  if (token) {
    const gemini = token.origin === 'gemini' && token.signature ? { gemini: { thoughtSignature: token.signature } } : {};
    return {
      type: 'reasoning',
      text: token.text,
      ...(token.signature ? { signature: token.signature } : {}),
      ...(token.redactedData !== undefined ? { redactedData: token.redactedData } : {}),
      providerOptions: { 'openai-responses': { origin: token.origin }, ...gemini },
    };
  }
  const texts = item.summary.map((s) => s.text);
  if (!texts.length && item.content) texts.push(...item.content.map((c) => c.text));
  const text = texts.join('\n\n');
  if (!text && !item.encrypted_content) return undefined;
  // The names the upstream encoder reads back (upstream/reasoning-signature.ts).
  const own: Record<string, unknown> = { origin: 'openai-responses' };
  if (item.encrypted_content) own.encryptedContent = item.encrypted_content;
  if (item.id) own.itemId = item.id;
  return { type: 'reasoning', text, providerOptions: { 'openai-responses': own } };
}

/**
 * Items with nothing to translate: records of what OpenAI's hosted tools did (the text that follows
 * carries the result), and `additional_tools` (its tools are declared with the request's tools).
 */
const RECORD_ONLY = new Set(['web_search_call', 'additional_tools']);

export function decodeInputItems(input: string | ReadonlyArray<Record<string, unknown>>, ctx: ItemDecodeContext, prefix = 'input'): DecodedItems {
  const out: DecodedItems = { system: [], messages: [] };
  if (typeof input === 'string') {
    if (input) out.messages.push({ role: 'user', content: [{ type: 'text', text: input }] });
    return out;
  }
  const push = (role: IRMessage['role'], parts: IRContentPart[]): void => {
    if (!parts.length) return;
    const last = out.messages[out.messages.length - 1];
    if (last && last.role === role) last.content.push(...parts);
    else out.messages.push({ role, content: parts });
  };
  input.forEach((raw, i) => {
    const param = `${prefix}[${i}]`;
    const type = raw.type ?? 'message';
    switch (type) {
      case 'message': {
        const msg = parseOrThrow(compiledMessageItem(), raw, param);
        const parts = contentParts(msg.content as string | ContentPart[], `${param}.content`, ctx.model);
        if (msg.role === 'system' || msg.role === 'developer') {
          for (const [j, p] of parts.entries()) {
            if (p.type !== 'text') throw new GatewayError('invalid_request', `A ${msg.role} message can only hold text.`, { param: `${param}.content[${j}]` });
            out.system.push(p);
          }
        } else push(msg.role, parts);
        return;
      }
      case 'function_call': {
        const call = parseOrThrow(compiledFunctionCallItem(), raw, param);
        const name = ctx.names.upstreamName(call.name, call.namespace);
        ctx.callNames.set(call.call_id, name);
        ctx.pending?.set(call.call_id, param);
        push('assistant', [{ type: 'tool-call', id: call.call_id, name, arguments: call.arguments || '{}' }]);
        return;
      }
      case 'custom_tool_call': {
        const call = parseOrThrow(customToolCallItemSchema, raw, param);
        const name = ctx.names.upstreamName(call.name, call.namespace);
        ctx.callNames.set(call.call_id, name);
        ctx.pending?.set(call.call_id, param);
        push('assistant', [{ type: 'tool-call', id: call.call_id, name, arguments: customArguments(call.input) }]);
        return;
      }
      case 'tool_search_call': {
        const call = parseOrThrow(toolSearchCallItemSchema, raw, param);
        const name = ctx.names.upstreamName(TOOL_SEARCH);
        ctx.callNames.set(call.call_id, name);
        push('assistant', [{ type: 'tool-call', id: call.call_id, name, arguments: JSON.stringify(call.arguments ?? {}) }]);
        return;
      }
      case 'tool_search_output': {
        // The tools found are declared with the request's tools; the result tells the model which.
        const item = parseOrThrow(toolSearchOutputItemSchema, raw, param);
        const found = item.tools.flatMap((t) => (t.type === 'namespace' && Array.isArray(t.tools) ? (t.tools as Array<{ name?: unknown }>).map((x) => x.name) : [t.name]));
        const names = found.filter((n): n is string => typeof n === 'string');
        const text = names.length ? `Tools found and now available: ${names.join(', ')}.` : 'No tools found.';
        push('tool', [{ type: 'tool-result', toolCallId: item.call_id, toolName: ctx.names.upstreamName(TOOL_SEARCH), content: [{ type: 'text', text }] }]);
        return;
      }
      case 'function_call_output':
      case 'custom_tool_call_output': {
        const schema = type === 'function_call_output' ? compiledFunctionCallOutputItem() : customToolCallOutputItemSchema;
        const item = parseOrThrow(schema, raw, param);
        const toolName = ctx.callNames.get(item.call_id);
        if (ctx.pending && toolName === undefined) {
          throw new GatewayError('invalid_request', `No tool call found for the ${type} with call_id '${quoteInput(item.call_id, 80)}': it must answer a function_call earlier in the input or in the previous response.`, { param: `${param}.call_id` });
        }
        ctx.pending?.delete(item.call_id);
        push('tool', [{ type: 'tool-result', toolCallId: item.call_id, ...(toolName ? { toolName } : {}), content: toolOutput(item.output, `${param}.output`, ctx.model) }]);
        return;
      }
      case 'reasoning': {
        const part = reasoningPart(raw, param);
        if (part) push('assistant', [part]);
        return;
      }
      default:
        if (typeof type === 'string' && RECORD_ONLY.has(type)) return;
        throw new GatewayError('unsupported', `Input items of type '${String(type)}' cannot be sent to the model '${ctx.model}'.`, { param: `${param}.type` });
    }
  });
  return out;
}

/** The protocol a reasoning part came from (set by this codec), if known. */
function reasoningOrigin(part: IRReasoningPart): ProtocolName | undefined {
  const origin = part.providerOptions?.['openai-responses']?.origin;
  return typeof origin === 'string' ? (origin as ProtocolName) : undefined;
}

/**
 * Reasoning signatures only mean something to the vendor that made them: another vendor rejects
 * them. Reasoning of another origin keeps its text but loses its signature, so each encoder applies
 * its own rule for unsigned thinking (Anthropic and Gemini leave it out).
 */
export function keepOwnSignatures(messages: IRMessage[], target: ProtocolName): IRMessage[] {
  return messages.map((m) => {
    if (m.role !== 'assistant' || !m.content.some((p) => p.type === 'reasoning')) return m;
    return {
      ...m,
      content: m.content.map((p) => {
        if (p.type !== 'reasoning' || reasoningOrigin(p) === target) return p;
        const { signature: _s, redactedData: _r, providerOptions, ...rest } = p;
        const own = providerOptions?.['openai-responses'];
        return { ...rest, ...(own ? { providerOptions: { 'openai-responses': own } } : {}) };
      }),
    };
  });
}
