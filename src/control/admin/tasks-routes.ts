/**
 * The task center: `GET /admin/v1/tasks` (every key's video tasks, newest first, filtered by
 * keyId, model, status), `GET /tasks/{id}`, `POST /tasks/{id}/cancel` (the operator stops a task)
 * and `GET /tasks/{id}/content` (the finished video, streamed from the upstream).
 */
import { GatewayError } from '../../core/errors.js';
import { Reply } from '../../reply/reply.js';
import { publicVideoTask, VIDEO_STATUSES, type VideoTask } from '../../tasks/video/video-task.js';
import { quoteInput } from '../../core/quote-input.js';
import type { TaskListEntry } from '../tasks/sql-task-store.js';
import { adminJson, keyNames, listQuery, type AdminContext, type AdminRoute } from './http.js';
import { taskEntrySchema, taskSchema } from './ledger-wire.js';
import { recordAudit } from '../audit/audit-log.js';

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** A list line as the API answers it. */
function wireEntry(e: TaskListEntry, keyName: (id: string) => string | null): Record<string, unknown> {
  return {
    object: 'task',
    id: e.record.id,
    kind: e.record.kind,
    keyId: e.record.ownerId,
    keyName: keyName(e.record.ownerId),
    status: e.status,
    progress: e.progress,
    model: e.model,
    provider: e.provider,
    promptSummary: e.promptSummary,
    createdAt: iso(e.createdAt),
    updatedAt: iso(e.updatedAt),
    completedAt: iso(e.completedAt),
    costUsd: e.costUsd,
    error: errorOf(e.record.data.error),
  };
}

/** Why a task failed, as its record keeps it (null while it has not). */
function errorOf(v: unknown): { code: string; message: string } | null {
  if (!v || typeof v !== 'object') return null;
  const { code, message } = v as { code?: unknown; message?: unknown };
  return typeof code === 'string' && typeof message === 'string' ? { code, message } : null;
}

/** One task in full: the list line's fields, its error, outputs and settings, and where its video is. */
function wireTask(task: VideoTask, keyName: (id: string) => string | null): Record<string, unknown> {
  const d = task.data;
  const pub = publicVideoTask(task);
  const prompt = d.job.prompt;
  const id = task.record.id;
  return {
    object: 'task',
    id,
    kind: task.record.kind,
    keyId: task.record.ownerId,
    keyName: keyName(task.record.ownerId),
    requestId: d.requestId,
    status: d.status,
    progress: d.progress,
    model: d.model,
    provider: d.providerId,
    promptSummary: prompt.length > 200 ? `${prompt.slice(0, 199)}…` : prompt,
    prompt,
    createdAt: iso(d.createdAt),
    updatedAt: iso(d.updatedAt),
    startedAt: iso(d.startedAt),
    completedAt: iso(d.completedAt),
    expiresAt: iso(d.upstreamExpiresAt),
    costUsd: d.costUsd,
    error: d.error,
    outputs: d.status === 'succeeded' ? d.outputs.map((o, i) => ({ index: i, contentType: o.contentType ?? 'video/mp4', url: `/admin/v1/tasks/${encodeURIComponent(id)}/content${i ? `?index=${i}` : ''}` })) : [],
    settings: pub.metadata,
  };
}

/** What the audit log keeps of a task: its state, not the prompt. */
function auditView(t: Record<string, unknown>): Record<string, unknown> {
  return { id: t.id, keyId: t.keyId, model: t.model, status: t.status, progress: t.progress };
}

function parseCursor(after: string): { createdAt: number; id: string } {
  const m = /^(\d{1,16})_(.+)$/.exec(after);
  if (!m) throw new GatewayError('invalid_request', "The query parameter 'after' is not a cursor of this list; pass the nextCursor of the previous page.", { param: 'after' });
  return { createdAt: Number(m[1]), id: m[2] as string };
}

async function taskOf(admin: AdminContext, id: string | undefined): Promise<VideoTask> {
  return admin.ctx.services.videoTasks.findAny(id ?? '');
}

export const TASKS_ROUTES: readonly AdminRoute[] = [
  {
    method: 'GET',
    route: '/tasks',
    access: 'read',
    doc: { summary: "The task center: every key's video tasks, newest first.", response: taskEntrySchema, list: { filters: ['keyId', 'model', 'status'] } },
    handler: async (admin) => {
      const { ctx, control } = admin;
      const q = listQuery(ctx.url, ['keyId', 'model', 'status']);
      if (!ctx.services.tasksInStore) {
        throw new GatewayError('conflict', "This gateway keeps its task records in the host's task store (e.g. Redis), not in the control plane's database, so they cannot be listed here. Read one by id, or run on PostgreSQL.", { detail: 'tasks_not_in_store' });
      }
      const { keyId, model, status } = q.filters;
      if (status !== undefined && !(VIDEO_STATUSES as readonly string[]).includes(status)) {
        throw new GatewayError('invalid_request', `The query parameter 'status' must be one of ${VIDEO_STATUSES.join(', ')}, got '${quoteInput(status, 40)}'.`, { param: 'status' });
      }
      const { tasks, hasMore } = await control.tasks.list(
        { ...(keyId !== undefined ? { keyId } : {}), ...(model !== undefined ? { model } : {}), ...(status !== undefined ? { status } : {}) },
        { limit: q.limit, ...(q.after ? { after: parseCursor(q.after) } : {}) },
      );
      const last = tasks[tasks.length - 1];
      const name = keyNames(admin);
      return adminJson(ctx, { object: 'list', data: tasks.map((t) => wireEntry(t, name)), hasMore, nextCursor: hasMore && last ? `${last.createdAt}_${last.record.id}` : null });
    },
  },
  {
    method: 'GET',
    route: '/tasks/{id}',
    access: 'read',
    doc: { summary: 'One task in full (refreshed from the upstream when stale).', response: taskSchema },
    handler: async (admin, params) => {
      const task = await taskOf(admin, params.id);
      return adminJson(admin.ctx, wireTask(await admin.ctx.services.videoTasks.read(task, undefined), keyNames(admin)));
    },
  },
  {
    method: 'POST',
    route: '/tasks/{id}/cancel',
    access: 'write',
    doc: { summary: 'Cancel a task (the upstream is asked to drop the job); a finished task stays as it is.', response: taskSchema },
    handler: async (admin, params) => {
      const task = await taskOf(admin, params.id);
      const name = keyNames(admin);
      const before = wireTask(task, name);
      const after = wireTask(await admin.ctx.services.videoTasks.cancel(task, undefined), name);
      if (before.status !== after.status) {
        await recordAudit(admin.control.db, { actor: admin.actor.id, action: 'task.cancel', targetType: 'task', targetId: task.record.id, before: auditView(before), after: auditView(after) }, admin.control.now());
      }
      return adminJson(admin.ctx, after);
    },
  },
  {
    method: 'GET',
    route: '/tasks/{id}/content',
    access: 'read',
    doc: { summary: 'The video of a finished task, streamed from the upstream.', query: ['index'], contentType: 'video/mp4' },
    handler: async (admin, params) => {
      const ctx = admin.ctx;
      for (const [name] of ctx.url.searchParams) {
        if (name !== 'index') throw new GatewayError('invalid_request', `Unknown query parameter '${name.slice(0, 40)}'; this route takes 'index'.`, { param: name.slice(0, 40) });
      }
      const task = await taskOf(admin, params.id);
      const rawIndex = ctx.url.searchParams.get('index') ?? '0';
      const index = /^\d+$/.test(rawIndex) ? Number(rawIndex) : -1;
      const content = await ctx.services.videoTasks.content(task, undefined, index, ctx.signal);
      const headers = new Headers({
        'content-type': content.contentType,
        'content-disposition': `attachment; filename="${content.fileName}"`,
        'cache-control': 'private, no-store',
      });
      if (content.contentLength) headers.set('content-length', content.contentLength);
      return new Reply(200, headers, content.body);
    },
  },
];
