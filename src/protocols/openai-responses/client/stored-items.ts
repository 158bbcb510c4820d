/**
 * Items as the gateway keeps them for a stored response: the input listed by
 * `GET /v1/responses/{id}/input_items` (every item with an id, messages in their full form), and a
 * stored conversation replayed as input items to an OpenAI upstream that does not know it.
 */
import type { Json } from './response-object.js';
import { ownValue } from '../../../core/own-key.js';

const ID_PREFIX: Record<string, string> = { message: 'msg_', function_call: 'fc_', function_call_output: 'fco_', reasoning: 'rs_', custom_tool_call: 'ctc_', custom_tool_call_output: 'ctco_', tool_search_call: 'tsc_', tool_search_output: 'tso_' };

/** The request's input as listed later: ids added, easy messages in the `message` item form. */
export function inputItemsForListing(input: string | ReadonlyArray<Record<string, unknown>> | null | undefined, newId: (prefix: string) => string): Json[] {
  if (input == null) return [];
  if (typeof input === 'string') return [{ id: newId('msg_'), type: 'message', role: 'user', status: 'completed', content: [{ type: 'input_text', text: input }] }];
  return input.map((raw) => {
    const item: Json = { ...raw };
    const type = typeof item.type === 'string' ? item.type : 'message';
    item.type = type;
    if (type === 'message') {
      if (typeof item.content === 'string') item.content = [{ type: item.role === 'assistant' ? 'output_text' : 'input_text', text: item.content }];
      item.status ??= 'completed';
    }
    if (typeof item.id !== 'string' || !item.id) item.id = newId(ownValue(ID_PREFIX, type) ?? 'item_');
    return item;
  });
}

/**
 * One stored turn's input and output as input items for OpenAI: ids dropped (they are the
 * gateway's, or name items the upstream account may not hold) and reasoning items that carry no
 * `encrypted_content` left out (OpenAI could only find them by id).
 */
export function replayableItems(inputItems: Json[], output: unknown): Json[] {
  const out: Json[] = [];
  const all = [...inputItems, ...(Array.isArray(output) ? (output as Json[]) : [])];
  for (const item of all) {
    if (!item || typeof item !== 'object') continue;
    if (item.type === 'reasoning' && typeof item.encrypted_content !== 'string') continue;
    const { id: _id, ...rest } = item;
    out.push(rest);
  }
  return out;
}
