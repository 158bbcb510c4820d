/**
 * The audit log: every change made through the admin API or the CLI, written in the change's own
 * transaction (a change and its entry commit together or not at all). Entries hold the public
 * records before and after, never a secret.
 */
import { z } from 'zod';
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { AuditLogTable } from '../db/schema-audit.js';
import { timeOrderedId } from '../ids.js';

export interface AuditEntryInput {
  actor: string;
  action: string;
  targetType: string;
  targetId: string;
  before: unknown;
  after: unknown;
}

export const auditEntrySchema = z.object({
  object: z.literal('audit_entry'),
  id: z.string(),
  time: z.string(),
  actor: z.string(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string(),
  before: z.unknown().nullable(),
  after: z.unknown().nullable(),
});
export type AuditEntry = z.output<typeof auditEntrySchema>;

export async function recordAudit(trx: Transaction<Database> | Kysely<Database>, entry: AuditEntryInput, now: number): Promise<void> {
  await trx
    .insertInto('audit_log')
    .values({
      id: timeOrderedId('aud_', now),
      time: now,
      actor: entry.actor,
      action: entry.action,
      target_type: entry.targetType,
      target_id: entry.targetId,
      before: entry.before === undefined || entry.before === null ? null : JSON.stringify(entry.before),
      after: entry.after === undefined || entry.after === null ? null : JSON.stringify(entry.after),
    })
    .execute();
}

export function auditEntryOfRow(row: AuditLogTable): AuditEntry {
  return {
    object: 'audit_entry',
    id: row.id,
    time: new Date(row.time).toISOString(),
    actor: row.actor,
    action: row.action,
    targetType: row.target_type,
    targetId: row.target_id,
    before: row.before === null ? null : (JSON.parse(row.before) as unknown),
    after: row.after === null ? null : (JSON.parse(row.after) as unknown),
  };
}

export interface AuditQuery {
  limit: number;
  after?: string;
  actor?: string;
  action?: string;
  targetId?: string;
  from?: number;
  to?: number;
}

/** Newest first; `after` is the id of the last entry of the previous page. */
export async function listAudit(db: Kysely<Database>, q: AuditQuery): Promise<AuditLogTable[]> {
  let query = db.selectFrom('audit_log').selectAll().orderBy('id', 'desc').limit(q.limit + 1);
  if (q.after) query = query.where('id', '<', q.after);
  if (q.actor) query = query.where('actor', '=', q.actor);
  if (q.action) query = query.where('action', '=', q.action);
  if (q.targetId) query = query.where('target_id', '=', q.targetId);
  if (q.from !== undefined) query = query.where('time', '>=', q.from);
  if (q.to !== undefined) query = query.where('time', '<', q.to);
  return query.execute();
}
