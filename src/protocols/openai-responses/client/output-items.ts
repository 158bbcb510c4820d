/** Output items as OpenAI writes them (message, function_call, custom_tool_call, reasoning). */
import type { IRCitation, IRReasoningPart, IRWebSearchPart, ProtocolName } from '../../../ir/types.js';
import { customInputOf, type ClientToolRef } from './decode-tools.js';
import { encodeReasoningToken } from '../../shared/reasoning-token.js';
import type { Json } from './response-object.js';

export type ItemStatus = 'in_progress' | 'completed' | 'incomplete';

export function outputText(text: string, annotations: unknown[] = []): Json {
  return { type: 'output_text', text, annotations, logprobs: [] };
}

export function messageItem(id: string, status: ItemStatus, text?: string, annotations?: unknown[]): Json {
  return { id, type: 'message', status, role: 'assistant', content: text === undefined ? [] : [outputText(text, annotations)] };
}

/** A tool call item: `function_call`, `custom_tool_call` for the client's custom tools, `tool_search_call` for its tool search. */
export function toolCallItem(id: string, status: ItemStatus, ref: ClientToolRef, callId: string, args: string): Json {
  const ns = ref.namespace ? { namespace: ref.namespace } : {};
  if (ref.kind === 'tool_search') return { id, type: 'tool_search_call', status, call_id: callId, arguments: status === 'in_progress' ? {} : jsonArguments(args), execution: 'client' };
  if (ref.kind === 'custom') return { id, type: 'custom_tool_call', status, call_id: callId, name: ref.name, input: status === 'in_progress' ? '' : customInputOf(args), ...ns };
  return { id, type: 'function_call', status, arguments: args, call_id: callId, name: ref.name, ...ns };
}

/** Tool search arguments are a JSON value; arguments that do not parse stay a string. */
function jsonArguments(args: string): unknown {
  try {
    return JSON.parse(args || '{}') as unknown;
  } catch {
    return args;
  }
}

export function reasoningItem(id: string, text: string, token?: string): Json {
  const item: Json = { id, type: 'reasoning', summary: text ? [{ type: 'summary_text', text }] : [] };
  if (token) item.encrypted_content = token;
  return item;
}

/** The reasoning token of a finished reasoning block (signature/redacted data), if any. */
export function tokenFor(text: string, signature: string | undefined, redactedData: string | undefined, origin: ProtocolName): string | undefined {
  const part: IRReasoningPart = { type: 'reasoning', text, ...(signature ? { signature } : {}), ...(redactedData !== undefined ? { redactedData } : {}) };
  return encodeReasoningToken(part, origin);
}

export function itemPrefix(kind: 'message' | 'reasoning' | 'function' | 'custom' | 'tool_search' | 'search'): string {
  return kind === 'message' ? 'msg_' : kind === 'reasoning' ? 'rs_' : kind === 'custom' ? 'ctc_' : kind === 'tool_search' ? 'tsc_' : kind === 'search' ? 'ws_' : 'fc_';
}

/**
 * A `web_search_call` item: the search action with its query (and all queries when the vendor ran
 * several); the pages found only when `include` asked for `web_search_call.action.sources`.
 */
export function webSearchItem(id: string, status: 'in_progress' | 'completed' | 'failed', part: IRWebSearchPart | undefined, withSources: boolean): Json {
  const action: Json = { type: 'search' };
  const queries = part?.queries ?? [];
  if (queries.length) action.query = queries[0];
  if (queries.length > 1) action.queries = queries;
  if (withSources && part?.sources) action.sources = part.sources.map((s) => ({ type: 'url', url: s.url }));
  return { id, type: 'web_search_call', status, action };
}

/** A citation of a text that starts at `offset` of the output text and is `length` long -> `url_citation`. */
export function urlCitation(c: IRCitation, offset: number, length: number): Json {
  return { type: 'url_citation', url: c.url, title: c.title ?? c.url, start_index: offset + (c.startIndex ?? 0), end_index: offset + (c.endIndex ?? length) };
}
