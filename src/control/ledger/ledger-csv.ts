/** Ledger rows as CSV (RFC 4180): the export of `GET /admin/v1/usage/export` and of the retention purge. */
import { LEDGER_COLUMNS, type LedgerRow } from './ledger-row.js';

/** A cell: quoted when it holds a comma, quote or line break; a text starting like a formula is defused for spreadsheets. */
function cell(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  let text = typeof value === 'string' ? value : JSON.stringify(value);
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const CSV_HEADER = `${LEDGER_COLUMNS.join(',')}\r\n`;

/** One line per row (CRLF-terminated), the time as an ISO 8601 instant. */
export function csvLines(rows: readonly LedgerRow[]): string {
  let out = '';
  for (const r of rows) {
    const cells = LEDGER_COLUMNS.map((c) => (c === 'time' ? new Date(r.time).toISOString() : cell(r[c])));
    out += `${cells.join(',')}\r\n`;
  }
  return out;
}
