/**
 * The input of a `POST /v1/responses` turn, made whole against what the key has stored:
 * `item_reference` items (the Vercel AI SDK sends earlier output items back this way) are resolved
 * from this key's stored responses, whichever vendor answered them; an id this key does not hold
 * (another key's item included) is a 400 naming it. Items the continued conversation already holds
 * (function calls a client sends again next to their outputs, references to its items) are dropped,
 * so each call reaches the upstream once.
 */
import type { ConversationRecord, ConversationStore } from '../conversations/conversation-store.js';
import { GatewayError } from '../core/errors.js';
import type { Json } from '../protocols/openai-responses/client/response-object.js';
import { replayableItems } from '../protocols/openai-responses/client/stored-items.js';
import { quoteInput } from '../core/quote-input.js';

/** Items that are a model's tool call, each known by its `call_id`. */
/** The `api` of records the Responses API stores (an Interactions record is no response: 404 on every Responses route). */
export const RESPONSES_API = 'openai-responses';

const CALL_TYPES = new Set(['function_call', 'custom_tool_call', 'tool_search_call']);

export interface ResponsesInput {
  /** The input to decode, store and list: references resolved (the stored items, ids kept), repeats dropped. */
  items: Json[];
  /** The same for an OpenAI upstream: a reference to an item that upstream produced (and holds) stays a reference. */
  upstreamItems: Json[];
  /** Ids of the items resolved from earlier responses (indexed with those). */
  resolvedIds: Set<string>;
}

/** `{"type": "item_reference", "id"}`, or the short form: an object with an id and neither type nor role. */
function isReference(item: Json): boolean {
  return item.type === 'item_reference' || (item.type == null && !('role' in item) && 'id' in item);
}

function outputOf(record: ConversationRecord): Json[] {
  return Array.isArray(record.object.output) ? (record.object.output as Json[]) : [];
}

/** The call ids and item ids of the stored conversation a turn continues. */
function heldBy(chain: ConversationRecord[]): { calls: Set<string>; items: Set<string> } {
  const calls = new Set<string>();
  const items = new Set<string>();
  for (const r of chain) {
    for (const item of [...r.inputItems, ...outputOf(r)]) {
      if (typeof item.id === 'string') items.add(item.id);
      if (CALL_TYPES.has(String(item.type)) && typeof item.call_id === 'string') calls.add(item.call_id);
    }
    for (const m of r.turn?.messages ?? []) for (const p of m.content) if (p.type === 'tool-call') calls.add(p.id);
  }
  return { calls, items };
}

/**
 * The turn's input against the store; undefined when it stays as sent (a string, no reference, no
 * repeated call). `holders`: the providers that would answer this turn through their own Responses
 * API (an item one of them produced is resolved there by its id).
 */
export async function resolveResponsesInput(
  store: ConversationStore,
  ownerId: string,
  input: string | ReadonlyArray<Json> | null | undefined,
  chain: ConversationRecord[],
  holders: ReadonlySet<string>,
): Promise<ResponsesInput | undefined> {
  if (!Array.isArray(input)) return undefined;
  const held = heldBy(chain);
  const calls = new Set(held.calls);
  const out: ResponsesInput = { items: [], upstreamItems: [], resolvedIds: new Set() };
  // Every referenced item is looked up at once (a long conversation refers to many).
  const wanted = new Set((input as Json[]).filter(isReference).map((r) => r.id).filter((id): id is string => typeof id === 'string' && !held.items.has(id)));
  const found = await Promise.all([...wanted].map(async (id) => [id, await store.findItem(ownerId, id)] as const));
  const records = new Map(found);
  let changed = false;

  /** A call already made in this conversation (stored, or earlier in this input) is left out. */
  const repeatsCall = (item: Json): boolean => {
    if (!CALL_TYPES.has(String(item.type)) || typeof item.call_id !== 'string') return false;
    if (calls.has(item.call_id)) return true;
    calls.add(item.call_id);
    return false;
  };

  for (const [i, raw] of (input as Json[]).entries()) {
    if (!isReference(raw)) {
      if (repeatsCall(raw)) changed = true;
      else {
        out.items.push(raw);
        out.upstreamItems.push(raw);
      }
      continue;
    }
    changed = true;
    const id = raw.id;
    if (typeof id !== 'string' || !id) throw new GatewayError('invalid_request', 'An item_reference needs the id of an earlier item.', { param: `input[${i}].id` });
    if (held.items.has(id)) continue;
    const found = records.get(id);
    const record = found?.api === RESPONSES_API ? found : undefined;
    const fromOutput = record ? outputOf(record).find((it) => it.id === id) : undefined;
    const item = fromOutput ?? record?.inputItems.find((it) => it.id === id);
    if (!record || !item) throw new GatewayError('invalid_request', `Item with id '${quoteInput(id)}' not found.`, { param: `input[${i}]` });
    if (repeatsCall(item)) continue;
    out.items.push(item);
    out.resolvedIds.add(id);
    // The upstream that produced an output item holds it under that id; any other gets the item itself.
    const holds = fromOutput !== undefined && record.upstream !== undefined && holders.has(record.upstream.providerId);
    out.upstreamItems.push(...(holds ? [{ type: 'item_reference', id }] : replayableItems([item], [])));
  }
  return changed ? out : undefined;
}
