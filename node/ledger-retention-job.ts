/**
 * The standalone server's ledger retention: now and then (MODELGATE_LEDGER_PURGE_INTERVAL_MS,
 * default every 6 hours, the first a minute after start) rows older than the retention are
 * appended to a CSV file in MODELGATE_LEDGER_EXPORT_DIR and then deleted, in batches; old rollup
 * lines are deleted. On PostgreSQL one instance purges at a time (an advisory lock).
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import type { ControlPlane } from '../src/control/control-plane.js';
import { purgeLedger, type RetentionResult } from '../src/control/ledger/ledger-retention.js';
import type { LedgerSettings } from './ledger-settings.js';

/** Any 64-bit key for pg_try_advisory_lock, the same on every instance (distinct from the migration lock). */
const PURGE_LOCK_ID = 0x6d675f7075726765;
const FIRST_RUN_MS = 60_000;

/** One purge; undefined when another instance holds the lock. */
export async function runRetention(control: ControlPlane, settings: LedgerSettings['retention'], now = Date.now()): Promise<RetentionResult | undefined> {
  const file = join(settings.exportDir, `modelgate-ledger-before-${new Date(now - settings.rowDays * 86_400_000).toISOString().slice(0, 10)}-${now}.csv`);
  const purge = () =>
    purgeLedger(control.usage, {
      now,
      rowDays: settings.rowDays,
      rollupDays: settings.rollupDays,
      exportCsv: async (csv) => {
        mkdirSync(settings.exportDir, { recursive: true });
        appendFileSync(file, csv);
      },
    });
  if (control.dialect !== 'postgres') return purge();
  return control.db.connection().execute(async (conn) => {
    const { rows } = await sql<{ locked: boolean }>`select pg_try_advisory_lock(${PURGE_LOCK_ID}) as locked`.execute(conn);
    if (!rows[0]?.locked) return undefined;
    try {
      return await purge();
    } finally {
      await sql`select pg_advisory_unlock(${PURGE_LOCK_ID})`.execute(conn);
    }
  });
}

export function startRetentionJob(control: ControlPlane, settings: LedgerSettings['retention'], log: (message: string) => void): { stop(): Promise<void> } {
  let running: Promise<unknown> | undefined;
  let stopped = false;
  const tick = () => {
    if (running || stopped) return;
    running = runRetention(control, settings)
      .then((r) => {
        if (r && (r.rowsDeleted || r.rollupsDeleted)) log(`modelgate: ledger retention: ${r.rowsDeleted} rows before ${new Date(r.rowCutoff).toISOString()} exported to ${settings.exportDir} and deleted; ${r.rollupsDeleted} old rollup lines deleted.`);
      })
      .catch((err: unknown) => log(`modelgate: ledger retention failed (nothing unexported was deleted): ${(err as Error).message}`))
      .finally(() => (running = undefined));
  };
  const first = setTimeout(tick, Math.min(FIRST_RUN_MS, settings.intervalMs));
  const every = setInterval(tick, settings.intervalMs);
  first.unref();
  every.unref();
  return {
    async stop() {
      stopped = true;
      clearTimeout(first);
      clearInterval(every);
      await running;
    },
  };
}
