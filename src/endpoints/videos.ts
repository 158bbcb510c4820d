/**
 * Video generation tasks: POST /v1/video/generations (202 + task id), GET .../{task_id} (the task,
 * for its creator only), GET .../{task_id}/content (the video bytes, proxied with the upstream's
 * credentials), DELETE .../{task_id} (cancel). A repeated Request-Id from the same key returns the
 * first task instead of paying for a second generation.
 */
import { callbackUrlProblem } from '../tasks/callback.js';
import { GatewayError } from '../errors.js';
import { parseJsonObject } from '../http/body.js';
import { parseVideoRequest, toVideoJob } from '../protocols/videos/client/decode-request.js';
import { limitsForModel, requireVideoAdapter, videoAdapterFor } from '../providers/video/index.js';
import type { RequestContext } from '../runtime.js';
import { endTask, applyUpstreamState } from '../tasks/video-state.js';
import { publicVideoTask, VIDEO_TASK_KIND, withData, type VideoTask, type VideoTaskData } from '../tasks/video-task.js';
import { videoTasks } from '../tasks/video-tasks.js';
import type { VideoTaskService } from '../tasks/video-poller.js';
import { authenticate, jsonResponse, requireCapability, resolveModel, upstreamJsonResponse } from './common.js';
import type { Principal } from '../auth/principal.js';
import { admitModelCall, requestLimits } from '../limits/admission.js';
import { finishRequest } from '../limits/request-lease.js';
import type { VideoAdapter, VideoLimits } from '../providers/video/index.js';
import type { ResolvedModel } from '../routing/model-registry.js';
import { ownCredentialOf, taskProvider } from '../tasks/video-credential.js';
import type { VideoJob } from '../tasks/video-task.js';
import { Reply } from '../http/reply.js';

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

function callerRequestId(ctx: RequestContext): string | undefined {
  const id = ctx.requestId ?? ctx.request.headers.get('idempotency-key') ?? undefined;
  if (id !== undefined && (id.length === 0 || id.length > 256)) {
    throw new GatewayError('invalid_request', 'The Request-Id header must be 1 to 256 characters.', { param: 'Request-Id' });
  }
  return id;
}

/** Saves `change(latest)` with compare-and-set, re-reading on conflicts. */
async function saveWithRetry(service: VideoTaskService, task: VideoTask, change: (d: VideoTaskData) => VideoTaskData): Promise<VideoTask> {
  let current = task;
  for (let i = 0; i < 5; i++) {
    const saved = await service.save(current, change(current.data));
    if (saved) return saved;
    const reloaded = await service.load(current.record.id);
    if (!reloaded) break;
    current = reloaded;
  }
  throw new GatewayError('unavailable', 'The task store is busy; try again.');
}

/** POST /v1/video/generations */
export async function submitVideoGeneration(ctx: RequestContext): Promise<Reply> {
  const principal = await authenticate(ctx);
  const body = parseJsonObject(await ctx.body.text());
  const req = parseVideoRequest(body);
  const model = resolveModel(ctx, principal, req.model);
  requireCapability(model, 'video');
  const adapter = requireVideoAdapter(model);
  const limits = limitsForModel(model, adapter);
  const job = toVideoJob(req, model.id, limits);
  const service = videoTasks(ctx.rt);
  if (req.callback_url !== undefined && !service.settings.callbackSecret) {
    throw new GatewayError('unsupported', 'callback_url needs a callback signing secret, and this gateway has none configured (video.callbackSecret).', { param: 'callback_url' });
  }
  const callbackProblem = req.callback_url === undefined ? undefined : callbackUrlProblem(req.callback_url, service.settings.allowPrivateCallbackHosts);
  if (callbackProblem) throw new GatewayError('invalid_request', callbackProblem, { param: 'callback_url' });
  await admitModelCall(ctx, principal, model, () => undefined);
  try {
    return await submitAdmitted(ctx, { principal, model, adapter, limits, job, callbackUrl: req.callback_url, service });
  } finally {
    // A submission holds its concurrency slot only until the upstream accepted (or refused) the job.
    await finishRequest(requestLimits(ctx), model.pricing, undefined);
  }
}

interface Submission {
  principal: Principal;
  model: ResolvedModel;
  adapter: VideoAdapter;
  limits: VideoLimits;
  job: VideoJob;
  callbackUrl: string | undefined;
  service: VideoTaskService;
}

async function submitAdmitted(ctx: RequestContext, { principal, model, adapter, limits, job, callbackUrl, service }: Submission): Promise<Reply> {
  const callerId = callerRequestId(ctx);
  const requestId = callerId ?? ctx.rt.newId('req_');
  const fingerprint = await sha256Hex(JSON.stringify({ model: model.id, job, callback: callbackUrl ?? null }));
  const idempotencyKey = callerId === undefined ? undefined : await sha256Hex(`${principal.id}\u0000${callerId}`);
  const now = ctx.rt.now();
  const data: VideoTaskData = {
    requestId,
    fingerprint,
    model: model.id,
    providerId: model.provider.id,
    upstreamModel: model.upstreamModel,
    ownCredential: ownCredentialOf(ctx.rt, principal, model.provider),
    upstreamId: null,
    status: 'accepted',
    progress: 0,
    createdAt: now,
    updatedAt: now,
    startedAt: null,
    completedAt: null,
    error: null,
    outputs: [],
    upstreamExpiresAt: null,
    job,
    // Until the submission is recorded, the poller only checks that it did not get lost.
    poll: { count: 0, failures: 0, lastPolledAt: null, nextAt: now + service.settings.submitGraceMs },
    callback: callbackUrl === undefined ? null : { url: callbackUrl, attempts: 0, nextAt: null, delivered: false, lastError: null },
  };
  const id = ctx.rt.newId('vtask_');
  const record = withData({ id, kind: VIDEO_TASK_KIND, ownerId: principal.id, version: 0, dueAt: null, expiresAt: now + service.settings.ttlMs, data: {} }, data);
  const created = await service.store.create(record, idempotencyKey);
  if (!created.created) return replay(ctx, service, created.task.id, fingerprint);
  const task: VideoTask = { record: created.task, data };

  let upstream: Awaited<ReturnType<typeof adapter.submit>>;
  try {
    upstream = await adapter.submit(model.provider, model.upstreamModel, job, limits);
  } catch (err) {
    const safe = service.scrub(err);
    // The caller gets the error now; the task stays readable as failed, without a callback.
    await saveWithRetry(service, task, (d) => endTask({ ...d, callback: null }, 'failed', { code: 'submit_failed', message: safe.message }, ctx.rt.now())).catch(() => undefined);
    if (idempotencyKey !== undefined) await service.store.releaseIdempotencyKey(idempotencyKey, id).catch(() => undefined);
    throw safe;
  }
  await saveWithRetry(service, task, (d) => applyUpstreamState({ ...d, upstreamId: upstream.upstreamId, status: d.status === 'accepted' ? 'queued' : d.status }, upstream.state, ctx.rt.now(), service.settings));
  return jsonResponse(ctx, 
    { request_id: requestId, task_id: id, status: 'accepted', message: 'The video generation task was accepted. Poll GET /v1/video/generations/{task_id} for its status.' },
    202,
  );
}

async function replay(ctx: RequestContext, service: VideoTaskService, taskId: string, fingerprint: string): Promise<Reply> {
  const task = await service.load(taskId);
  if (!task) throw new GatewayError('unavailable', 'The task for this Request-Id could not be read; try again.');
  if (task.data.fingerprint !== fingerprint) {
    throw new GatewayError('invalid_request', 'This Request-Id was already used for a different video request from this key. Use a new Request-Id.', {
      status: 409,
      param: 'Request-Id',
      detail: 'idempotency_key_reused',
    });
  }
  return jsonResponse(ctx, 
    { request_id: task.data.requestId, task_id: task.record.id, status: task.data.status, message: 'A task with this Request-Id already exists; no new generation was started.' },
    202,
    { 'idempotent-replayed': 'true' },
  );
}

/** The caller's own task, or 404 (also for other keys' tasks, so ids reveal nothing). */
async function ownTask(ctx: RequestContext, params: Record<string, string>): Promise<{ service: VideoTaskService; task: VideoTask; principal: Principal }> {
  const principal = await authenticate(ctx);
  const service = videoTasks(ctx.rt);
  const id = params.id ?? '';
  const task = id ? await service.load(id) : undefined;
  if (!task || task.record.ownerId !== principal.id) {
    throw new GatewayError('not_found', `No video generation task '${id}' exists for this API key.`, { param: 'task_id', detail: 'task_not_found' });
  }
  ctx.event.model = task.data.model;
  ctx.event.provider = task.data.providerId;
  ctx.event.upstreamModel = task.data.upstreamModel;
  return { service, task, principal };
}

/** GET /v1/video/generations/{task_id} — refreshed from the upstream when the last poll is stale. */
export async function getVideoGeneration(ctx: RequestContext, params: Record<string, string>): Promise<Reply> {
  const { service, task, principal } = await ownTask(ctx, params);
  const latest = await service.refresh(task, 'stale', true, principal);
  return upstreamJsonResponse(ctx, publicVideoTask(latest));
}

/** DELETE /v1/video/generations/{task_id} — stops tracking the job and asks the upstream to drop it. */
export async function cancelVideoGeneration(ctx: RequestContext, params: Record<string, string>): Promise<Reply> {
  const { service, task, principal } = await ownTask(ctx, params);
  if (task.data.status === 'succeeded' || task.data.status === 'failed' || task.data.status === 'cancelled') return upstreamJsonResponse(ctx, publicVideoTask(task));
  const saved = await saveWithRetry(service, task, (d) => endTask(d, 'cancelled', null, ctx.rt.now()));
  const found = taskProvider(ctx.rt, saved.record.ownerId, saved.data, principal);
  const provider = 'provider' in found ? found.provider : undefined;
  const adapter = provider ? videoAdapterFor(provider) : undefined;
  if (provider && adapter?.cancel && saved.data.upstreamId) await adapter.cancel(provider, saved.data.upstreamId).catch(() => undefined);
  return upstreamJsonResponse(ctx, publicVideoTask(saved));
}

/** GET /v1/video/generations/{task_id}/content[?index=n] — the bytes, streamed through. */
export async function getVideoContent(ctx: RequestContext, params: Record<string, string>): Promise<Reply> {
  const { service, task: stored, principal } = await ownTask(ctx, params);
  const task = await service.refresh(stored, 'stale', true, principal);
  const id = task.record.id;
  if (task.data.status !== 'succeeded') {
    throw new GatewayError('invalid_request', `The task '${id}' has no video (status: ${task.data.status}).`, { status: 409, param: 'task_id', detail: 'task_not_ready' });
  }
  const rawIndex = ctx.url.searchParams.get('index') ?? '0';
  const index = /^\d+$/.test(rawIndex) ? Number(rawIndex) : -1;
  const output = task.data.outputs[index];
  if (!output) throw new GatewayError('invalid_request', `'index' must be a whole number below ${task.data.outputs.length}.`, { param: 'index' });
  if (task.data.upstreamExpiresAt !== null && ctx.rt.now() > task.data.upstreamExpiresAt) {
    throw new GatewayError('not_found', `The video of task '${id}' has expired at the upstream.`, { status: 410, param: 'task_id', detail: 'content_expired' });
  }
  const found = taskProvider(ctx.rt, task.record.ownerId, task.data, principal);
  if ('error' in found) throw new GatewayError('unavailable', found.error.message);
  const provider = 'provider' in found ? found.provider : undefined;
  const adapter = provider ? videoAdapterFor(provider) : undefined;
  if (!provider || !adapter) throw new GatewayError('unavailable', `The provider '${task.data.providerId}' of this task is no longer configured.`);
  const upstream = await adapter.download(provider, output.ref, ctx.signal).catch((err: unknown) => {
    throw service.scrub(err);
  });
  const headers = new Headers({
    'content-type': upstream.headers.get('content-type') ?? output.contentType ?? 'video/mp4',
    'content-disposition': `inline; filename="${id}${index ? `-${index}` : ''}.mp4"`,
    'cache-control': 'private, no-store',
  });
  const length = upstream.headers.get('content-length');
  if (length) headers.set('content-length', length);
  return new Reply(200, headers, upstream.body);
}
