/**
 * Task records in the control plane's database: the video service's TaskStore (compare-and-set
 * updates, idempotency keys, leased claims of due work, so several instances share one table) and
 * the task center's reads (every key's tasks, filtered, newest first). The record's `data` is JSON
 * text; status, progress, model, provider, a prompt summary, times and cost are columns beside it
 * for the lists.
 */
import type { Expression, ExpressionBuilder, Kysely, Selectable, SqlBool } from 'kysely';
import type { Database } from '../db/database.js';
import type { TasksTable } from '../db/schema-tasks.js';
import type { CreateTaskResult, TaskRecord, TaskStore } from '../../tasks/task-store.js';

const PROMPT_SUMMARY_CHARS = 200;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v));
const obj = (v: unknown): Record<string, unknown> => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {});
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const finite = (v: unknown): number | null => (typeof v === 'number' && Number.isFinite(v) ? v : null);

/** The list columns of a record, read from its data (a video task's fields; other kinds leave them blank). */
function listColumns(task: TaskRecord): Pick<TasksTable, 'status' | 'progress' | 'model' | 'provider' | 'prompt_summary' | 'created_at' | 'updated_at' | 'completed_at' | 'cost_usd'> {
  const d = task.data;
  // A caller's text: NUL (which PostgreSQL's text refuses) replaced.
  const prompt = str(obj(d.job).prompt).replaceAll('\u0000', '\uFFFD');
  return {
    status: str(d.status) || 'unknown',
    progress: finite(d.progress) ?? 0,
    model: str(d.model),
    provider: str(d.providerId),
    prompt_summary: prompt.length > PROMPT_SUMMARY_CHARS ? `${prompt.slice(0, PROMPT_SUMMARY_CHARS - 1)}…` : prompt,
    created_at: finite(d.createdAt) ?? 0,
    updated_at: finite(d.updatedAt) ?? 0,
    completed_at: finite(d.completedAt),
    cost_usd: finite(d.costUsd),
  };
}

function toRecord(row: Selectable<TasksTable>): TaskRecord {
  return {
    id: row.id,
    kind: row.kind,
    ownerId: row.owner_id,
    version: num(row.version),
    dueAt: numOrNull(row.due_at),
    expiresAt: num(row.expires_at),
    data: JSON.parse(row.data) as Record<string, unknown>,
  };
}

/** One line of the task center's list. */
export interface TaskListEntry {
  record: TaskRecord;
  status: string;
  progress: number;
  model: string;
  provider: string;
  promptSummary: string;
  createdAt: number;
  updatedAt: number;
  completedAt: number | null;
  costUsd: number | null;
}

export interface TaskListFilter {
  keyId?: string;
  model?: string;
  status?: string;
}

/** Rounds of "release an expired holder, insert, read the holder" before create gives up. */
const CREATE_ATTEMPTS = 3;

export class SqlTaskStore implements TaskStore {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number = Date.now,
  ) {}

  async get(id: string): Promise<TaskRecord | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('id', '=', id).where('expires_at', '>', this.now()).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  /**
   * With an idempotency key, one statement decides: INSERT ... ON CONFLICT (idempotency_key) DO
   * NOTHING. Of any number of creators on any number of instances, exactly one inserts (the
   * unique index serialises them; PostgreSQL makes a second inserter wait for the first one's
   * commit); every other reads the winner's task. A key held only by an expired task is released
   * first, and only such a one: a live holder is never robbed of its key.
   */
  async create(task: TaskRecord, idempotencyKey?: string): Promise<CreateTaskResult> {
    const stored: TaskRecord = { ...task, version: 1 };
    const values = { id: stored.id, kind: stored.kind, owner_id: stored.ownerId, version: 1, due_at: stored.dueAt, lease_until: null, expires_at: stored.expiresAt, idempotency_key: idempotencyKey ?? null, data: JSON.stringify(stored.data), ...listColumns(stored) };
    if (idempotencyKey === undefined) {
      await this.db.insertInto('tasks').values(values).execute();
      return { task: structuredClone(stored), created: true };
    }
    for (let attempt = 0; attempt < CREATE_ATTEMPTS; attempt++) {
      await this.db.updateTable('tasks').set({ idempotency_key: null }).where('idempotency_key', '=', idempotencyKey).where('expires_at', '<=', this.now()).execute();
      const inserted = await this.db
        .insertInto('tasks')
        .values(values)
        .onConflict((oc) => oc.column('idempotency_key').doNothing())
        .returning('id')
        .executeTakeFirst();
      if (inserted) return { task: structuredClone(stored), created: true };
      const holder = await this.byIdempotencyKey(idempotencyKey);
      if (holder) return { task: holder, created: false };
      // The holder expired or released the key between the two statements: decide again.
    }
    throw new Error('the task store could not settle an idempotency key held by a task that keeps expiring or being released');
  }

  private async byIdempotencyKey(key: string): Promise<TaskRecord | undefined> {
    const row = await this.db.selectFrom('tasks').selectAll().where('idempotency_key', '=', key).where('expires_at', '>', this.now()).executeTakeFirst();
    return row ? toRecord(row) : undefined;
  }

  async update(task: TaskRecord, expectedVersion: number): Promise<TaskRecord | undefined> {
    const next: TaskRecord = { ...task, version: expectedVersion + 1 };
    const r = await this.db
      .updateTable('tasks')
      .set({ version: next.version, due_at: next.dueAt, lease_until: null, expires_at: next.expiresAt, owner_id: next.ownerId, data: JSON.stringify(next.data), ...listColumns(next) })
      .where('id', '=', task.id)
      .where('version', '=', expectedVersion)
      .where('expires_at', '>', this.now())
      .executeTakeFirst();
    return num(r.numUpdatedRows) === 1 ? structuredClone(next) : undefined;
  }

  async claimDue(now: number, leaseMs: number, limit: number): Promise<string[]> {
    const free = (eb: ExpressionBuilder<Database, 'tasks'>): Expression<SqlBool> =>
      eb.and([eb('due_at', '<=', now), eb('expires_at', '>', now), eb.or([eb('lease_until', 'is', null), eb('lease_until', '<=', now)])]);
    const candidates = this.db.selectFrom('tasks').select('id').where(free).orderBy('due_at').limit(limit);
    // The conditions again on the row updated: of two instances claiming at once, the second finds it leased.
    const claimed = await this.db
      .updateTable('tasks')
      .set({ lease_until: now + leaseMs })
      .where('id', 'in', candidates)
      .where(free)
      .returning('id')
      .execute();
    return claimed.map((r) => r.id);
  }

  async releaseIdempotencyKey(idempotencyKey: string, taskId: string): Promise<void> {
    await this.db.updateTable('tasks').set({ idempotency_key: null }).where('idempotency_key', '=', idempotencyKey).where('id', '=', taskId).execute();
  }

  /** The task center's list: newest first, filtered, after the cursor of the last line of the page before. */
  async list(filter: TaskListFilter, page: { limit: number; after?: { createdAt: number; id: string } }): Promise<{ tasks: TaskListEntry[]; hasMore: boolean }> {
    const now = this.now();
    let q = this.db.selectFrom('tasks').selectAll().where('expires_at', '>', now);
    if (filter.keyId !== undefined) q = q.where('owner_id', '=', filter.keyId);
    if (filter.model !== undefined) q = q.where('model', '=', filter.model);
    if (filter.status !== undefined) q = q.where('status', '=', filter.status);
    const after = page.after;
    if (after) q = q.where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb.and([eb('created_at', '=', after.createdAt), eb('id', '<', after.id)])]));
    const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute();
    return {
      tasks: rows.slice(0, page.limit).map((r) => ({
        record: toRecord(r),
        status: r.status,
        progress: num(r.progress),
        model: r.model,
        provider: r.provider,
        promptSummary: r.prompt_summary,
        createdAt: num(r.created_at),
        updatedAt: num(r.updated_at),
        completedAt: numOrNull(r.completed_at),
        costUsd: numOrNull(r.cost_usd),
      })),
      hasMore: rows.length > page.limit,
    };
  }

  /** Forgets tasks that expired before `now`, at most `limit` at a time; returns how many. */
  async purgeExpired(now: number, limit = 1000): Promise<number> {
    const ids = this.db.selectFrom('tasks').select('id').where('expires_at', '<=', now).limit(limit);
    const r = await this.db.deleteFrom('tasks').where('id', 'in', ids).executeTakeFirst();
    return num(r.numDeletedRows);
  }
}
