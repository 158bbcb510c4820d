import type { CreateTaskResult, TaskRecord, TaskStore } from './task-store.js';

/**
 * The few Redis commands the store needs. An ioredis or node-redis v4 (`{ EVAL }` aside) client
 * fits; the gateway never imports a Redis library itself.
 */
export interface RedisTaskClient {
  get(key: string): Promise<string | null>;
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

export interface RedisTaskStoreOptions {
  /** Prepended to every key (default `modelgate:`). */
  prefix?: string;
  now?: () => number;
}

// Scripts keep each change atomic across instances. Note for Redis Cluster: they touch keys derived
// from arguments (the task key of an idempotency hit, tasks named in the due set), so all keys of
// one prefix must live on one node (use a hash tag in the prefix, e.g. `{modelgate}:`).

/** KEYS: task, due set, [idempotency]. ARGV: id, json, ttlMs, dueAt|'', task key prefix. */
const CREATE = `
if #KEYS == 3 then
  local existing = redis.call('GET', KEYS[3])
  if existing then
    local t = redis.call('GET', ARGV[5] .. existing)
    if t then return {0, t} end
  end
  redis.call('SET', KEYS[3], ARGV[1], 'PX', ARGV[3])
end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] ~= '' then redis.call('ZADD', KEYS[2], ARGV[4], ARGV[1]) end
return {1, ARGV[2]}
`;

/** KEYS: task, due set. ARGV: expected version, json, ttlMs, dueAt|'', id. */
const UPDATE = `
local cur = redis.call('GET', KEYS[1])
if not cur then return 0 end
local ok, decoded = pcall(cjson.decode, cur)
if not ok or tonumber(decoded.version) ~= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
if ARGV[4] == '' then redis.call('ZREM', KEYS[2], ARGV[5]) else redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5]) end
return 1
`;

/** KEYS: due set. ARGV: now, lease until, limit, task key prefix. */
const CLAIM = `
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local out = {}
for _, id in ipairs(ids) do
  if redis.call('EXISTS', ARGV[4] .. id) == 1 then
    redis.call('ZADD', KEYS[1], ARGV[2], id)
    table.insert(out, id)
  else
    redis.call('ZREM', KEYS[1], id)
  end
end
return out
`;

/** KEYS: idempotency. ARGV: task id. */
const RELEASE = `
if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('DEL', KEYS[1]) end
return 1
`;

/** Tasks in Redis, shared by every gateway instance that uses the same client and prefix. */
export class RedisTaskStore implements TaskStore {
  private readonly prefix: string;
  private readonly now: () => number;

  constructor(private readonly client: RedisTaskClient, options: RedisTaskStoreOptions = {}) {
    this.prefix = options.prefix ?? 'modelgate:';
    this.now = options.now ?? Date.now;
  }

  private taskKey(id: string): string {
    return `${this.prefix}task:${id}`;
  }

  private get dueKey(): string {
    return `${this.prefix}tasks-due`;
  }

  private ttl(task: TaskRecord): number {
    return Math.max(1, Math.ceil(task.expiresAt - this.now()));
  }

  async get(id: string): Promise<TaskRecord | undefined> {
    const json = await this.client.get(this.taskKey(id));
    return json === null ? undefined : parseRecord(json);
  }

  async create(task: TaskRecord, idempotencyKey?: string): Promise<CreateTaskResult> {
    const stored: TaskRecord = { ...task, version: 1 };
    const keys = [this.taskKey(task.id), this.dueKey];
    if (idempotencyKey !== undefined) keys.push(`${this.prefix}idem:${idempotencyKey}`);
    const result = await this.client.eval(
      CREATE,
      keys.length,
      ...keys,
      task.id,
      JSON.stringify(stored),
      this.ttl(task),
      task.dueAt === null ? '' : Math.round(task.dueAt),
      `${this.prefix}task:`,
    );
    if (!Array.isArray(result) || typeof result[1] !== 'string') throw new Error('Unexpected answer from the Redis task store.');
    return { task: parseRecord(result[1]), created: Number(result[0]) === 1 };
  }

  async update(task: TaskRecord, expectedVersion: number): Promise<TaskRecord | undefined> {
    const next: TaskRecord = { ...task, version: expectedVersion + 1 };
    const ok = await this.client.eval(
      UPDATE,
      2,
      this.taskKey(task.id),
      this.dueKey,
      expectedVersion,
      JSON.stringify(next),
      this.ttl(task),
      task.dueAt === null ? '' : Math.round(task.dueAt),
      task.id,
    );
    return Number(ok) === 1 ? next : undefined;
  }

  async claimDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    const ids = await this.client.eval(CLAIM, 1, this.dueKey, Math.floor(now), Math.round(now + leaseMs), limit, `${this.prefix}task:`);
    return Array.isArray(ids) ? ids.map(String) : [];
  }

  async releaseIdempotencyKey(idempotencyKey: string, taskId: string): Promise<void> {
    await this.client.eval(RELEASE, 1, `${this.prefix}idem:${idempotencyKey}`, taskId);
  }
}

function parseRecord(json: string): TaskRecord {
  const value = JSON.parse(json) as unknown;
  if (!value || typeof value !== 'object' || typeof (value as { id?: unknown }).id !== 'string') {
    throw new Error('Corrupt task record in Redis.');
  }
  return value as TaskRecord;
}
