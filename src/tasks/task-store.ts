/**
 * Storage of asynchronous tasks (video generations). An in-memory
 * store is the default; a Redis store lets several gateway instances share tasks, so a task
 * created on one instance is readable and advanced from any other.
 */

/** One stored task. The kind-specific state lives in `data` and is validated by its owner. */
export interface TaskRecord {
  id: string;
  /** What the task is, e.g. `video`. */
  kind: string;
  /** The principal that created it; only it may read the task. */
  ownerId: string;
  /** 1 when created, +1 on every successful update (compare-and-set). */
  version: number;
  /** Epoch ms when background work (poll, callback) is next due; null when there is none. */
  dueAt: number | null;
  /** Epoch ms after which the store may forget the task. */
  expiresAt: number;
  data: Record<string, unknown>;
}

export interface CreateTaskResult {
  task: TaskRecord;
  /** False when the idempotency key already named a task; `task` is that task then. */
  created: boolean;
}

export interface TaskStore {
  get(id: string): Promise<TaskRecord | undefined>;
  /**
   * Stores a new task. With an idempotency key, atomically: when the key already names a task,
   * nothing is written and that task is returned instead (even across instances).
   */
  create(task: TaskRecord, idempotencyKey?: string): Promise<CreateTaskResult>;
  /**
   * Compare-and-set: writes `task` with version `expectedVersion + 1` when the stored version is
   * still `expectedVersion`. Returns the written record, or undefined on a conflict or when the
   * task is gone.
   */
  update(task: TaskRecord, expectedVersion: number): Promise<TaskRecord | undefined>;
  /**
   * Ids of tasks whose dueAt <= now (at most `limit`), leased for `leaseMs`: other callers will
   * not get them again until the lease ends or the task is updated.
   */
  claimDue(now: number, leaseMs: number, limit: number): Promise<string[]>;
  /** Drops an idempotency key if it still names `taskId` (used when a submission failed). */
  releaseIdempotencyKey(idempotencyKey: string, taskId: string): Promise<void>;
}
