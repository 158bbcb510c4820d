import { GatewayError } from '../core/errors.js';
import type { ConversationRecord, ConversationStore } from './conversation-store.js';

/** Compare-and-set with retries: `change` returns the next record, or undefined to leave it. */
export async function updateRecord(
  store: ConversationStore,
  id: string,
  change: (r: ConversationRecord) => ConversationRecord | undefined,
): Promise<ConversationRecord | undefined> {
  for (let attempt = 0; attempt < 10; attempt++) {
    const current = await store.get(id);
    if (!current) return undefined;
    const next = change(current);
    if (!next) return current;
    const written = await store.update(next, current.version);
    if (written) return written;
  }
  throw new GatewayError('unavailable', `The stored response '${id}' kept changing; try again.`);
}
