/** IR response -> the Responses `response` object (plus the gateway's traceId). */
import type { IRChatResponse, IRWarning } from '../../../ir/types.js';
import type { ResponseMeta } from '../../types.js';
import { itemPrefix, messageItem, reasoningItem, toolCallItem, tokenFor, urlCitation, webSearchItem } from './output-items.js';
import { buildResponseObject, responsesOptions, statusOfFinish, type Json } from './response-object.js';

export function encodeResponsesResponse(res: IRChatResponse, meta: ResponseMeta, warnings: IRWarning[]): Json {
  const opts = responsesOptions(meta);
  const { status, incompleteReason } = statusOfFinish(res.finishReason.unified);
  const output: Json[] = [];
  let text: string | undefined;
  let annotations: unknown[] = [];
  const flushText = (): void => {
    if (text === undefined) return;
    output.push(messageItem(meta.newId(itemPrefix('message')), status === 'incomplete' ? 'incomplete' : 'completed', text, annotations));
    text = undefined;
    annotations = [];
  };
  for (const part of res.content) {
    if (part.type === 'text') {
      const offset = text?.length ?? 0;
      text = (text ?? '') + part.text;
      const extra = part.providerOptions?.['openai-responses']?.annotations;
      if (Array.isArray(extra)) annotations.push(...extra);
      for (const c of part.citations ?? []) annotations.push(urlCitation(c, offset, part.text.length));
    } else if (part.type === 'web-search') {
      flushText();
      output.push(webSearchItem(meta.newId(itemPrefix('search')), part.status, part, opts.webSearchSources === true));
    } else if (part.type === 'reasoning') {
      flushText();
      output.push(reasoningItem(meta.newId(itemPrefix('reasoning')), part.text, tokenFor(part.text, part.signature, part.redactedData, opts.origin)));
    } else if (part.type === 'tool-call') {
      flushText();
      const ref = opts.names.clientRef(part.name);
      output.push(toolCallItem(meta.newId(itemPrefix(ref.kind === 'function' ? 'function' : ref.kind)), 'completed', ref, part.id, part.arguments));
    }
  }
  flushText();
  const object = buildResponseObject(
    opts,
    { status, model: res.model, output, usage: res.usage, completedAt: Math.floor(opts.now() / 1000), ...(incompleteReason ? { incompleteReason } : {}), warnings },
    meta.traceId,
  );
  opts.sink.final = object;
  return object;
}
