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
}

/**
 * The default store: one process, bounded. A Map keeps insertion order, so re-inserting on every
 * read or write makes its first key the least recently used one, evicted beyond `maxEntries`.
 */
export class MemoryConversationStore implements ConversationStore {
  private readonly entries = new Map<string, Entry>();

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
    this.entries.delete(id);
    return existed;
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
    this.entries.delete(record.id);
    this.entries.set(record.id, { json: JSON.stringify(record), expiresAt: record.expiresAt, events });
    while (this.entries.size > this.maxEntries) {
      const oldest = this.entries.keys().next().value as string;
      this.entries.delete(oldest);
    }
  }

  private live(id: string): Entry | undefined {
    const entry = this.entries.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.entries.delete(id);
      return undefined;
    }
    // Most recently used goes last.
    this.entries.delete(id);
    this.entries.set(id, entry);
    return entry;
  }
}
