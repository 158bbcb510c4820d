/**
 * Advances video tasks: polls upstreams in the background (with backoff, leased through the task
 * store so several instances share the work), refreshes a stale task when a caller reads it, and
 * delivers callbacks with retries. Every write is a compare-and-set, so instances never clobber
 * each other; the loser re-reads.
 */
import type { GatewayError } from '../../core/errors.js';
import { scrubContent, scrubError } from '../../core/redact.js';
import type { Principal } from '../../auth/principal.js';
import { taskProvider, type CredentialRuntime } from './video-credential.js';
import { callbackBackoff, sendCallback } from './callback.js';
import type { VideoTaskRecords } from './video-records.js';
import type { VideoTaskSettings } from './video-settings.js';
import { applyPollFailure, applyUpstreamState, endTask } from './video-state.js';
import { isTerminal, publicVideoTask, type VideoTask, type VideoTaskData } from './video-task.js';

export interface VideoPollerDeps {
  gateway: CredentialRuntime & { secrets: readonly string[] };
  records: VideoTaskRecords;
  settings: VideoTaskSettings;
}

export class VideoPoller {
  private timer: ReturnType<typeof setTimeout> | undefined;
  private stopped = false;
  private readonly inflight = new Set<Promise<unknown>>();
  private readonly gateway: VideoPollerDeps['gateway'];
  private readonly records: VideoTaskRecords;
  private readonly settings: VideoTaskSettings;

  constructor(deps: VideoPollerDeps) {
    this.gateway = deps.gateway;
    this.records = deps.records;
    this.settings = deps.settings;
  }

  /**
   * Polls the upstream when due (`due`: the scheduled time passed; `stale`: the last poll is older
   * than staleAfterMs) and returns the newest task. Callbacks that became due are started in the
   * background unless `kickCallbacks` is false.
   */
  async refresh(task: VideoTask, mode: 'due' | 'stale', kickCallbacks = true, principal?: Principal): Promise<VideoTask> {
    const now = this.gateway.now();
    if (isTerminal(task.data.status)) {
      if (kickCallbacks) this.kickCallback(task);
      return task;
    }
    if (mode === 'stale' && now - (task.data.poll.lastPolledAt ?? task.data.createdAt) < this.settings.staleAfterMs) return task;
    if (mode === 'due' && task.data.poll.nextAt !== null && task.data.poll.nextAt > now) return task;
    const data = await this.pollOnce(task, now, principal);
    if (data === task.data) return task;
    const latest = (await this.records.save(task, data)) ?? (await this.records.load(task.record.id)) ?? task;
    if (kickCallbacks) this.kickCallback(latest);
    return latest;
  }

  /** `principal`: the owner making this request, whose own upstream credential a task may need. */
  private async pollOnce(task: VideoTask, now: number, principal?: Principal): Promise<VideoTaskData> {
    const data = task.data;
    if (data.upstreamId === null) {
      // Still being submitted, or the instance that submitted it died before recording the job.
      if (now - data.createdAt < this.settings.submitGraceMs) return data;
      return endTask(data, 'failed', { code: 'submit_lost', message: 'The submission to the upstream never completed.' }, now);
    }
    const found = taskProvider(this.gateway, task.record.ownerId, data, principal);
    // Waiting for the owner: off the background schedule until their next read polls it.
    if ('wait' in found) return data.poll.nextAt === null ? data : { ...data, poll: { ...data.poll, nextAt: null } };
    if ('error' in found) {
      // Instances sharing a task store may run different configs for a while (a rolling deploy that
      // adds a provider): leave the task to an instance that knows the provider, and only give up
      // once none has polled it for the submit grace period.
      if (found.error.code === 'provider_unavailable' && now - (data.poll.lastPolledAt ?? data.createdAt) < this.settings.submitGraceMs) {
        return { ...data, poll: { ...data.poll, nextAt: now + this.settings.maxPollIntervalMs } };
      }
      return endTask(data, 'failed', found.error, now);
    }
    const provider = found.provider;
    const adapter = provider.videoApi;
    if (!adapter) {
      return endTask(data, 'failed', { code: 'provider_unavailable', message: `The provider '${data.providerId}' of this task is no longer configured.` }, now);
    }
    try {
      const state = await adapter.poll(provider, data.upstreamModel, data.upstreamId);
      return applyUpstreamState(data, state, this.gateway.now(), this.settings);
    } catch (err) {
      return applyPollFailure(data, this.scrub(err), this.gateway.now(), this.settings);
    }
  }

  /** A GatewayError safe to store and show: credentials removed. */
  scrub(err: unknown): GatewayError {
    return scrubError(err, this.gateway.secrets);
  }

  private kickCallback(task: VideoTask): void {
    const cb = task.data.callback;
    if (!isTerminal(task.data.status) || !cb || cb.delivered || cb.nextAt === null || cb.nextAt > this.gateway.now()) return;
    this.track(this.deliverCallback(task.record.id).catch(() => undefined));
  }

  /** One callback attempt when one is due: claimed by compare-and-set first, so only one instance sends it. */
  async deliverCallback(id: string): Promise<void> {
    const task = await this.records.load(id);
    const secret = this.settings.callbackSecret;
    const now = this.gateway.now();
    const cb = task?.data.callback;
    if (!task || !cb || !secret || !isTerminal(task.data.status) || cb.delivered || cb.nextAt === null || cb.nextAt > now) return;
    const attempts = cb.attempts + 1;
    const retryAt = attempts >= this.settings.callbackMaxAttempts ? null : now + callbackBackoff(attempts, this.settings.callbackBackoffMs, this.settings.callbackMaxBackoffMs);
    const claimed = await this.records.save(task, { ...task.data, callback: { ...cb, attempts, nextAt: retryAt } });
    if (!claimed) return;
    const result = await sendCallback(this.gateway.fetch, {
      url: cb.url,
      allowPrivateHosts: this.settings.allowPrivateCallbackHosts,
      body: scrubContent(JSON.stringify(publicVideoTask(claimed)), this.gateway.secrets),
      secret,
      now,
      event: `video.generation.${claimed.data.status}`,
      deliveryId: id,
      timeoutMs: this.settings.callbackTimeoutMs,
    });
    for (let i = 0; i < 5; i++) {
      const current = await this.records.load(id);
      const c = current?.data.callback;
      if (!current || !c) return;
      const next = result.ok
        ? { ...c, delivered: true, nextAt: null, lastError: null }
        : { ...c, lastError: result.error ?? 'callback failed', ...(result.final ? { nextAt: null } : {}) };
      if (await this.records.save(current, { ...current.data, callback: next })) return;
    }
  }

  /** Starts the background loop (idempotent; nothing when disabled or stopped). */
  start(): void {
    if (this.settings.pollerTickMs === false || this.timer !== undefined || this.stopped) return;
    this.schedule(this.settings.pollerTickMs);
  }

  private schedule(ms: number): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      this.track(this.tick().finally(() => this.schedule(ms)));
    }, ms);
    // A waiting poller must not keep a process alive (Node/Bun); hosts stop it with close().
    (this.timer as unknown as { unref?: () => void }).unref?.();
  }

  /** One round: claim due tasks and advance each. Store errors wait for the next round. */
  async tick(): Promise<void> {
    let ids: string[];
    try {
      ids = await this.records.store.claimDue(this.gateway.now(), this.settings.leaseMs, this.settings.batchSize);
    } catch {
      return;
    }
    await Promise.all(ids.map((id) => this.process(id).catch(() => undefined)));
  }

  private async process(id: string): Promise<void> {
    const task = await this.records.load(id);
    if (!task) return;
    const latest = await this.refresh(task, 'due', false);
    if (isTerminal(latest.data.status)) await this.deliverCallback(id);
  }

  private track<T>(p: Promise<T>): void {
    this.inflight.add(p);
    const done = () => void this.inflight.delete(p);
    p.then(done, done);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.timer = undefined;
    while (this.inflight.size > 0) await Promise.allSettled([...this.inflight]);
  }
}
