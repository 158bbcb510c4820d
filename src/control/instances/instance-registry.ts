/**
 * The instances sharing one store, for the console's overview: each control plane (one per
 * gateway process) writes a heartbeat row every HEARTBEAT_MS with its ledger queue's state; the
 * admin API lists them (newest heartbeat first) with a health derived from how fresh the
 * heartbeat is and whether the ledger is keeping up. Rows not seen for a day are removed.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';
import { timeOrderedId } from '../ids.js';
import type { LedgerQueueStats } from '../ledger/ledger-queue.js';

export const HEARTBEAT_MS = 10_000;
/** A heartbeat older than this: the instance is `stale` (stopped, or cannot reach the store). */
export const STALE_AFTER_MS = 3 * HEARTBEAT_MS;
const FORGET_AFTER_MS = 86_400_000;

export interface InstanceStats {
  ledger: LedgerQueueStats;
}

export type InstanceHealth = 'healthy' | 'degraded' | 'stale';

export interface InstanceEntry {
  object: 'instance';
  id: string;
  name: string;
  startedAt: string;
  lastSeenAt: string;
  health: InstanceHealth;
  /** Why it is not healthy ('' when it is). */
  reason: string;
  stats: InstanceStats;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

export class InstanceRegistry {
  readonly id: string;
  private readonly startedAt: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
    private readonly name: string,
  ) {
    this.startedAt = now();
    this.id = timeOrderedId('inst_', this.startedAt);
  }

  async heartbeat(stats: InstanceStats): Promise<void> {
    const t = this.now();
    const row = { id: this.id, name: this.name, started_at: this.startedAt, last_seen_at: t, stats: JSON.stringify(stats) };
    await this.db
      .insertInto('instances')
      .values(row)
      .onConflict((oc) => oc.column('id').doUpdateSet({ last_seen_at: t, stats: row.stats }))
      .execute();
    await this.db.deleteFrom('instances').where('last_seen_at', '<', t - FORGET_AFTER_MS).execute();
  }

  /** This instance's row goes at once when it stops cleanly. */
  async remove(): Promise<void> {
    await this.db.deleteFrom('instances').where('id', '=', this.id).execute();
  }

  /** Instances seen in the last day, most recent heartbeat first; `limit + 1` read to tell whether more follow. */
  async list(limit: number, after?: { lastSeenAt: number; id: string }): Promise<{ entries: InstanceEntry[]; hasMore: boolean; cursor: string | null }> {
    const t = this.now();
    let q = this.db.selectFrom('instances').selectAll().where('last_seen_at', '>=', t - FORGET_AFTER_MS);
    if (after) q = q.where((eb) => eb.or([eb('last_seen_at', '<', after.lastSeenAt), eb.and([eb('last_seen_at', '=', after.lastSeenAt), eb('id', '<', after.id)])]));
    const rows = await q.orderBy('last_seen_at', 'desc').orderBy('id', 'desc').limit(limit + 1).execute();
    const page = rows.slice(0, limit);
    const last = page[page.length - 1];
    return {
      entries: page.map((r) => {
        const stats = JSON.parse(r.stats) as InstanceStats;
        const seen = num(r.last_seen_at);
        const { health, reason } = healthOf(t - seen, stats);
        return { object: 'instance', id: r.id, name: r.name, startedAt: new Date(num(r.started_at)).toISOString(), lastSeenAt: new Date(seen).toISOString(), health, reason, stats };
      }),
      hasMore: rows.length > limit,
      cursor: rows.length > limit && last ? `${num(last.last_seen_at)}_${last.id}` : null,
    };
  }
}

function healthOf(silentMs: number, stats: InstanceStats): { health: InstanceHealth; reason: string } {
  if (silentMs > STALE_AFTER_MS) return { health: 'stale', reason: `no heartbeat for ${Math.round(silentMs / 1000)} s` };
  if (stats.ledger.dropped > 0) return { health: 'degraded', reason: `${stats.ledger.dropped} usage rows dropped (the database was slow or away)` };
  if (stats.ledger.failures > 0 && stats.ledger.queued > 0) return { health: 'degraded', reason: `usage rows waiting to be written (${stats.ledger.queued})` };
  return { health: 'healthy', reason: '' };
}
