/**
 * Version 4 of the store: the paged lists order by (time, trace_id) and (created_at, id), newest
 * first; indexes that end before the tiebreak column let SQLite 3.53 (Node 24's node:sqlite) sort
 * the whole filtered set in a temporary B-tree for every page. These indexes carry the tiebreak and
 * replace the narrower ones of versions 2 (a write to the ledger then updates no more indexes than
 * before). Released: never edit it; a change is a new migration.
 */
import type { Kysely } from 'kysely';

const REPLACED: Array<{ old: string; table: string; oldColumns: string[]; name: string; columns: string[] }> = [
  { old: 'ledger_rows_key_time', table: 'ledger_rows', oldColumns: ['key_id', 'time'], name: 'ledger_rows_key_time_trace', columns: ['key_id', 'time', 'trace_id'] },
  { old: 'ledger_rows_time', table: 'ledger_rows', oldColumns: ['time'], name: 'ledger_rows_time_trace', columns: ['time', 'trace_id'] },
  { old: 'tasks_owner_created', table: 'tasks', oldColumns: ['owner_id', 'created_at'], name: 'tasks_owner_created_id', columns: ['owner_id', 'created_at', 'id'] },
  { old: 'tasks_created', table: 'tasks', oldColumns: ['created_at'], name: 'tasks_created_id', columns: ['created_at', 'id'] },
];

export async function up(db: Kysely<unknown>): Promise<void> {
  for (const r of REPLACED) {
    await db.schema.createIndex(r.name).on(r.table).columns(r.columns).execute();
    await db.schema.dropIndex(r.old).execute();
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const r of REPLACED) {
    await db.schema.createIndex(r.old).on(r.table).columns(r.oldColumns).execute();
    await db.schema.dropIndex(r.name).execute();
  }
}
