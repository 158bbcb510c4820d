/** Pure state changes of a video task: upstream answers, poll failures, backoff, callbacks. */
import { GatewayError } from '../../core/errors.js';
import type { UpstreamVideoState } from '../../providers/video-api.js';
import { isTerminal, type VideoStatus, type VideoTaskData } from './video-task.js';

export interface PollTiming {
  pollIntervalMs: number;
  maxPollIntervalMs: number;
  maxPollFailures: number;
}

/** Delay before the next poll: interval x 1.5^polls so far, capped. */
function nextPollDelay(pollCount: number, t: PollTiming): number {
  return Math.min(t.maxPollIntervalMs, Math.round(t.pollIntervalMs * 1.5 ** pollCount));
}

const ORDER: Record<VideoStatus, number> = { accepted: 0, queued: 1, in_progress: 2, succeeded: 3, failed: 3, cancelled: 3 };

function finish(data: VideoTaskData, now: number): VideoTaskData {
  const callback = data.callback && !data.callback.delivered ? { ...data.callback, nextAt: now } : data.callback;
  // A task that ends without having started (cancelled or refused while queued) keeps no start time; one that succeeded did start.
  return { ...data, completedAt: now, startedAt: data.startedAt ?? (data.status === 'succeeded' ? now : null), poll: { ...data.poll, nextAt: null }, callback };
}

/** Folds one upstream answer into the task. States never move backwards; progress never drops. */
export function applyUpstreamState(data: VideoTaskData, state: UpstreamVideoState, now: number, t: PollTiming): VideoTaskData {
  if (isTerminal(data.status)) return data;
  const status: VideoStatus = ORDER[state.status] >= ORDER[data.status] ? state.status : data.status;
  const poll = { count: data.poll.count + 1, failures: 0, lastPolledAt: now, nextAt: now + nextPollDelay(data.poll.count, t) };
  let next: VideoTaskData = {
    ...data,
    status,
    progress: status === 'succeeded' ? 100 : Math.max(data.progress, state.progress ?? data.progress),
    updatedAt: now,
    startedAt: data.startedAt ?? (status === 'in_progress' ? now : null),
    poll,
    ...(state.expiresAt !== undefined ? { upstreamExpiresAt: state.expiresAt } : {}),
  };
  if (status === 'succeeded') next = finish({ ...next, outputs: state.outputs ?? [] }, now);
  if (status === 'failed') next = finish({ ...next, error: state.error ?? { code: 'upstream_failed', message: 'The upstream reported a failure.' } }, now);
  return next;
}

/** Errors a retry will not fix: the job is gone or was refused. */
function isPermanent(err: GatewayError): boolean {
  return err.status === 400 || err.status === 404 || err.status === 410 || err.status === 422;
}

/** A poll that failed: back off, and give up after repeated or permanent errors. */
export function applyPollFailure(data: VideoTaskData, err: GatewayError, now: number, t: PollTiming): VideoTaskData {
  if (isTerminal(data.status)) return data;
  const failures = data.poll.failures + 1;
  if (isPermanent(err) || failures >= t.maxPollFailures) {
    return finish({ ...data, status: 'failed', updatedAt: now, error: { code: 'upstream_error', message: err.message }, poll: { ...data.poll, failures, lastPolledAt: now } }, now);
  }
  return { ...data, poll: { ...data.poll, failures, lastPolledAt: now, nextAt: now + nextPollDelay(data.poll.count + failures, t) } };
}

/** Ends a task by the gateway's own decision (submission failed or lost, cancelled by the caller). */
export function endTask(data: VideoTaskData, status: 'failed' | 'cancelled', error: { code: string; message: string } | null, now: number): VideoTaskData {
  if (isTerminal(data.status)) return data;
  return finish({ ...data, status, error, updatedAt: now }, now);
}
