/**
 * IR messages -> Anthropic `messages` (upstream side): only user/assistant roles, tool results as
 * `tool_result` blocks at the front of the next user message, consecutive same-role messages
 * merged, empty text dropped (the API rejects empty text blocks), and reasoning replayed only when
 * it carries an Anthropic signature (unsigned thinking from another vendor is rejected upstream).
 */
import { GatewayError } from '../../../core/errors.js';
import { toStandardBase64 } from '../../../ir/media.js';
import { nestsTooDeep, tooDeepError } from '../../../wire/json-guard.js';
import type { IRContentPart, IRFilePart, IRImagePart, IRMessage, IRTextPart, IRWarning, ProviderOptions } from '../../../ir/types.js';
import { toolInput } from '../../shared/tool-arguments.js';
import { quoteInput } from '../../../core/quote-input.js';

type Block = Record<string, unknown>;
interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: Block[];
}

const IMAGE_TYPES = new Set(['image/jpeg', 'image/png', 'image/gif', 'image/webp']);

/** Block fields an Anthropic client sent that the IR does not model (cache_control, citations, ...). */
export function anthropicExtras(options: ProviderOptions | undefined): Record<string, unknown> {
  return options?.['anthropic-messages'] ?? {};
}

export function encodeTextBlock(p: IRTextPart): Block {
  return { type: 'text', text: p.text, ...anthropicExtras(p.providerOptions) };
}

function encodeImage(p: IRImagePart, param: string): Block {
  const s = p.source;
  if (s.kind === 'url') return { type: 'image', source: { type: 'url', url: s.url }, ...anthropicExtras(p.providerOptions) };
  if (!IMAGE_TYPES.has(s.mediaType)) {
    throw new GatewayError('unsupported', `Anthropic models accept images of type jpeg, png, gif or webp, not ${quoteInput(s.mediaType)}.`, { param });
  }
  // Anthropic decodes only standard, padded base64 (a Gemini client may send the URL-safe alphabet).
  return { type: 'image', source: { type: 'base64', media_type: s.mediaType, data: toStandardBase64(s.data) }, ...anthropicExtras(p.providerOptions) };
}

function decodeBase64Text(data: string, param: string): string {
  let bin: string;
  try {
    bin = atob(toStandardBase64(data));
  } catch {
    throw new GatewayError('invalid_request', 'The document data is not valid base64.', { param });
  }
  const bytes = Uint8Array.from(bin, (c) => c.charCodeAt(0));
  return new TextDecoder().decode(bytes);
}

function encodeDocument(p: IRFilePart, param: string): Block {
  const s = p.source;
  const extras = { ...(p.filename ? { title: p.filename } : {}), ...anthropicExtras(p.providerOptions) };
  if (s.kind === 'file-id') return { type: 'document', source: { type: 'file', file_id: s.fileId }, ...extras };
  if (s.kind === 'url') {
    if (s.mediaType && s.mediaType !== 'application/pdf') {
      throw new GatewayError('unsupported', `Anthropic models accept documents by URL only as PDF, not ${quoteInput(s.mediaType)}.`, { param });
    }
    return { type: 'document', source: { type: 'url', url: s.url }, ...extras };
  }
  if (s.mediaType === 'application/pdf') return { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: toStandardBase64(s.data) }, ...extras };
  if (s.mediaType.startsWith('text/')) {
    return { type: 'document', source: { type: 'text', media_type: 'text/plain', data: decodeBase64Text(s.data, param) }, ...extras };
  }
  if (s.mediaType.startsWith('image/')) return encodeImage({ type: 'image', source: s }, param);
  throw new GatewayError('unsupported', `Anthropic models accept PDF or plain-text documents, not ${quoteInput(s.mediaType)}.`, { param });
}

function encodeToolResultContent(content: Array<IRTextPart | IRImagePart | IRFilePart>, param: string): string | Block[] | undefined {
  const blocks = content.flatMap((c, k): Block[] => {
    if (c.type === 'text') return c.text ? [encodeTextBlock(c)] : [];
    if (c.type === 'image') return [encodeImage(c, `${param}[${k}]`)];
    return [encodeDocument(c, `${param}[${k}]`)];
  });
  if (blocks.length === 0) return undefined;
  const only = blocks[0] as Block;
  if (blocks.length === 1 && only.type === 'text' && Object.keys(only).length === 2) return only.text as string;
  return blocks;
}

function encodePart(p: IRContentPart, role: 'user' | 'assistant', param: string, warnings: IRWarning[]): Block | undefined {
  switch (p.type) {
    case 'text':
      return p.text ? encodeTextBlock(p) : undefined;
    case 'image':
      return encodeImage(p, param);
    case 'file':
      return encodeDocument(p, param);
    case 'tool-call': {
      if (nestsTooDeep(p.arguments)) throw tooDeepError('The tool call arguments', param);
      const input = toolInput(p.arguments);
      if (p.arguments.trim() && p.arguments.trim() !== '{}' && Object.keys(input).length === 0) {
        warnings.push({ setting: 'messages', action: 'tool call arguments that are not a JSON object sent as {}', message: `The arguments of tool call ${p.id} (${param}) are not a JSON object; sent as {}.` });
      }
      return { type: 'tool_use', id: p.id, name: p.name, input, ...anthropicExtras(p.providerOptions) };
    }
    case 'tool-result': {
      const content = encodeToolResultContent(p.content, `${param}.content`);
      return {
        type: 'tool_result',
        tool_use_id: p.toolCallId,
        ...(content !== undefined ? { content } : {}),
        ...(p.isError ? { is_error: true } : {}),
        ...anthropicExtras(p.providerOptions),
      };
    }
    case 'reasoning':
      if (role !== 'assistant') return undefined;
      if (p.redactedData !== undefined) return { type: 'redacted_thinking', data: p.redactedData };
      if (p.signature) return { type: 'thinking', thinking: p.text, signature: p.signature };
      return undefined;
  }
}

/** IR messages -> Anthropic messages. */
export function convertToAnthropicMessages(messages: IRMessage[], warnings: IRWarning[]): AnthropicMessage[] {
  const out: AnthropicMessage[] = [];
  let droppedReasoning = false;
  messages.forEach((m, i) => {
    const role = m.role === 'assistant' ? 'assistant' : 'user';
    const content: Block[] = [];
    m.content.forEach((p, j) => {
      if (p.type === 'tool-call' && role !== 'assistant') {
        throw new GatewayError('invalid_request', 'Tool calls can only appear in assistant messages.', { param: `messages[${i}].content[${j}]` });
      }
      const block = encodePart(p, role, `messages[${i}].content[${j}]`, warnings);
      if (block) content.push(block);
      else if (p.type === 'reasoning' && p.text) droppedReasoning = true;
    });
    if (content.length === 0) return;
    const prev = out[out.length - 1];
    if (prev && prev.role === role) prev.content.push(...content);
    else out.push({ role, content });
  });
  if (droppedReasoning) {
    warnings.push({ setting: 'messages', action: 'reasoning without an anthropic signature left out', message: 'Reasoning without an Anthropic signature cannot be replayed to Anthropic models; it was left out.' });
  }
  // Tool results must come first in their user message.
  for (const m of out) {
    if (m.role === 'user' && m.content.some((b) => b.type === 'tool_result')) {
      m.content = [...m.content.filter((b) => b.type === 'tool_result'), ...m.content.filter((b) => b.type !== 'tool_result')];
    }
  }
  return out;
}
