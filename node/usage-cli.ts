/**
 * `modelgate usage`: what the keys used and cost, from the ledger's daily rollups in the same
 * database the server uses (--db, MODELGATE_DB, DATABASE_URL), by day, key, model or provider over
 * a date range; `modelgate usage purge`: the retention (rows older than --days exported to a CSV
 * file, then deleted). Tables, or --json.
 */
import { appendFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { LedgerFilter, StatusFilter } from '../src/control/ledger/ledger-filter.js';
import type { UsageGroup } from '../src/control/ledger/ledger-rollup.js';
import { purgeLedger } from '../src/control/ledger/ledger-retention.js';
import { parseInstant, rangeEndMs } from '../src/control/instant.js';
import { printable, table } from './cli-table.js';
import { openControlPlane } from './control.js';
import { ledgerSettings } from './ledger-settings.js';
import type { Subcommand } from './subcommand.js';

const HELP = `modelgate usage - what the keys used and cost (the usage ledger)

Usage:
  modelgate usage [--by day|key|model|provider] [--from DATE] [--to DATE]
                  [--key ID] [--model M] [--provider P] [--status 429|success|error]
  modelgate usage purge [--days N] [--rollup-days N] [--export FILE]

  --by        one line per UTC day (default), key, model or provider
  --from/--to ISO 8601 dates or instants; a date as --to includes that day
  purge       deletes ledger rows older than --days (default $MODELGATE_LEDGER_RETENTION_DAYS
              or 90) after appending them to --export FILE as CSV, and daily rollups
              older than --rollup-days (default 730)

Common: --db DB (as the server: file, "memory" or postgres:// URL; default $MODELGATE_DB,
$DATABASE_URL or ./modelgate.db), --json.
`;

const OPTIONS = {
  db: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  by: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  key: { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
  status: { type: 'string' },
  days: { type: 'string' },
  'rollup-days': { type: 'string' },
  export: { type: 'string' },
} as const;

class UsageError extends Error {}

const GROUPS: readonly UsageGroup[] = ['day', 'key', 'model', 'provider'];

function instant(flag: string, raw: string): number {
  const parsed = parseInstant(raw);
  if (!parsed) throw new UsageError(`--${flag} must be an ISO 8601 date (2026-11-28) or instant (2026-11-28T10:00:00Z), got ${JSON.stringify(raw)}`);
  // A date as --to includes that whole day.
  return flag === 'to' ? rangeEndMs(parsed) : parsed.ms;
}

function filterOf(v: Record<string, string | boolean | undefined>): LedgerFilter {
  const out: LedgerFilter = {};
  if (typeof v.key === 'string') out.keyId = v.key;
  if (typeof v.model === 'string') out.model = v.model;
  if (typeof v.provider === 'string') out.provider = v.provider;
  if (typeof v.status === 'string') {
    const s = v.status;
    if (s !== 'success' && s !== 'error' && !/^\d{3}$/.test(s)) throw new UsageError(`--status must be an HTTP status, success or error, got ${JSON.stringify(s)}`);
    out.status = (s === 'success' || s === 'error' ? s : Number(s)) as StatusFilter;
  }
  if (typeof v.from === 'string') out.from = instant('from', v.from);
  if (typeof v.to === 'string') out.to = instant('to', v.to);
  if (out.from !== undefined && out.to !== undefined && out.to <= out.from) throw new UsageError('--to must be after --from');
  return out;
}

function days(flag: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1) throw new UsageError(`--${flag} must be a whole number of days >= 1, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

const usd = (n: number): string => n.toFixed(6);

export const runUsage: Subcommand = async (args, env) => {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`modelgate usage: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const v = parsed.values;
  if (v.help) {
    process.stdout.write(HELP);
    return 0;
  }
  const [action, ...rest] = parsed.positionals;
  if ((action !== undefined && action !== 'purge') || rest.length) {
    process.stderr.write(`modelgate usage: unknown command ${JSON.stringify([action, ...rest].join(' '))}\n\n${HELP}`);
    return 2;
  }
  let opened: Awaited<ReturnType<typeof openControlPlane>> | undefined;
  try {
    if (action === 'purge') {
      const settings = ledgerSettings(env).retention;
      const rowDays = days('days', v.days, settings.rowDays);
      const rollupDays = days('rollup-days', v['rollup-days'], settings.rollupDays);
      const file = v.export;
      opened = await openControlPlane(v.db, env, { background: false });
      const result = await purgeLedger(opened.control.usage, { now: Date.now(), rowDays, rollupDays, ...(file ? { exportCsv: async (csv: string) => appendFileSync(file, csv) } : {}) });
      const summary = { rowsDeleted: result.rowsDeleted, rollupsDeleted: result.rollupsDeleted, before: new Date(result.rowCutoff).toISOString(), exportedTo: file ?? null };
      process.stdout.write(v.json ? `${JSON.stringify(summary, null, 2)}\n` : `Deleted ${result.rowsDeleted} ledger rows before ${summary.before}${file && result.rowsDeleted ? ` (exported to ${file} first)` : ''} and ${result.rollupsDeleted} daily rollup lines.\n`);
      return 0;
    }
    const by = v.by ?? 'day';
    if (!(GROUPS as readonly string[]).includes(by)) throw new UsageError(`--by must be one of ${GROUPS.join(', ')}, got ${JSON.stringify(by)}`);
    const filter = filterOf(v);
    opened = await openControlPlane(v.db, env, { background: false });
    const buckets = await opened.control.usage.usage({ ...filter, groupBy: by as UsageGroup });
    if (v.json) {
      process.stdout.write(`${JSON.stringify({ object: 'list', groupBy: by, data: buckets }, null, 2)}\n`);
      return 0;
    }
    const total = buckets.reduce((t, b) => ({ requests: t.requests + b.requests, errors: t.errors + b.errors, inputTokens: t.inputTokens + b.inputTokens, outputTokens: t.outputTokens + b.outputTokens, cachedTokens: t.cachedTokens + b.cachedTokens, costUsd: t.costUsd + b.costUsd }), { requests: 0, errors: 0, inputTokens: 0, outputTokens: 0, cachedTokens: 0, costUsd: 0 });
    const line = (name: string, b: typeof total): string[] => [name, String(b.requests), String(b.errors), String(b.inputTokens), String(b.outputTokens), String(b.cachedTokens), usd(b.costUsd)];
    const rows = buckets.map((b) => line(b.bucket === '' ? '(none)' : b.bucket, b));
    if (!rows.length) {
      process.stdout.write('No usage recorded for this selection.\n');
      return 0;
    }
    process.stdout.write(table([by.toUpperCase(), 'REQUESTS', 'ERRORS', 'INPUT', 'OUTPUT', 'CACHED', 'COST_USD'], [...rows, line('TOTAL', total)]));
    return 0;
  } catch (err) {
    process.stderr.write(`modelgate usage${action ? ` ${action}` : ''}: ${printable((err as Error).message)}\n`);
    return err instanceof UsageError ? 2 : 1;
  } finally {
    await opened?.close().catch(() => undefined);
  }
};
