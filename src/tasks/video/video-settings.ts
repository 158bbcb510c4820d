/** Options of the video task service (GatewayOptions.video) and the settings they resolve to. */
import type { PollTiming } from './video-state.js';

export interface VideoTaskOptions {
  /** Delay of the first poll after a submission, and the base of the poll backoff (default 2000 ms). */
  pollIntervalMs?: number;
  /** Longest time between two polls of one task (default 30000 ms). */
  maxPollIntervalMs?: number;
  /** Consecutive failed polls after which a task fails (default 10). */
  maxPollFailures?: number;
  /** How often the background poller looks for due tasks (default 1000 ms); false turns it off. */
  pollerTickMs?: number | false;
  /** A read refreshes the task from the upstream when its last poll is older than this (default 5000 ms). */
  staleAfterMs?: number;
  /** How long task records are kept (default 24 h). */
  ttlMs?: number;
  /** Secret for the callback signature; `callback_url` is refused while it is not set. */
  callbackSecret?: string;
  /** Delivery attempts per callback (default 6). */
  callbackMaxAttempts?: number;
  /** First retry delay of a failed callback, doubled per attempt (default 2000 ms, capped at 5 min). */
  callbackBackoffMs?: number;
  /** Time allowed for the receiver to answer (default 10000 ms). */
  callbackTimeoutMs?: number;
  /** Allow callback URLs on localhost/private networks (default false: refused as 400). */
  allowPrivateCallbackHosts?: boolean;
}

export interface VideoTaskSettings extends PollTiming {
  staleAfterMs: number;
  ttlMs: number;
  submitGraceMs: number;
  pollerTickMs: number | false;
  leaseMs: number;
  batchSize: number;
  callbackSecret: string | undefined;
  callbackMaxAttempts: number;
  callbackBackoffMs: number;
  callbackMaxBackoffMs: number;
  callbackTimeoutMs: number;
  allowPrivateCallbackHosts: boolean;
}

export function videoTaskSettings(o: VideoTaskOptions = {}): VideoTaskSettings {
  return {
    pollIntervalMs: o.pollIntervalMs ?? 2000,
    maxPollIntervalMs: o.maxPollIntervalMs ?? 30_000,
    maxPollFailures: o.maxPollFailures ?? 10,
    pollerTickMs: o.pollerTickMs ?? 1000,
    staleAfterMs: o.staleAfterMs ?? 5000,
    ttlMs: o.ttlMs ?? 24 * 60 * 60 * 1000,
    submitGraceMs: 10 * 60 * 1000,
    leaseMs: 60_000,
    batchSize: 25,
    callbackSecret: o.callbackSecret,
    callbackMaxAttempts: o.callbackMaxAttempts ?? 6,
    callbackBackoffMs: o.callbackBackoffMs ?? 2000,
    callbackMaxBackoffMs: 5 * 60 * 1000,
    callbackTimeoutMs: o.callbackTimeoutMs ?? 10_000,
    allowPrivateCallbackHosts: o.allowPrivateCallbackHosts ?? false,
  };
}
