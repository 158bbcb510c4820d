import type { RedisTaskClient } from '../tasks/redis-task-store.js';
import type { ConversationRecord, ConversationStore, StoredEvent } from './conversation-store.js';

/** The Redis commands the store needs: `get` and `eval` (ioredis fits). */
export type RedisConversationClient = RedisTaskClient;

export interface RedisConversationStoreOptions {
  /** Prepended to every key (default `modelgate:`). */
  prefix?: string;
  now?: () => number;
}

// Each change is one script, so it is atomic across instances. Keys of one record: the record, its
// event list and its item index entries, which name the record and live as long as it (for Redis
// Cluster, put a hash tag in the prefix so they all land on one node).

/** KEYS: record, item index entries... ARGV: json, ttlMs, record id. */
const CREATE = `
if not redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2], 'NX') then return 0 end
for i = 2, #KEYS do redis.call('SET', KEYS[i], ARGV[3], 'PX', ARGV[2]) end
return 1
`;

/** KEYS: record, events, item index entries... ARGV: expected version, json, ttlMs, record id. */
const UPDATE = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local ok, decoded = pcall(cjson.decode, cur)
if not ok or tonumber(decoded.version) ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if redis.call('EXISTS', KEYS[2]) == 1 then redis.call('PEXPIRE', KEYS[2], ARGV[3]) end
for i = 3, #KEYS do redis.call('SET', KEYS[i], ARGV[4], 'PX', ARGV[3]) end
return 1
`;

/** KEYS: record, events. */
const DELETE = `
local n = redis.call('DEL', KEYS[1])
redis.call('DEL', KEYS[2])
return n
`;

/** KEYS: record, events. ARGV: event json... Events live exactly as long as their record. */
const APPEND = `
local ttl = redis.call('PTTL', KEYS[1])
if ttl <= 0 then return 0 end
redis.call('RPUSH', KEYS[2], unpack(ARGV))
redis.call('PEXPIRE', KEYS[2], ttl)
return 1
`;

/** KEYS: events. ARGV: from. */
const RANGE = `return redis.call('LRANGE', KEYS[1], tonumber(ARGV[1]), -1)`;

/** Records in Redis, shared by every gateway instance that uses the same client and prefix. */
export class RedisConversationStore implements ConversationStore {
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(private readonly client: RedisConversationClient, options: RedisConversationStoreOptions = {}) {
    this.prefix = options.prefix ?? 'modelgate:';
    this.now = options.now ?? Date.now;
  }

  private recordKey(id: string): string {
    return `${this.prefix}conv:${id}`;
  }

  private eventsKey(id: string): string {
    return `${this.prefix}conv-events:${id}`;
  }

  /** An owner's item in the index (the value is the id of the record holding it). */
  private itemKey(ownerId: string, itemId: string): string {
    return `${this.prefix}conv-item:${encodeURIComponent(ownerId)}:${encodeURIComponent(itemId)}`;
  }

  private itemKeys(record: ConversationRecord): string[] {
    return (record.itemIds ?? []).map((item) => this.itemKey(record.ownerId, item));
  }

  private ttl(record: ConversationRecord): number {
    return Math.max(1, Math.ceil(record.expiresAt - this.now()));
  }

  async get(id: string): Promise<ConversationRecord | undefined> {
    const json = await this.client.get(this.recordKey(id));
    return json === null ? undefined : parseRecord(json);
  }

  async create(record: ConversationRecord): Promise<ConversationRecord> {
    const stored: ConversationRecord = { ...record, version: 1 };
    const items = this.itemKeys(record);
    const ok = await this.client.eval(CREATE, 1 + items.length, this.recordKey(record.id), ...items, JSON.stringify(stored), this.ttl(record), record.id);
    if (Number(ok) !== 1) throw new Error(`A stored response with id ${record.id} already exists.`);
    return stored;
  }

  async update(record: ConversationRecord, expectedVersion: number): Promise<ConversationRecord | undefined> {
    const next: ConversationRecord = { ...record, version: expectedVersion + 1 };
    const items = this.itemKeys(record);
    const ok = await this.client.eval(UPDATE, 2 + items.length, this.recordKey(record.id), this.eventsKey(record.id), ...items, expectedVersion, JSON.stringify(next), this.ttl(record), record.id);
    return Number(ok) === 1 ? next : undefined;
  }

  async delete(id: string): Promise<boolean> {
    const n = await this.client.eval(DELETE, 2, this.recordKey(id), this.eventsKey(id));
    return Number(n) > 0;
  }

  async findItem(ownerId: string, itemId: string): Promise<ConversationRecord | undefined> {
    // An entry may outlive a deleted record (it expires with it): the record is read and checked.
    const id = await this.client.get(this.itemKey(ownerId, itemId));
    const record = id === null ? undefined : await this.get(id);
    return record?.ownerId === ownerId ? record : undefined;
  }

  async appendEvents(id: string, events: StoredEvent[]): Promise<void> {
    if (!events.length) return;
    await this.client.eval(APPEND, 2, this.recordKey(id), this.eventsKey(id), ...events.map((e) => JSON.stringify(e)));
  }

  async events(id: string, from: number): Promise<StoredEvent[]> {
    const list = await this.client.eval(RANGE, 1, this.eventsKey(id), Math.max(0, from));
    return Array.isArray(list) ? list.map((e) => JSON.parse(String(e)) as StoredEvent) : [];
  }
}

function parseRecord(json: string): ConversationRecord {
  const value = JSON.parse(json) as unknown;
  if (!value || typeof value !== 'object' || typeof (value as { id?: unknown }).id !== 'string') throw new Error('Corrupt stored response in Redis.');
  return value as ConversationRecord;
}
