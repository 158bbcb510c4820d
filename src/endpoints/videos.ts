/**
 * Video generation tasks over HTTP: POST /v1/video/generations (202 + task id), GET .../{task_id}
 * (the task, for its creator only), GET .../{task_id}/content (the video bytes), DELETE
 * .../{task_id} (cancel). The task domain (idempotency, records, polling, callbacks) is the video
 * task service's (tasks/video/); this file parses requests and writes answers.
 */
import { GatewayError } from '../core/errors.js';
import { parseJsonObject } from '../request/body.js';
import { parseVideoRequest, type VideoRequest } from '../protocols/videos/index.js';
import type { SubmitResult } from '../tasks/video/video-service.js';
import type { EndpointContext } from './services.js';
import { publicVideoTask, type VideoTask } from '../tasks/video/video-task.js';
import { authenticate, jsonResponse, requireCapability, resolveModel, upstreamJsonResponse } from './common.js';
import type { Principal } from '../auth/principal.js';
import { admitModelCall, requestLimits } from '../limits/admission.js';
import { settleRequest } from '../limits/request-lease.js';
import { videoCostUsd } from '../limits/cost.js';
import { Reply } from '../reply/reply.js';
import { recordUpstreamCall } from '../routing/attempts.js';

/** The caller's Request-Id (or Idempotency-Key): a retry with the same id returns the first task. */
function callerRequestId(ctx: EndpointContext): string | undefined {
  const id = ctx.requestId ?? ctx.request.headers.get('idempotency-key') ?? undefined;
  if (id !== undefined && (id.length === 0 || id.length > 256)) {
    throw new GatewayError('invalid_request', 'The Request-Id header must be 1 to 256 characters.', { param: 'Request-Id' });
  }
  return id;
}

/** POST /v1/video/generations */
export async function submitVideoGeneration(ctx: EndpointContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const req = parseVideoRequest(parseJsonObject(await ctx.body.text()));
  const result = await submitVideo(ctx, principal, req);
  const body = { request_id: result.requestId, task_id: result.taskId, status: result.status };
  if (result.replayed) {
    return jsonResponse(ctx, { ...body, message: 'A task with this Request-Id already exists; no new generation was started.' }, 202, { 'idempotent-replayed': 'true' });
  }
  return jsonResponse(ctx, { ...body, message: 'The video generation task was accepted. Poll GET /v1/video/generations/{task_id} for its status.' }, 202);
}

/** A video request of either API submitted as a task: admitted, priced, and settled once the upstream accepted or refused it. */
export async function submitVideo(ctx: EndpointContext, principal: Principal, req: VideoRequest): Promise<SubmitResult> {
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'video');
  const submission = ctx.services.videoTasks.prepare(model, req);
  await admitModelCall(ctx.services.admission, ctx, principal, model, () => undefined);
  const videoSeconds = submission.job.durationSeconds;
  ctx.obs.report({ media: { videoSeconds }, ...(model.pricing ? { pricing: model.pricing } : {}) });
  let accepted = false;
  try {
    const result = await ctx.services.videoTasks.submit(submission, { principal, requestId: callerRequestId(ctx), observer: ctx.obs });
    accepted = !result.replayed;
    // One upstream call (none for a replay): counted like a chat call's attempts.
    if (accepted) recordUpstreamCall(ctx, submission.model);
    return result;
  } catch (err) {
    recordUpstreamCall(ctx, submission.model, err);
    throw err;
  } finally {
    // A submission holds its concurrency slot only until the upstream accepted (or refused) the job;
    // an accepted job costs its seconds of video at the model's price (also against budgets).
    const costUsd = await settleRequest(requestLimits(ctx), model.pricing, undefined, true, accepted ? videoCostUsd(model.pricing, videoSeconds) : undefined);
    if (costUsd !== undefined) ctx.obs.report({ costUsd });
  }
}

/**
 * A refusal of the video job in the field names of the API the caller spoke (`duration` is OpenAI's
 * `seconds`, Gemini's `parameters.durationSeconds`); `inMessage` adds the name to the message for
 * an error shape without a field of its own (Gemini's).
 */
export function renamedParam(err: unknown, names: Readonly<Record<string, string>>, inMessage: (message: string, param: string) => string = (m) => m): unknown {
  if (!(err instanceof GatewayError) || err.param === null) return err;
  const param = names[err.param];
  if (param === undefined) return err;
  return new GatewayError(err.code, inMessage(err.message, param), { param, ...(err.detail !== undefined ? { detail: err.detail } : {}), ...(err.retryAfter !== undefined ? { retryAfter: err.retryAfter } : {}) });
}

/** The caller's own task (404 otherwise), named in the request's hook event. */
export async function ownTask(ctx: EndpointContext, params: Record<string, string>): Promise<{ task: VideoTask; principal: Principal }> {
  const principal = await authenticate(ctx);
  const task = await ctx.services.videoTasks.find(params.id ?? '', principal);
  ctx.event.model = task.data.model;
  ctx.event.provider = task.data.providerId;
  ctx.event.upstreamModel = task.data.upstreamModel;
  return { task, principal };
}

/** GET /v1/video/generations/{task_id} */
export async function getVideoGeneration(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, params);
  return upstreamJsonResponse(ctx, publicVideoTask(await ctx.services.videoTasks.read(task, principal)));
}

/** DELETE /v1/video/generations/{task_id} */
export async function cancelVideoGeneration(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, params);
  return upstreamJsonResponse(ctx, publicVideoTask(await ctx.services.videoTasks.cancel(task, principal)));
}

/** GET /v1/video/generations/{task_id}/content[?index=n] — the bytes, streamed through. */
export async function getVideoContent(ctx: EndpointContext, params: Record<string, string>): Promise<Reply> {
  const { task, principal } = await ownTask(ctx, params);
  const rawIndex = ctx.url.searchParams.get('index') ?? '0';
  const index = /^\d+$/.test(rawIndex) ? Number(rawIndex) : -1;
  const content = await ctx.services.videoTasks.content(task, principal, index, ctx.signal);
  const headers = new Headers({
    'content-type': content.contentType,
    'content-disposition': `inline; filename="${content.fileName}"`,
    'cache-control': 'private, no-store',
  });
  if (content.contentLength) headers.set('content-length', content.contentLength);
  return new Reply(200, headers, content.body);
}
