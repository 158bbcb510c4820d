/** The gateway's side of the usage ledger: a finished request's event becomes a row, handed to the queue. */
import type { RequestEvent } from '../../observability/hooks.js';
import type { ResponseEnd } from '../../observability/response-event.js';
import { ledgerRowOf, type LedgerRow } from './ledger-row.js';

/** Takes rows without blocking (a LedgerQueue); `close` writes what is queued. */
export interface LedgerRecorder {
  enqueue(row: LedgerRow): boolean;
  close?(): Promise<void>;
}

/** The observer's ledger callback: the row of every request whose key is known, queued. */
export function ledgerOf(recorder: LedgerRecorder, now: () => number): (event: RequestEvent, end: ResponseEnd) => void {
  return (event, end) => {
    const row = ledgerRowOf(event, end, now());
    if (row) recorder.enqueue(row);
  };
}
