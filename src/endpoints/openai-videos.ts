/**
 * OpenAI's Videos API, as the openai SDK's `client.videos` calls it, over the gateway's video tasks
 * (the same tasks as /v1/video/generations, for every configured video vendor, with polling, idempotency,
 * budgets): POST /v1/videos (create), GET /v1/videos/{id} (retrieve), GET /v1/videos (list, newest
 * first; needs the control plane's task records), DELETE /v1/videos/{id} (delete: a running job is
 * cancelled; afterwards 404 for the key), GET /v1/videos/{id}/content (the MP4). Answers are
 * OpenAI's Video object: status queued | in_progress | completed | failed (a cancelled task is
 * failed with the code `cancelled`), `seconds` a string, `size` as `WxH`.
 */
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { openAIVideoForm, openAIVideoRequest, openAIVideoSize } from '../protocols/videos/index.js';
import { toVideoTask, type VideoStatus, type VideoTask } from '../tasks/video/video-task.js';
import type { EndpointContext } from './services.js';
import { authenticate, jsonResponse } from './common.js';
import { getVideoContent, ownTask, renamedParam, submitVideo } from './videos.js';
import type { Reply } from '../reply/reply.js';
import { quoteInput } from '../core/quote-input.js';

const seconds = (ms: number | null): number | null => (ms === null ? null : Math.floor(ms / 1000));

const STATUS: Record<VideoStatus, 'queued' | 'in_progress' | 'completed' | 'failed'> = {
  accepted: 'queued',
  queued: 'queued',
  in_progress: 'in_progress',
  succeeded: 'completed',
  failed: 'failed',
  cancelled: 'failed',
};

/** A task as OpenAI's Video object. */
export function openAIVideoObject(task: VideoTask): Record<string, unknown> {
  const d = task.data;
  const error = d.error ?? (d.status === 'cancelled' ? { code: 'cancelled', message: 'The video generation was cancelled.' } : null);
  return {
    id: task.record.id,
    object: 'video',
    model: d.model,
    status: STATUS[d.status],
    progress: Math.round(d.progress),
    created_at: seconds(d.createdAt) as number,
    completed_at: seconds(d.completedAt),
    expires_at: seconds(d.upstreamExpiresAt),
    error,
    prompt: d.job.prompt,
    remixed_from_video_id: null,
    seconds: String(d.job.durationSeconds),
    size: openAIVideoSize(d.job.aspectRatio, d.job.resolution),
  };
}

/** The video job's field names in a refusal, as this API's caller sent them (`seconds`, `size`). */
const OPENAI_PARAMS: Record<string, string> = { duration: 'seconds', 'metadata.durationSeconds': 'seconds', 'metadata.aspectRatio': 'size', 'metadata.resolution': 'size' };


/** POST /v1/videos (multipart/form-data as the SDK sends it, or JSON) */
export async function createVideo(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const contentType = ctx.request.headers.get('content-type') ?? '';
  const fields = /^multipart\/form-data/i.test(contentType) ? await openAIVideoForm(await ctx.body.bytes(), contentType) : parseJsonObject(await ctx.body.text());
  const result = await submitVideo(ctx, principal, openAIVideoRequest(fields)).catch((err: unknown) => {
    throw renamedParam(err, OPENAI_PARAMS, (message, param) => (param === 'size' ? `${message} (from 'size')` : message));
  });
  const task = await ctx.services.videoTasks.find(result.taskId, principal);
  return jsonResponse(ctx, openAIVideoObject(task), 200, result.replayed ? { 'idempotent-replayed': 'true' } : undefined);
}

/** GET /v1/videos/{id} */
export async function retrieveVideo(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, params);
  return jsonResponse(ctx, openAIVideoObject(await ctx.services.videoTasks.read(task, principal)));
}

/** DELETE /v1/videos/{id} */
export async function deleteVideo(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, params);
  await ctx.services.videoTasks.delete(task, principal);
  return jsonResponse(ctx, { id: task.record.id, object: 'video.deleted', deleted: true });
}

/** GET /v1/videos/{id}/content[?variant=video] */
export function videoContent(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const variant = ctx.url.searchParams.get('variant');
  if (variant !== null && variant !== 'video') {
    return Promise.reject(new GatewayError('unsupported', `The variant '${quoteInput(variant, 40)}' is not available through the gateway; only 'video' is.`, { param: 'variant', detail: 'unsupported_value' }));
  }
  return getVideoContent(ctx, params);
}

/** GET /v1/videos: the key's videos, newest first, paged by `after` (a video id) and `limit`. */
export async function listVideos(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const q = ctx.url.searchParams;
  const order = q.get('order') ?? 'desc';
  if (order !== 'desc') throw new GatewayError('unsupported', "Videos are listed newest first only ('order' must be 'desc').", { param: 'order' });
  const rawLimit = q.get('limit');
  const limit = rawLimit === null ? 20 : Number(rawLimit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 100) throw new GatewayError('invalid_request', "'limit' must be an integer from 1 to 100.", { param: 'limit' });
  const control = ctx.services.control;
  if (!control || !ctx.services.tasksInStore) {
    throw new GatewayError('unsupported', "Listing videos needs the gateway's task records in its database (the control plane); retrieve each video by its id instead.", { param: null });
  }
  const afterId = q.get('after');
  const after = afterId ? await ctx.services.videoTasks.find(afterId, principal).catch(() => undefined) : undefined;
  if (afterId && !after) throw new GatewayError('invalid_request', `No video with id '${quoteInput(afterId, 80)}' to list after.`, { param: 'after' });
  const data: Array<Record<string, unknown>> = [];
  let cursor = after ? { createdAt: after.data.createdAt, id: after.record.id } : undefined;
  let hasMore = true;
  // Deleted videos are skipped: read pages until `limit` are found or none are left.
  while (data.length < limit && hasMore) {
    const page = await control.tasks.list({ keyId: principal.id }, { limit: limit + 1, ...(cursor ? { after: cursor } : {}) });
    for (const entry of page.tasks) {
      cursor = { createdAt: entry.createdAt, id: entry.record.id };
      const task = toVideoTask(entry.record);
      if (task && task.data.deletedAt === null && data.length <= limit) data.push(openAIVideoObject(task));
    }
    hasMore = page.hasMore;
  }
  const more = data.length > limit || hasMore;
  const shown = data.slice(0, limit);
  return jsonResponse(ctx, { object: 'list', data: shown, first_id: (shown[0]?.id as string | undefined) ?? null, last_id: (shown.at(-1)?.id as string | undefined) ?? null, has_more: more && shown.length === limit });
}
