/**
 * The video task service: everything a video generation task is, apart from HTTP. Submission
 * (checked against the model's limits, the callback URL against request forgery, a repeated
 * Request-Id answered with the first task), reads that refresh a stale task from the upstream,
 * cancellation, and the result bytes; the poller advances tasks in the background.
 */
import type { RequestObserver } from '../../observability/request-observer.js';
import type { Principal } from '../../auth/principal.js';
import { GatewayError } from '../../core/errors.js';
import type { VideoRequest } from '../../protocols/videos/index.js';
import type { VideoJob, VideoLimits } from '../../providers/video-api.js';
import type { VideoAdapter } from '../../providers/types.js';
import type { ResolvedModel } from '../../routing/model-registry.js';
import type { TaskStore } from '../task-store.js';
import { callbackUrlProblem } from './callback.js';
import { ownCredentialOf, taskProvider, type CredentialRuntime } from './video-credential.js';
import { toVideoJob } from './video-job.js';
import { videoApiOf } from './video-limits.js';
import { VideoPoller } from './video-poller.js';
import { VideoTaskRecords, type VideoStatusObserver } from './video-records.js';
import { videoTaskSettings, type VideoTaskOptions, type VideoTaskSettings } from './video-settings.js';
import { applyUpstreamState, endTask } from './video-state.js';
import { isTerminal, VIDEO_TASK_KIND, type VideoStatus, type VideoTask, type VideoTaskData } from './video-task.js';
import { quoteInput } from '../../core/quote-input.js';
import { videoCostUsd } from '../../limits/cost.js';

/** What the service takes from the gateway. */
export interface VideoTaskDeps extends CredentialRuntime {
  newId: (prefix?: string) => string;
  /** The gateway's secrets, scrubbed from task errors and callbacks. */
  secrets: readonly string[];
  store: TaskStore;
  options?: VideoTaskOptions;
  /** Told after every stored status change (e.g. for a "video tasks by state" metric). */
  onStatusChange?: VideoStatusObserver;
}

/** A request checked against its model, ready to submit once the caller is admitted. */
export interface VideoSubmission {
  model: ResolvedModel;
  adapter: VideoAdapter;
  limits: VideoLimits;
  job: VideoJob;
  callbackUrl: string | undefined;
}

export interface SubmitResult {
  requestId: string;
  taskId: string;
  status: VideoStatus;
  /** True when the Request-Id already named a task: no new generation was started. */
  replayed: boolean;
}

/** The bytes of one result, streamed from the upstream. */
export interface VideoContent {
  body: ReadableStream<Uint8Array> | null;
  contentType: string;
  contentLength: string | null;
  fileName: string;
}

async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

export class VideoTaskService {
  readonly settings: VideoTaskSettings;
  private readonly records: VideoTaskRecords;
  private readonly poller: VideoPoller;

  constructor(private readonly deps: VideoTaskDeps) {
    this.settings = videoTaskSettings(deps.options);
    this.records = new VideoTaskRecords(deps.store, deps.onStatusChange);
    this.poller = new VideoPoller({ gateway: deps, records: this.records, settings: this.settings });
  }

  /** Checks a request against the model (limits, defaults) and its callback URL; 400s name the field. */
  prepare(model: ResolvedModel, req: VideoRequest): VideoSubmission {
    this.start();
    const { adapter, limits } = videoApiOf(model);
    const job = toVideoJob(req, model.id, limits);
    if (req.callback_url !== undefined) this.checkCallbackUrl(req.callback_url);
    return { model, adapter, limits, job, callbackUrl: req.callback_url };
  }

  /** Callbacks are signed, and never sent into the gateway's own network (unless allowed). */
  private checkCallbackUrl(url: string): void {
    if (!this.settings.callbackSecret) {
      throw new GatewayError('unsupported', 'callback_url needs a callback signing secret, and this gateway has none configured (video.callbackSecret).', { param: 'callback_url' });
    }
    const problem = callbackUrlProblem(url, this.settings.allowPrivateCallbackHosts);
    if (problem) throw new GatewayError('invalid_request', problem, { param: 'callback_url' });
  }

  /**
   * Records the task, then submits the job upstream. `requestId` is the caller's Request-Id: the
   * same id from the same principal answers with the first task (409 when the request differs).
   */
  async submit(s: VideoSubmission, caller: { principal: Principal; requestId: string | undefined; observer?: RequestObserver }): Promise<SubmitResult> {
    const { model, job } = s;
    const requestId = caller.requestId ?? this.deps.newId('req_');
    const fingerprint = await sha256Hex(JSON.stringify({ model: model.id, job, callback: s.callbackUrl ?? null }));
    const idempotencyKey = caller.requestId === undefined ? undefined : await sha256Hex(`${caller.principal.id}\u0000${caller.requestId}`);
    const now = this.deps.now();
    const data: VideoTaskData = {
      requestId,
      fingerprint,
      model: model.id,
      providerId: model.provider.id,
      upstreamModel: model.upstreamModel,
      ownCredential: ownCredentialOf(this.deps, caller.principal, model.provider),
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
      costUsd: videoCostUsd(model.pricing, job.durationSeconds) ?? null,
      deletedAt: null,
      job,
      // Until the submission is recorded, the poller only checks that it did not get lost.
      poll: { count: 0, failures: 0, lastPolledAt: null, nextAt: now + this.settings.submitGraceMs },
      callback: s.callbackUrl === undefined ? null : { url: s.callbackUrl, attempts: 0, nextAt: null, delivered: false, lastError: null },
    };
    const id = this.deps.newId('vtask_');
    const record = { id, kind: VIDEO_TASK_KIND, ownerId: caller.principal.id, version: 0, dueAt: null, expiresAt: now + this.settings.ttlMs, data: {} };
    const created = await this.records.create(record, data, idempotencyKey);
    if ('existingId' in created) return this.replay(created.existingId, fingerprint);
    const task = created.task;

    let upstream: Awaited<ReturnType<VideoAdapter['submit']>>;
    try {
      upstream = await s.adapter.submit(model.provider, model.upstreamModel, job, s.limits, caller.observer);
    } catch (err) {
      const safe = this.poller.scrub(err);
      // The caller gets the error now; the task stays readable as failed, without a callback.
      await this.records.saveWithRetry(task, (d) => endTask({ ...d, callback: null, costUsd: null }, 'failed', { code: 'submit_failed', message: safe.message }, this.deps.now())).catch(() => undefined);
      if (idempotencyKey !== undefined) await this.records.store.releaseIdempotencyKey(idempotencyKey, id).catch(() => undefined);
      throw safe;
    }
    await this.records.saveWithRetry(task, (d) =>
      applyUpstreamState({ ...d, upstreamId: upstream.upstreamId, status: d.status === 'accepted' ? 'queued' : d.status }, upstream.state, this.deps.now(), this.settings),
    );
    return { requestId, taskId: id, status: 'accepted', replayed: false };
  }

  private async replay(taskId: string, fingerprint: string): Promise<SubmitResult> {
    const task = await this.records.load(taskId);
    if (!task) throw new GatewayError('unavailable', 'The task for this Request-Id could not be read; try again.');
    if (task.data.fingerprint !== fingerprint) {
      throw new GatewayError('conflict', 'This Request-Id was already used for a different video request from this key. Use a new Request-Id.', {
        param: 'Request-Id',
        detail: 'idempotency_key_reused',
      });
    }
    return { requestId: task.data.requestId, taskId: task.record.id, status: task.data.status, replayed: true };
  }

  /** The principal's own task, or 404 (also for other keys' tasks, so ids reveal nothing). */
  async find(id: string, principal: Principal): Promise<VideoTask> {
    this.start();
    const task = id ? await this.records.load(id) : undefined;
    if (!task || task.record.ownerId !== principal.id || task.data.deletedAt !== null) {
      throw new GatewayError('not_found', `No video generation task '${quoteInput(id)}' exists for this API key.`, { param: 'task_id', detail: 'task_not_found' });
    }
    return task;
  }

  /** Any key's task, for the operator (the task center); 404 when there is none. */
  async findAny(id: string): Promise<VideoTask> {
    this.start();
    const task = id ? await this.records.load(id) : undefined;
    if (!task) throw new GatewayError('not_found', `No task with id '${quoteInput(id, 80)}'.`, { param: 'id', detail: 'not_found' });
    return task;
  }

  /**
   * The task as its owner (or the operator: no principal) reads it: refreshed from the upstream
   * when the last poll is stale.
   */
  read(task: VideoTask, principal: Principal | undefined): Promise<VideoTask> {
    return this.poller.refresh(task, 'stale', true, principal);
  }

  /** Deleted by its owner: a running job is cancelled first; afterwards the owner's routes answer 404 (the operator still sees it). */
  async delete(task: VideoTask, principal: Principal): Promise<VideoTask> {
    const stopped = await this.cancel(task, principal);
    return this.records.saveWithRetry(stopped, (d) => (d.deletedAt !== null ? d : { ...d, deletedAt: this.deps.now(), updatedAt: this.deps.now() }));
  }

  /** Stops tracking the job and asks the upstream to drop it (best effort); a finished task stays as it is. */
  async cancel(task: VideoTask, principal: Principal | undefined): Promise<VideoTask> {
    if (isTerminal(task.data.status)) return task;
    const saved = await this.records.saveWithRetry(task, (d) => endTask(d, 'cancelled', null, this.deps.now()));
    const found = taskProvider(this.deps, saved.record.ownerId, saved.data, principal);
    const provider = 'provider' in found ? found.provider : undefined;
    const adapter = provider?.videoApi;
    if (provider && adapter?.cancel && saved.data.upstreamId) await adapter.cancel(provider, saved.data.upstreamId).catch(() => undefined);
    return saved;
  }

  /** Result `index` of a finished task (-1: not a whole number), proxied with the upstream's credentials. */
  async content(stored: VideoTask, principal: Principal | undefined, index: number, signal: AbortSignal): Promise<VideoContent> {
    const task = await this.read(stored, principal);
    const id = task.record.id;
    if (task.data.status !== 'succeeded') {
      throw new GatewayError('conflict', `The task '${id}' has no video (status: ${task.data.status}).`, { param: 'task_id', detail: 'task_not_ready' });
    }
    const output = task.data.outputs[index];
    if (!output) throw new GatewayError('invalid_request', `'index' must be a whole number below ${task.data.outputs.length}.`, { param: 'index' });
    if (task.data.upstreamExpiresAt !== null && this.deps.now() > task.data.upstreamExpiresAt) {
      throw new GatewayError('gone', `The video of task '${id}' has expired at the upstream.`, { param: 'task_id', detail: 'content_expired' });
    }
    const found = taskProvider(this.deps, task.record.ownerId, task.data, principal);
    if ('error' in found) throw new GatewayError('unavailable', found.error.message);
    const provider = 'provider' in found ? found.provider : undefined;
    const adapter = provider?.videoApi;
    if (!provider || !adapter) throw new GatewayError('unavailable', `The provider '${task.data.providerId}' of this task is no longer configured.`);
    const upstream = await adapter.download(provider, output.ref, signal).catch((err: unknown) => {
      throw this.poller.scrub(err);
    });
    return {
      body: upstream.body,
      contentType: upstream.headers.get('content-type') ?? output.contentType ?? 'video/mp4',
      contentLength: upstream.headers.get('content-length'),
      fileName: `${id}${index ? `-${index}` : ''}.mp4`,
    };
  }

  /** Starts the background poller (idempotent; nothing when disabled or stopped). */
  start(): void {
    this.poller.start();
  }

  /** Stops the poller and waits for its work in flight. */
  stop(): Promise<void> {
    return this.poller.stop();
  }
}
