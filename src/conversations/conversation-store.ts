/**
 * Stored responses (OpenAI Responses API; the Gemini Interactions API will use the same records):
 * what a later turn needs to continue a conversation on any vendor, what GET/input_items return,
 * and the state and events of background runs. In memory by default (LRU + TTL); in Redis so that
 * several gateway instances continue each other's conversations.
 */
import type { IRMessage, IRTextPart, ProtocolName } from '../ir/types.js';
import type { StoredEvent } from '../wire/stored-event.js';

export type ConversationStatus = 'queued' | 'in_progress' | 'completed' | 'incomplete' | 'failed' | 'cancelled';

export const FINAL_STATUSES: readonly ConversationStatus[] = ['completed', 'incomplete', 'failed', 'cancelled'];

/** One turn, protocol-neutral: what a later turn sent to any vendor needs. */
export interface StoredTurn {
  /** System text of the turn's own input (instructions are not inherited by later turns). */
  system: IRTextPart[];
  /** The turn's input, then the model's output. */
  messages: IRMessage[];
}

export interface ConversationRecord {
  /** The gateway's id (e.g. `resp_…`). */
  id: string;
  /** The API the record belongs to, e.g. `openai-responses`. */
  api: string;
  /** The key (principal id) that created it; no other key can see it. */
  ownerId: string;
  /** 1 when created, +1 per update (compare-and-set). */
  version: number;
  /** Epoch ms. */
  createdAt: number;
  /** Epoch ms after which the store may forget the record. */
  expiresAt: number;
  status: ConversationStatus;
  background: boolean;
  /** Set by a cancel on any instance; the instance running the work watches it. */
  cancelRequested?: boolean;
  /** The record this turn continued. */
  previousId?: string;
  /** The API's own object as last returned (the Responses `response`). */
  object: Record<string, unknown>;
  /** The API's own input items of this turn, with ids (listed by `input_items`). */
  inputItems: Array<Record<string, unknown>>;
  /** This turn as IR; null when it holds items no other vendor can take (see `untranslatable`). */
  turn: StoredTurn | null;
  untranslatable?: string;
  /** The upstream protocol that produced the output (vendor reasoning signatures are only valid there). */
  origin?: ProtocolName;
  /** The upstream's own id of this response, to continue on that same upstream. */
  upstream?: { providerId: string; responseId: string };
  /**
   * Ids of the API's items this record holds (Responses output items and the turn's own input
   * items): the store indexes them per owner, so a later `item_reference` of the same key finds them.
   */
  itemIds?: string[];
}

/** One recorded stream event of a background run. */
export type { StoredEvent };

export interface ConversationStore {
  get(id: string): Promise<ConversationRecord | undefined>;
  /** Stores a new record with version 1. */
  create(record: ConversationRecord): Promise<ConversationRecord>;
  /** Compare-and-set: writes when the stored version is still `expectedVersion`; undefined otherwise (or when gone). */
  update(record: ConversationRecord, expectedVersion: number): Promise<ConversationRecord | undefined>;
  /** Removes the record and its events; false when there was none. */
  delete(id: string): Promise<boolean>;
  /** Appends events of a background run (kept as long as the record). */
  appendEvents(id: string, events: StoredEvent[]): Promise<void>;
  /** Events from position `from` (0-based) on. */
  events(id: string, from: number): Promise<StoredEvent[]>;
  /** The record of `ownerId` whose `itemIds` hold `itemId` (the latest written); undefined for any other key's item. */
  findItem(ownerId: string, itemId: string): Promise<ConversationRecord | undefined>;
}

export interface ConversationOptions {
  /** How long records are kept (default 30 days). */
  ttlMs?: number;
  /** Most records the in-memory store keeps; the least recently used go first (default 10000). */
  maxEntries?: number;
  /** How often a stream of a running background response looks for new events (default 250 ms). */
  pollIntervalMs?: number;
  /** How often a background run checks the store for a cancel from another instance (default 1000 ms). */
  cancelCheckMs?: number;
}

export const DEFAULT_CONVERSATION_TTL_MS = 30 * 24 * 60 * 60 * 1000;
export const DEFAULT_CONVERSATION_MAX_ENTRIES = 10_000;
