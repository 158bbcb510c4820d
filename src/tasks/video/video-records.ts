/**
 * Video task records in the task store: typed reads, compare-and-set writes (instances never
 * clobber each other; the loser re-reads) and a notice for every recorded status change.
 */
import { GatewayError } from '../../core/errors.js';
import type { TaskRecord, TaskStore } from '../task-store.js';
import { toVideoTask, withData, type VideoStatus, type VideoTask, type VideoTaskData } from './video-task.js';

/** Told after a status change was stored; `from` is null for a new task. Its errors are ignored. */
export type VideoStatusObserver = (task: VideoTask, from: VideoStatus | null, to: VideoStatus) => void;

export class VideoTaskRecords {
  constructor(
    readonly store: TaskStore,
    private readonly onStatusChange: VideoStatusObserver | undefined,
  ) {}

  async load(id: string): Promise<VideoTask | undefined> {
    const record = await this.store.get(id);
    return record ? toVideoTask(record) : undefined;
  }

  /** A new task; with an idempotency key, the id of the task the key already names instead. */
  async create(record: TaskRecord, data: VideoTaskData, idempotencyKey: string | undefined): Promise<{ task: VideoTask } | { existingId: string }> {
    const created = await this.store.create(withData(record, data), idempotencyKey);
    if (!created.created) return { existingId: created.task.id };
    const task = { record: created.task, data };
    this.notify(task, null);
    return { task };
  }

  /** Compare-and-set write of new data; undefined when someone else wrote first. */
  async save(task: VideoTask, data: VideoTaskData): Promise<VideoTask | undefined> {
    const written = await this.store.update(withData(task.record, data), task.record.version);
    if (!written) return undefined;
    const saved = { record: written, data };
    if (data.status !== task.data.status) this.notify(saved, task.data.status);
    return saved;
  }

  /** Saves `change(latest)`, re-reading on conflicts; 503 when the store stays contended. */
  async saveWithRetry(task: VideoTask, change: (d: VideoTaskData) => VideoTaskData): Promise<VideoTask> {
    let current = task;
    for (let i = 0; i < 5; i++) {
      const saved = await this.save(current, change(current.data));
      if (saved) return saved;
      const reloaded = await this.load(current.record.id);
      if (!reloaded) break;
      current = reloaded;
    }
    throw new GatewayError('unavailable', 'The task store is busy; try again.');
  }

  private notify(task: VideoTask, from: VideoStatus | null): void {
    try {
      this.onStatusChange?.(task, from, task.data.status);
    } catch {
      // An observer (metrics) must not change what happens to the task.
    }
  }
}
