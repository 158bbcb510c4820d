import type { IRFinishReason, IRFinishReasonUnified } from '../../../ir/types.js';

/**
 * A finished interaction's status -> IR finish reason (the status is the raw value): a function
 * call waits for its result, a cut-off answer is incomplete. Undefined while it is still running.
 */
export function fromInteractionStatus(status: unknown): IRFinishReason | undefined {
  const unified: IRFinishReasonUnified | undefined =
    status === 'completed' ? 'stop'
    : status === 'requires_action' ? 'tool-calls'
    : status === 'incomplete' ? 'length'
    : status === 'failed' ? 'error'
    : status === 'cancelled' ? 'other'
    : undefined;
  return unified && typeof status === 'string' ? { unified, raw: status } : undefined;
}
