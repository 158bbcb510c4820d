/** A conversation's earlier turns, walked back from the record a new turn continues. */
import { GatewayError } from '../core/errors.js';
import type { IRMessage, IRTextPart } from '../ir/types.js';
import type { ConversationRecord, ConversationStore } from './conversation-store.js';
import { quoteInput } from '../core/quote-input.js';

/** Far beyond any real conversation; stops a corrupt store from looping. */
const MAX_TURNS = 10_000;

/**
 * The records from the first turn to `id` (oldest first). `id` must exist and belong to `ownerId`
 * (404 otherwise, as for any other key's response) and be finished; a gap in the chain (an earlier
 * turn deleted or expired) is a 404 naming it.
 */
export async function loadChain(store: ConversationStore, id: string, ownerId: string, param = 'previous_response_id', noun = 'response'): Promise<ConversationRecord[]> {
  const chain: ConversationRecord[] = [];
  let next: string | undefined = id;
  while (next !== undefined) {
    const record: ConversationRecord | undefined = await store.get(next);
    if (!record || record.ownerId !== ownerId) {
      const what = next === id ? `Previous ${noun} with id '${quoteInput(id)}' not found.` : `The conversation of '${quoteInput(id)}' is incomplete: its earlier ${noun} '${quoteInput(next)}' is no longer stored.`;
      throw new GatewayError('not_found', what, { param });
    }
    if (chain.length === 0 && record.status !== 'completed' && record.status !== 'incomplete') {
      throw new GatewayError('invalid_request', `Previous ${noun} with id '${quoteInput(id)}' is ${record.status}; only a finished ${noun} can be continued.`, { param });
    }
    chain.push(record);
    if (chain.length > MAX_TURNS) throw new GatewayError('invalid_request', `The conversation of '${quoteInput(id)}' is longer than ${MAX_TURNS} turns.`, { param });
    next = record.previousId;
  }
  return chain.reverse();
}

/** The chain as IR (system text and messages, in order); 400 when a turn cannot be translated. */
export function irHistory(chain: ConversationRecord[], model: string, param = 'previous_response_id', noun = 'response'): { system: IRTextPart[]; messages: IRMessage[] } {
  const system: IRTextPart[] = [];
  const messages: IRMessage[] = [];
  for (const r of chain) {
    if (!r.turn) {
      throw new GatewayError('unsupported', `The earlier ${noun} '${r.id}' of this conversation cannot be continued with the model '${model}': ${r.untranslatable ?? 'it holds items other vendors cannot take'}.`, { param });
    }
    system.push(...r.turn.system);
    messages.push(...r.turn.messages);
  }
  return { system, messages };
}
