/**
 * The standalone server's ledger settings from the environment: the write queue's bound and
 * flush interval and per-batch write timeout, and the retention (days of rows, days of rollups, where purged rows are exported).
 */
export interface LedgerSettings {
  queue: { maxRows?: number; flushIntervalMs?: number; writeTimeoutMs?: number; closeDeadlineMs?: number };
  /** Where a SQLite file's ledger batches are written: a worker thread (default) or the main thread. */
  writer: 'thread' | 'inline';
  retention: { rowDays: number; rollupDays: number; exportDir: string; intervalMs: number };
}

function whole(env: Record<string, string | undefined>, name: string, min: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) throw new Error(`${name} must be a whole number >= ${min}, got ${JSON.stringify(raw)}`);
  return Number(raw);
}

export function ledgerSettings(env: Record<string, string | undefined>): LedgerSettings {
  const maxRows = whole(env, 'MODELGATE_LEDGER_QUEUE_ROWS', 1);
  const flushIntervalMs = whole(env, 'MODELGATE_LEDGER_FLUSH_MS', 1);
  const writeTimeoutMs = whole(env, 'MODELGATE_LEDGER_WRITE_TIMEOUT_MS', 0);
  const closeDeadlineMs = whole(env, 'MODELGATE_SHUTDOWN_MS', 0);
  const rowDays = whole(env, 'MODELGATE_LEDGER_RETENTION_DAYS', 1) ?? 90;
  const rollupDays = whole(env, 'MODELGATE_LEDGER_ROLLUP_RETENTION_DAYS', 1) ?? 730;
  const writer = env.MODELGATE_LEDGER_WRITER || 'thread';
  if (writer !== 'thread' && writer !== 'inline') throw new Error(`MODELGATE_LEDGER_WRITER must be "thread" or "inline", got ${JSON.stringify(writer)}`);
  return {
    writer,
    queue: {
      ...(maxRows !== undefined ? { maxRows } : {}),
      ...(flushIntervalMs !== undefined ? { flushIntervalMs } : {}),
      ...(writeTimeoutMs !== undefined ? { writeTimeoutMs } : {}),
      ...(closeDeadlineMs !== undefined ? { closeDeadlineMs } : {}),
    },
    retention: {
      rowDays,
      rollupDays: Math.max(rollupDays, rowDays),
      exportDir: env.MODELGATE_LEDGER_EXPORT_DIR || 'modelgate-exports',
      intervalMs: whole(env, 'MODELGATE_LEDGER_PURGE_INTERVAL_MS', 1000) ?? 6 * 3_600_000,
    },
  };
}
