/**
 * The ledger filters of the admin API (`/requests`, `/usage`, `/usage/export`): keyId, model,
 * provider, status (an HTTP status, `success` or `error`), from/to (ISO 8601 instants or dates; a
 * date as `to` includes that whole day). Each bad value is a 400 naming its parameter.
 */
import { GatewayError } from '../../core/errors.js';
import { quoteInput } from '../../core/quote-input.js';
import type { LedgerFilter, StatusFilter } from '../ledger/ledger-filter.js';
import { timeRange } from './http.js';

export const LEDGER_FILTERS = ['keyId', 'model', 'provider', 'status', 'from', 'to'] as const;


function statusParam(value: string): StatusFilter {
  if (value === 'success' || value === 'error') return value;
  if (/^\d{3}$/.test(value)) return Number(value);
  throw new GatewayError('invalid_request', `The query parameter 'status' must be an HTTP status (e.g. 429), 'success' or 'error', got '${quoteInput(value, 40)}'.`, { param: 'status' });
}

export function ledgerFilter(filters: Record<string, string>): LedgerFilter {
  const out: LedgerFilter = {};
  if (filters.keyId !== undefined) out.keyId = filters.keyId;
  if (filters.model !== undefined) out.model = filters.model;
  if (filters.provider !== undefined) out.provider = filters.provider;
  if (filters.status !== undefined) out.status = statusParam(filters.status);
  const { from, to } = timeRange(filters.from, filters.to);
  if (from !== undefined) out.from = from;
  if (to !== undefined) out.to = to;
  return out;
}
