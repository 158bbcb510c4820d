/**
 * IR messages -> Gemini `contents`. Roles become user/model (tool results are user turns with
 * `functionResponse` parts that carry the called function's NAME); consecutive turns of one role
 * are merged, as Gemini expects all results of a call turn in the single next user turn. Thought
 * signatures are replayed from providerOptions or from the tool call id that carries them.
 */
import { GatewayError } from '../../../core/errors.js';
import { nestsTooDeep, tooDeepError } from '../../../wire/json-guard.js';
import type { IRContentPart, IRMessage, IRToolResultPart, IRWarning } from '../../../ir/types.js';
import { encodeMedia } from '../gemini-api.js';
import { argumentsObject, parseToolArguments } from '../../shared/tool-arguments.js';
import { signatureFromToolCallId, SKIP_SIGNATURE } from './tool-call-ids.js';
import { quoteInput } from '../../../core/quote-input.js';
import type { Json } from '../../shared/json.js';

export interface GeminiContentWire {
  role: 'user' | 'model';
  parts: Json[];
}

function geminiSignature(p: { providerOptions?: IRContentPart['providerOptions'] }): string | undefined {
  const sig = p.providerOptions?.gemini?.thoughtSignature;
  return typeof sig === 'string' && sig ? sig : undefined;
}

/** A tool result's `response` object: parsed JSON objects as they are, anything else as `{result}`. */
function responseObject(p: IRToolResultPart, param: string): Json {
  const text = p.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text).join('\n');
  let value: unknown = text;
  const trimmed = text.trim();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    // Parsed JSON lands in the upstream body: bounded like a request body.
    if (nestsTooDeep(trimmed)) throw tooDeepError('The tool result', param);
    try {
      value = JSON.parse(trimmed);
    } catch {
      value = text;
    }
  }
  if (p.isError) return { error: value };
  if (value && typeof value === 'object' && !Array.isArray(value)) return value as Json;
  return { result: value };
}

/** Gemini needs an object: a non-object value is wrapped, text that is not JSON becomes `{}` (either said in a warning). */
function parseArgs(args: string, param: string, id: string, warnings: IRWarning[]): Json {
  const kind = parseToolArguments(args).kind;
  if (kind === 'too-deep') throw tooDeepError('The tool call arguments', param);
  if (kind === 'invalid') warnings.push({ setting: 'messages', action: 'tool call arguments that are not JSON sent as {}', message: `The arguments of tool call ${id} (${param}) are not JSON; sent as {}.` });
  if (kind === 'value') warnings.push({ setting: 'messages', action: 'tool call arguments that are not a JSON object sent as {"value": ...}', message: `The arguments of tool call ${id} (${param}) are not a JSON object; sent wrapped as {"value": ...}.` });
  return argumentsObject(args);
}

function modelParts(m: IRMessage, i: number, warnings: IRWarning[]): Json[] {
  const parts: Json[] = [];
  let signed = false;
  m.content.forEach((p, j) => {
    const param = `messages[${i}].content[${j}]`;
    switch (p.type) {
      case 'text': {
        if (!p.text) return;
        const sig = geminiSignature(p);
        parts.push(sig ? { text: p.text, thoughtSignature: sig } : { text: p.text });
        return;
      }
      case 'reasoning': {
        // Only Gemini's own signed thoughts are worth replaying; other vendors' thinking is not.
        const sig = geminiSignature(p);
        if (sig) parts.push({ text: p.text, thought: true, thoughtSignature: sig });
        return;
      }
      case 'tool-call': {
        const sig = geminiSignature(p) ?? signatureFromToolCallId(p.id);
        const part: Json = { functionCall: { name: p.name, args: parseArgs(p.arguments, param, p.id, warnings) } };
        if (sig) part.thoughtSignature = sig;
        else if (!signed) part.thoughtSignature = SKIP_SIGNATURE;
        signed = true;
        parts.push(part);
        return;
      }
      case 'image':
      case 'file':
        parts.push(encodeMedia(p, param));
        return;
      case 'tool-result':
        warnings.push({ setting: 'messages', action: 'tool result in an assistant message sent as a user turn', message: `A tool result inside an assistant message (${param}) was sent as a user turn.` });
        return;
    }
  });
  return parts;
}

export function convertToGeminiContents(messages: IRMessage[], warnings: IRWarning[]): GeminiContentWire[] {
  const names = new Map<string, string>();
  for (const m of messages) for (const p of m.content) if (p.type === 'tool-call') names.set(p.id, p.name);

  const out: GeminiContentWire[] = [];
  const push = (role: GeminiContentWire['role'], parts: Json[]): void => {
    if (parts.length === 0) return;
    const last = out[out.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  };

  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      push('model', modelParts(m, i, warnings));
      // Tool results misplaced in an assistant message still answer the calls.
      const stray = m.content.filter((p): p is IRToolResultPart => p.type === 'tool-result');
      if (stray.length) push('user', stray.map((p) => functionResponsePart(p, names, i)));
      return;
    }
    const results: Json[] = [];
    const rest: Json[] = [];
    m.content.forEach((p, j) => {
      const param = `messages[${i}].content[${j}]`;
      if (p.type === 'tool-result') {
        results.push(functionResponsePart(p, names, i));
        for (const c of p.content) if (c.type !== 'text') rest.push(encodeMedia(c, param));
      } else if (p.type === 'text') {
        if (p.text) rest.push({ text: p.text });
      } else if (p.type === 'image' || p.type === 'file') rest.push(encodeMedia(p, param));
      else throw new GatewayError('unsupported', `A ${m.role} message cannot carry ${p.type} content for a Gemini model.`, { param });
    });
    push('user', [...results, ...rest]);
  });
  return out;
}

function functionResponsePart(p: IRToolResultPart, names: Map<string, string>, i: number): Json {
  const name = p.toolName ?? names.get(p.toolCallId);
  if (!name) {
    throw new GatewayError('invalid_request', `The tool result for '${quoteInput(p.toolCallId)}' does not answer any earlier tool call, so its function name is unknown.`, { param: `messages[${i}]` });
  }
  return { functionResponse: { name, response: responseObject(p, `messages[${i}]`) } };
}
