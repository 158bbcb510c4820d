/**
 * Version 2 of the store: the usage ledger (rows indexed on (key_id, time) and (time) from the
 * start), its daily rollups, and the task records. Released: never edit it; a change is a new
 * migration.
 */
import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('ledger_rows')
    .addColumn('trace_id', 'text', (c) => c.primaryKey())
    .addColumn('request_id', 'text')
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text')
    .addColumn('model', 'text')
    .addColumn('requested_model', 'text')
    .addColumn('resolved_model', 'text')
    .addColumn('provider', 'text')
    .addColumn('deployment', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('fallbacks', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint')
    .addColumn('output_tokens', 'bigint')
    .addColumn('cached_tokens', 'bigint')
    .addColumn('reasoning_tokens', 'bigint')
    .addColumn('images', 'integer')
    .addColumn('video_seconds', 'double precision')
    .addColumn('cost_usd', 'double precision')
    .addColumn('price', 'text')
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('ttft_ms', 'bigint')
    .addColumn('stream', 'integer', (c) => c.notNull())
    .addColumn('byok', 'integer', (c) => c.notNull())
    .addColumn('cache_hit', 'integer', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('ledger_rows_key_time').on('ledger_rows').columns(['key_id', 'time']).execute();
  await db.schema.createIndex('ledger_rows_time').on('ledger_rows').columns(['time']).execute();

  await db.schema
    .createTable('usage_daily')
    .addColumn('day', 'text', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cached_tokens', 'bigint', (c) => c.notNull())
    .addColumn('reasoning_tokens', 'bigint', (c) => c.notNull())
    .addColumn('images', 'bigint', (c) => c.notNull())
    .addColumn('video_seconds', 'double precision', (c) => c.notNull())
    .addColumn('cost_nano', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms_sum', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_daily_pk', ['day', 'key_id', 'model', 'provider', 'status'])
    .execute();
  await db.schema.createIndex('usage_daily_key_day').on('usage_daily').columns(['key_id', 'day']).execute();

  await db.schema
    .createTable('tasks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('owner_id', 'text', (c) => c.notNull())
    .addColumn('version', 'integer', (c) => c.notNull())
    .addColumn('due_at', 'bigint')
    .addColumn('lease_until', 'bigint')
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('progress', 'double precision', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('prompt_summary', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('completed_at', 'bigint')
    .addColumn('cost_usd', 'double precision')
    .addColumn('idempotency_key', 'text', (c) => c.unique())
    .addColumn('data', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('tasks_owner_created').on('tasks').columns(['owner_id', 'created_at']).execute();
  await db.schema.createIndex('tasks_created').on('tasks').columns(['created_at']).execute();
  await db.schema.createIndex('tasks_due').on('tasks').columns(['due_at']).execute();
  await db.schema.createIndex('tasks_expires').on('tasks').columns(['expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tasks', 'usage_daily', 'ledger_rows']) await db.schema.dropTable(table).execute();
}
