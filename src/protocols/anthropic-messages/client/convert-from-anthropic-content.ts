/** Anthropic content blocks (request side) -> IR content parts. */
import { GatewayError } from '../../../core/errors.js';
import type { IRContentPart, IRFilePart, IRImagePart, IRTextPart, IRToolCallPart, IRToolResultPart, ProviderOptions } from '../../../ir/types.js';
import { compiledOnFirstUse, parseOrThrow } from '../../shared/zod-error.js';
import { contentBlockSchema, type ContentBlock, type DocumentBlock, type ImageBlock } from '../anthropic-messages-api.js';
import { quoteInput } from '../../../core/quote-input.js';
import { unmodelledFields } from '../../shared/provider-options.js';

const P = 'anthropic-messages';

/** Fields of a block the IR does not model (cache_control, citations, ...), kept for an Anthropic upstream. */
export function extrasOf(block: Record<string, unknown>, modeled: readonly string[]): ProviderOptions | undefined {
  const extra = unmodelledFields(block, new Set(modeled), { dropNull: true });
  return Object.keys(extra).length ? { [P]: extra } : undefined;
}

function withOptions<T extends { providerOptions?: ProviderOptions }>(part: T, options: ProviderOptions | undefined): T {
  if (options) part.providerOptions = options;
  return part;
}

export function decodeTextBlock(block: { text: string } & Record<string, unknown>): IRTextPart {
  return withOptions<IRTextPart>({ type: 'text', text: block.text }, extrasOf(block, ['type', 'text']));
}

function decodeImage(block: ImageBlock, param: string): IRImagePart {
  const s = block.source;
  const options = extrasOf(block, ['type', 'source']);
  if (s.type === 'base64') return withOptions<IRImagePart>({ type: 'image', source: { kind: 'base64', mediaType: s.media_type, data: s.data } }, options);
  if (s.type === 'url') return withOptions<IRImagePart>({ type: 'image', source: { kind: 'url', url: s.url } }, options);
  throw new GatewayError('unsupported', 'Images referenced by Files API file_id can only be sent to Anthropic models.', { param: `${param}.source` });
}

/** A PDF becomes a file part; a plain-text or content document becomes text. */
function decodeDocument(block: DocumentBlock, param: string): IRFilePart | IRTextPart[] {
  const s = block.source;
  const options = extrasOf(block, ['type', 'source', 'title']);
  const filename = block.title ?? undefined;
  const file = (source: IRFilePart['source']): IRFilePart => withOptions<IRFilePart>({ type: 'file', source, ...(filename ? { filename } : {}) }, options);
  switch (s.type) {
    case 'base64':
      return file({ kind: 'base64', mediaType: s.media_type, data: s.data });
    case 'url':
      return file({ kind: 'url', url: s.url, mediaType: 'application/pdf' });
    case 'file':
      return file({ kind: 'file-id', fileId: s.file_id });
    case 'text':
      return [{ type: 'text', text: filename ? `${filename}\n\n${s.data}` : s.data }];
    case 'content': {
      if (typeof s.content === 'string') return [{ type: 'text', text: s.content }];
      return s.content.map((b, k) => {
        if (b.type !== 'text' || typeof b.text !== 'string') {
          throw new GatewayError('unsupported', `Document content blocks of type '${quoteInput(b.type)}' cannot be translated for this model.`, { param: `${param}.source.content[${k}]` });
        }
        return { type: 'text', text: b.text };
      });
    }
  }
}

/** Blocks allowed in user content and tool results (text, image, document). */
function decodeMediaOrText(block: ContentBlock, param: string): Array<IRTextPart | IRImagePart | IRFilePart> {
  switch (block.type) {
    case 'text':
      return [decodeTextBlock(block)];
    case 'image':
      return [decodeImage(block, param)];
    case 'document': {
      const d = decodeDocument(block, param);
      return Array.isArray(d) ? d : [d];
    }
    default:
      throw new GatewayError('invalid_request', `Blocks of type '${quoteInput(block.type)}' are not allowed here.`, { param: `${param}.type` });
  }
}

const compiledContentBlock = compiledOnFirstUse(contentBlockSchema);

const TRANSLATABLE = new Set(['text', 'image', 'document', 'tool_use', 'tool_result', 'thinking', 'redacted_thinking']);

/** Validates one block; server-tool and other Anthropic-only blocks cannot be translated. */
function parseBlock(raw: Record<string, unknown>, param: string): ContentBlock {
  if (typeof raw.type === 'string' && !TRANSLATABLE.has(raw.type)) {
    throw new GatewayError('unsupported', `Content blocks of type '${quoteInput(raw.type)}' can only be sent to Anthropic models.`, { param: `${param}.type` });
  }
  return parseOrThrow(compiledContentBlock(), raw, param);
}

/**
 * The content of one Anthropic message -> IR parts. `toolNames` maps tool_use ids seen so far to
 * tool names (Gemini matches results by name).
 */
export function decodeMessageContent(
  role: 'user' | 'assistant',
  content: string | Array<Record<string, unknown>>,
  param: string,
  toolNames: Map<string, string>,
): IRContentPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  const parts: IRContentPart[] = [];
  content.forEach((raw, j) => {
    const p = `${param}[${j}]`;
    const block = parseBlock(raw, p);
    switch (block.type) {
      case 'tool_use': {
        if (role !== 'assistant') throw new GatewayError('invalid_request', 'tool_use blocks are only allowed in assistant messages.', { param: p });
        toolNames.set(block.id, block.name);
        parts.push(withOptions<IRToolCallPart>({ type: 'tool-call', id: block.id, name: block.name, arguments: JSON.stringify(block.input) }, extrasOf(block, ['type', 'id', 'name', 'input'])));
        return;
      }
      case 'tool_result': {
        if (role !== 'user') throw new GatewayError('invalid_request', 'tool_result blocks are only allowed in user messages.', { param: p });
        const inner = block.content === undefined ? [] : typeof block.content === 'string' ? [{ type: 'text' as const, text: block.content }] : block.content.flatMap((b, k) => decodeMediaOrText(b, `${p}.content[${k}]`));
        const name = toolNames.get(block.tool_use_id);
        parts.push(
          withOptions<IRToolResultPart>(
            { type: 'tool-result', toolCallId: block.tool_use_id, ...(name ? { toolName: name } : {}), content: inner, ...(block.is_error ? { isError: true } : {}) },
            extrasOf(block, ['type', 'tool_use_id', 'content', 'is_error']),
          ),
        );
        return;
      }
      case 'thinking':
        parts.push({ type: 'reasoning', text: block.thinking, ...(block.signature ? { signature: block.signature } : {}) });
        return;
      case 'redacted_thinking':
        parts.push({ type: 'reasoning', text: '', redactedData: block.data });
        return;
      default:
        parts.push(...decodeMediaOrText(block, p));
    }
  });
  return parts;
}
