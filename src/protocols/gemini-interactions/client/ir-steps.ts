/**
 * IR -> Interactions steps: a translated answer's output steps (thought, model_output,
 * function_call), and a stored conversation as input steps for a Gemini upstream that does not know
 * it (stateless replay). Thinking of another vendor reaches the client as a thought step whose
 * signature is a gateway reasoning token (origin, text and the vendor's signature), so a stateless
 * client replaying it gets it back to that vendor; Gemini only ever gets its own signatures.
 */
import type { IRContentPart, IRFilePart, IRImagePart, IRMessage, IRReasoningPart, IRTextPart, ProtocolName } from '../../../ir/types.js';
import { encodeReasoningToken } from '../../shared/reasoning-token.js';
import { argumentsObject } from '../../shared/tool-arguments.js';
import type { Json } from '../gemini-interactions-api.js';
import { GEMINI_INTERACTIONS, reasoningOrigin } from './decode-steps.js';

/** A text, image or document part as an Interactions content. */
function contentOf(p: IRTextPart | IRImagePart | IRFilePart): Json {
  if (p.type === 'text') return { type: 'text', text: p.text };
  const type = p.type === 'image' ? 'image' : 'document';
  const s = p.source;
  if (s.kind === 'base64') return { type, data: s.data, mime_type: s.mediaType };
  if (s.kind === 'url') return { type, uri: s.url, ...(s.mediaType ? { mime_type: s.mediaType } : {}) };
  return { type, uri: s.fileId };
}

/** The signature a thought step shows for a reasoning part produced by `origin`. */
export function thoughtSignature(part: IRReasoningPart, origin: ProtocolName): string | undefined {
  if (origin === GEMINI_INTERACTIONS) return part.signature;
  return encodeReasoningToken(part, origin);
}

export function thoughtStep(text: string, signature: string | undefined): Json {
  return { type: 'thought', ...(signature ? { signature } : {}), ...(text ? { summary: [{ type: 'text', text }] } : {}) };
}

/** A translated answer's content as output steps (thought summaries left out when `hideSummaries`). */
export function outputSteps(content: IRContentPart[], origin: ProtocolName, hideSummaries = false): Json[] {
  const steps: Json[] = [];
  let output: Json[] | undefined;
  for (const p of content) {
    if (p.type === 'text' || p.type === 'image' || p.type === 'file') {
      if (p.type === 'text' && !p.text) continue;
      if (!output) {
        output = [];
        steps.push({ type: 'model_output', content: output });
      }
      output.push(contentOf(p));
      continue;
    }
    output = undefined;
    if (p.type === 'reasoning') {
      const signature = thoughtSignature(p, origin);
      const text = hideSummaries ? '' : p.text;
      if (text || signature) steps.push(thoughtStep(text, signature));
    } else if (p.type === 'tool-call') steps.push({ type: 'function_call', id: p.id, name: p.name, arguments: argumentsObject(p.arguments) });
  }
  return steps;
}

/** A stored conversation (IR) as input steps for Gemini: thinking of other vendors is left out. */
export function stepsFromIR(messages: IRMessage[]): Json[] {
  const steps: Json[] = [];
  for (const m of messages) {
    let contents: Json[] | undefined;
    const role = m.role === 'assistant' ? 'model_output' : 'user_input';
    for (const p of m.content) {
      if (p.type === 'text' || p.type === 'image' || p.type === 'file') {
        if (p.type === 'text' && !p.text) continue;
        if (!contents) {
          contents = [];
          steps.push({ type: role, content: contents });
        }
        contents.push(contentOf(p));
        continue;
      }
      contents = undefined;
      if (p.type === 'reasoning') {
        if (reasoningOrigin(p) === GEMINI_INTERACTIONS && p.signature) steps.push(thoughtStep(p.text, p.signature));
      } else if (p.type === 'tool-call') steps.push({ type: 'function_call', id: p.id, name: p.name, arguments: argumentsObject(p.arguments) });
      else if (p.type === 'tool-result') {
        steps.push({
          type: 'function_result',
          call_id: p.toolCallId,
          ...(p.toolName ? { name: p.toolName } : {}),
          result: p.content.map(contentOf),
          ...(p.isError ? { is_error: true } : {}),
        });
      }
    }
  }
  return steps;
}
