import type { CreateTaskResult, TaskRecord, TaskStore } from './task-store.js';

interface Entry {
  /** Serialized, so callers never share mutable objects with the store. */
  json: string;
  expiresAt: number;
}

const PRUNE_EVERY_MS = 60_000;

/** The default task store: one process, tasks kept until they expire. */
export class MemoryTaskStore implements TaskStore {
  private readonly tasks = new Map<string, Entry>();
  private readonly idempotency = new Map<string, { taskId: string; expiresAt: number }>();
  private readonly due = new Map<string, number>();
  private lastPrune = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async get(id: string): Promise<TaskRecord | undefined> {
    const entry = this.live(id);
    return entry ? (JSON.parse(entry.json) as TaskRecord) : undefined;
  }

  async create(task: TaskRecord, idempotencyKey?: string): Promise<CreateTaskResult> {
    this.prune();
    if (idempotencyKey !== undefined) {
      const known = this.idempotency.get(idempotencyKey);
      const existing = known && known.expiresAt > this.now() ? this.live(known.taskId) : undefined;
      if (existing) return { task: JSON.parse(existing.json) as TaskRecord, created: false };
      this.idempotency.set(idempotencyKey, { taskId: task.id, expiresAt: task.expiresAt });
    }
    const stored: TaskRecord = { ...task, version: 1 };
    this.write(stored);
    return { task: JSON.parse(JSON.stringify(stored)) as TaskRecord, created: true };
  }

  async update(task: TaskRecord, expectedVersion: number): Promise<TaskRecord | undefined> {
    const entry = this.live(task.id);
    if (!entry) return undefined;
    const current = JSON.parse(entry.json) as TaskRecord;
    if (current.version !== expectedVersion) return undefined;
    const next: TaskRecord = { ...task, version: expectedVersion + 1 };
    this.write(next);
    return JSON.parse(JSON.stringify(next)) as TaskRecord;
  }

  async claimDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    this.prune();
    const out: string[] = [];
    for (const [id, at] of this.due) {
      if (out.length >= limit) break;
      if (at > now) continue;
      if (!this.live(id)) {
        this.due.delete(id);
        continue;
      }
      this.due.set(id, now + leaseMs);
      out.push(id);
    }
    return out;
  }

  async releaseIdempotencyKey(idempotencyKey: string, taskId: string): Promise<void> {
    if (this.idempotency.get(idempotencyKey)?.taskId === taskId) this.idempotency.delete(idempotencyKey);
  }

  private write(task: TaskRecord): void {
    this.tasks.set(task.id, { json: JSON.stringify(task), expiresAt: task.expiresAt });
    if (task.dueAt === null) this.due.delete(task.id);
    else this.due.set(task.id, task.dueAt);
  }

  private live(id: string): Entry | undefined {
    const entry = this.tasks.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt <= this.now()) {
      this.tasks.delete(id);
      this.due.delete(id);
      return undefined;
    }
    return entry;
  }

  /** Forgets expired tasks and keys now and then, so the maps stay bounded by the retention time. */
  private prune(): void {
    const now = this.now();
    if (now - this.lastPrune < PRUNE_EVERY_MS) return;
    this.lastPrune = now;
    for (const [id, entry] of this.tasks) {
      if (entry.expiresAt <= now) {
        this.tasks.delete(id);
        this.due.delete(id);
      }
    }
    for (const [key, v] of this.idempotency) if (v.expiresAt <= now) this.idempotency.delete(key);
  }
}
