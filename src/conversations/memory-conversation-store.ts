import {
  DEFAULT_CONVERSATION_MAX_ENTRIES,
  type ConversationRecord,
  type ConversationStore,
  type StoredEvent,
} from './conversation-store.js';

interface Entry {
  /** Serialized, so callers never share mutable objects with the store. */
  json: string;
  expiresAt: number;
  events: StoredEvent[];
  /** Its keys in the item index (owner + item id). */
  itemKeys: string[];
}

/** One owner's item in the item index (the owner's length first, so no pair of ids makes another's key). */
function itemKey(ownerId: string, itemId: string): string {
  return `${ownerId.length}:${ownerId}:${itemId}`;
}

/**
 * The default store: one process, bounded. A Map keeps insertion order, so re-inserting on every
 * read or write makes its first key the least recently used one, evicted beyond `maxEntries`.
 */
export class MemoryConversationStore implements ConversationStore {
  private readonly entries = new Map<string, Entry>();
  /** Item index: owner + item id -> the id of the record holding it; entries leave with their record. */
  private readonly items = new Map<string, string>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly maxEntries = DEFAULT_CONVERSATION_MAX_ENTRIES,
  ) {}

  async get(id: string): Promise<ConversationRecord | undefined> {
    const entry = this.live(id);
    return entry ? (JSON.parse(entry.json) as ConversationRecord) : undefined;
  }

  async create(record: ConversationRecord): Promise<ConversationRecord> {
    const stored: ConversationRecord = { ...record, version: 1 };
    this.write(stored, []);
    return JSON.parse(JSON.stringify(stored)) as ConversationRecord;
  }

  async update(record: ConversationRecord, expectedVersion: number): Promise<ConversationRecord | undefined> {
    const entry = this.live(record.id);
    if (!entry || (JSON.parse(entry.json) as ConversationRecord).version !== expectedVersion) return undefined;
    const next: ConversationRecord = { ...record, version: expectedVersion + 1 };
    this.write(next, entry.events);
    return JSON.parse(JSON.stringify(next)) as ConversationRecord;
  }

  async delete(id: string): Promise<boolean> {
    const existed = this.live(id) !== undefined;
    this.remove(id);
    return existed;
  }

  async findItem(ownerId: string, itemId: string): Promise<ConversationRecord | undefined> {
    const id = this.items.get(itemKey(ownerId, itemId));
    const record = id === undefined ? undefined : await this.get(id);
    return record?.ownerId === ownerId ? record : undefined;
  }

  async appendEvents(id: string, events: StoredEvent[]): Promise<void> {
    const entry = this.live(id);
    if (entry) entry.events.push(...events.map((e) => ({ ...e })));
  }

  async events(id: string, from: number): Promise<StoredEvent[]> {
    const entry = this.live(id);
    return entry ? entry.events.slice(Math.max(0, from)).map((e) => ({ ...e })) : [];
  }

  private write(record: ConversationRecord, events: StoredEvent[]): void {
    this.remove(record.id);
    const itemKeys = (record.itemIds ?? []).map((item) => itemKey(record.ownerId, item));
    for (const key of itemKeys) this.items.set(key, record.id);
    this.entries.set(record.id, { json: JSON.stringify(record), expiresAt: record.expiresAt, events, itemKeys });
    while (this.entries.size > this.maxEntries) this.remove(this.entries.keys().next().value as string);
  }

  /** Drops a record and its index entries (those another record took over stay). */
  private remove(id: string): void {
    const entry = this.entries.get(id);
    if (!entry) return;
    this.entries.delete(id);
    for (const key of entry.itemKeys) if (this.items.get(key) === id) this.items.delete(key);
  }

  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.remove(id);
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }
}
