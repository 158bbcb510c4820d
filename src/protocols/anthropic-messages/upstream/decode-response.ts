/** Anthropic `message` JSON -> IR (upstream side). */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatResponse, IRCitation, IRContentPart, IRWebSearchPart } from '../../../ir/types.js';
import { messageResponseSchema } from '../anthropic-messages-api.js';
import { fromAnthropicStopReason } from './map-finish-reason.js';
import { fromAnthropicUsage } from './usage.js';
import { isJsonObject } from '../../shared/json.js';


/** A text block's `web_search_result_location` citations (the whole block cites each page). */
export function webCitations(citations: unknown): IRCitation[] {
  if (!Array.isArray(citations)) return [];
  return citations
    .filter((c): c is Record<string, unknown> => isJsonObject(c) && c.type === 'web_search_result_location' && typeof c.url === 'string')
    .map((c) => ({ type: 'url', url: c.url as string, ...(typeof c.title === 'string' ? { title: c.title } : {}) }));
}

/** A `web_search_tool_result` block's content: the pages found, or an error object. */
export function webSearchOutcome(content: unknown): Pick<IRWebSearchPart, 'status' | 'sources'> {
  if (!Array.isArray(content)) return { status: 'failed' };
  const sources = content
    .filter((r): r is Record<string, unknown> => isJsonObject(r) && r.type === 'web_search_result' && typeof r.url === 'string')
    .map((r) => ({ url: r.url as string, ...(typeof r.title === 'string' ? { title: r.title } : {}) }));
  return { status: 'completed', sources };
}

/** The query of a `server_tool_use` web search's input, as the IR's queries. */
export function webSearchQueries(input: unknown): string[] | undefined {
  return isJsonObject(input) && typeof input.query === 'string' ? [input.query] : undefined;
}

/**
 * One response block -> IR part. A web search is two blocks (`server_tool_use`, then its
 * `web_search_tool_result`): the first opens the part, the second completes it. Other server-tool
 * blocks have no IR form and are left out.
 */
function decodeBlock(b: Record<string, unknown>, searches: Map<string, IRWebSearchPart>): IRContentPart | undefined {
  switch (b.type) {
    case 'text': {
      if (typeof b.text !== 'string') return undefined;
      const citations = webCitations(b.citations);
      return { type: 'text', text: b.text, ...(citations.length ? { citations } : {}) };
    }
    case 'thinking':
      return {
        type: 'reasoning',
        text: typeof b.thinking === 'string' ? b.thinking : '',
        ...(typeof b.signature === 'string' && b.signature ? { signature: b.signature } : {}),
      };
    case 'redacted_thinking':
      return { type: 'reasoning', text: '', redactedData: typeof b.data === 'string' ? b.data : '' };
    case 'tool_use':
      return { type: 'tool-call', id: String(b.id ?? ''), name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) };
    case 'server_tool_use': {
      if (b.name !== 'web_search') return undefined;
      const queries = webSearchQueries(b.input);
      const part: IRWebSearchPart = { type: 'web-search', id: String(b.id ?? ''), status: 'failed', ...(queries ? { queries } : {}) };
      searches.set(part.id, part);
      return part;
    }
    case 'web_search_tool_result': {
      const part = searches.get(String(b.tool_use_id ?? ''));
      if (part) Object.assign(part, webSearchOutcome(b.content));
      return undefined;
    }
    default:
      return undefined;
  }
}

export function decodeAnthropicResponse(json: unknown): IRChatResponse {
  const parsed = messageResponseSchema.safeParse(json);
  if (!parsed.success) throw new GatewayError('bad_gateway', 'The upstream answered with a malformed Anthropic message.');
  const res = parsed.data;
  const searches = new Map<string, IRWebSearchPart>();
  const content = res.content.map((b) => decodeBlock(b, searches)).filter((p): p is IRContentPart => p !== undefined);
  return {
    id: res.id,
    model: res.model ?? 'unknown',
    content,
    finishReason: fromAnthropicStopReason(res.stop_reason, res.stop_sequence),
    usage: fromAnthropicUsage(res.usage),
  };
}
