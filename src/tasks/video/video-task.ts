/** The video generation task: its stored state, its public shape, and its state machine. */
import { z } from 'zod';
import type { TaskRecord } from '../task-store.js';

export const VIDEO_TASK_KIND = 'video';

export const VIDEO_STATUSES = ['accepted', 'queued', 'in_progress', 'succeeded', 'failed', 'cancelled'] as const;
export type VideoStatus = (typeof VIDEO_STATUSES)[number];

export function isTerminal(status: VideoStatus): boolean {
  return status === 'succeeded' || status === 'failed' || status === 'cancelled';
}

const errorSchema = z.object({ code: z.string(), message: z.string() });

const videoJobSchema = z.object({
  prompt: z.string(),
  durationSeconds: z.number(),
  aspectRatio: z.string(),
  resolution: z.string(),
  negativePrompt: z.string().optional(),
  personGeneration: z.string().optional(),
  generateAudio: z.boolean().optional(),
});

const videoTaskDataSchema = z.object({
  requestId: z.string(),
  /** SHA-256 of the request, to tell a true retry from a reused Request-Id. */
  fingerprint: z.string(),
  model: z.string(),
  providerId: z.string(),
  upstreamModel: z.string(),
  /** Set when the caller's own upstream credential made the job (see video-credential.ts); never the key itself. */
  ownCredential: z.enum(['config-key', 'principal']).nullable().default(null),
  /** The upstream's job id (OpenAI video id, Veo operation name); null until submitted. */
  upstreamId: z.string().nullable(),
  status: z.enum(VIDEO_STATUSES),
  progress: z.number(),
  createdAt: z.number(),
  updatedAt: z.number(),
  startedAt: z.number().nullable(),
  completedAt: z.number().nullable(),
  error: errorSchema.nullable(),
  /** Where the upstream keeps the results; never shown to callers. */
  outputs: z.array(z.object({ ref: z.string(), contentType: z.string().nullable() })),
  upstreamExpiresAt: z.number().nullable(),
  /** USD the job costs at the model's `pricing.perVideoSecond` (null: no such price, or the upstream refused it). */
  costUsd: z.number().nullable().default(null),
  /** When its owner deleted it (OpenAI's DELETE /v1/videos/{id}): gone for that key, still in the operator's task center. */
  deletedAt: z.number().nullable().default(null),
  job: videoJobSchema,
  poll: z.object({
    count: z.number(),
    failures: z.number(),
    lastPolledAt: z.number().nullable(),
    nextAt: z.number().nullable(),
  }),
  callback: z
    .object({
      url: z.string(),
      attempts: z.number(),
      nextAt: z.number().nullable(),
      delivered: z.boolean(),
      lastError: z.string().nullable(),
    })
    .nullable(),
});
export type VideoTaskData = z.infer<typeof videoTaskDataSchema>;

export interface VideoTask {
  record: TaskRecord;
  data: VideoTaskData;
}

export function toVideoTask(record: TaskRecord): VideoTask | undefined {
  if (record.kind !== VIDEO_TASK_KIND) return undefined;
  const parsed = videoTaskDataSchema.safeParse(record.data);
  return parsed.success ? { record, data: parsed.data } : undefined;
}

/** The record to store for `data`: dueAt follows from the pending poll and callback. */
export function withData(record: TaskRecord, data: VideoTaskData): TaskRecord {
  const times = [data.poll.nextAt, data.callback && !data.callback.delivered ? data.callback.nextAt : null].filter((t): t is number => t !== null);
  return { ...record, dueAt: times.length ? Math.min(...times) : null, data: { ...data } };
}

function contentPath(taskId: string, index: number): string {
  const base = `/v1/video/generations/${encodeURIComponent(taskId)}/content`;
  return index === 0 ? base : `${base}?index=${index}`;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/** What GET /v1/video/generations/{id} answers and what callbacks carry. */
export function publicVideoTask(task: VideoTask): Record<string, unknown> {
  const d = task.data;
  const urls = d.status === 'succeeded' ? d.outputs.map((_o, i) => contentPath(task.record.id, i)) : [];
  return {
    id: task.record.id,
    task_id: task.record.id,
    object: 'video.generation',
    request_id: d.requestId,
    model: d.model,
    status: d.status,
    progress: d.progress,
    created_at: seconds(d.createdAt),
    updated_at: seconds(d.updatedAt),
    started_at: seconds(d.startedAt),
    completed_at: seconds(d.completedAt),
    error: d.error,
    result: urls.length ? { url: urls[0], urls, content_type: d.outputs[0]?.contentType ?? 'video/mp4' } : null,
    expires_at: seconds(d.upstreamExpiresAt),
    prompt: d.job.prompt,
    metadata: {
      durationSeconds: d.job.durationSeconds,
      aspectRatio: d.job.aspectRatio,
      resolution: d.job.resolution,
      ...(d.job.negativePrompt !== undefined ? { negativePrompt: d.job.negativePrompt } : {}),
      ...(d.job.personGeneration !== undefined ? { personGeneration: d.job.personGeneration } : {}),
      ...(d.job.generateAudio !== undefined ? { generateAudio: d.job.generateAudio } : {}),
    },
  };
}
