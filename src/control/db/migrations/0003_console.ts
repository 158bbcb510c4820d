/**
 * Version 3 of the store, for the console: hourly rollups (the overview's 24 h and 7 d charts),
 * console sign-in sessions, the instances' heartbeats, and the indexes the console's filtered lists
 * read (ledger rows by model, provider or status; tasks by status or model; audit entries by actor
 * or action; keys by owner), so every page's query walks an index at any table size. Released:
 * never edit it; a change is a new migration.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('usage_hourly')
    .addColumn('hour', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('model', 'text', (c) => c.notNull())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('requests', 'bigint', (c) => c.notNull())
    .addColumn('errors', 'bigint', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint', (c) => c.notNull())
    .addColumn('output_tokens', 'bigint', (c) => c.notNull())
    .addColumn('cost_nano', 'bigint', (c) => c.notNull())
    .addColumn('latency_ms_sum', 'bigint', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_hourly_pk', ['hour', 'key_id', 'model', 'provider', 'status'])
    .execute();
  // The rows already in the ledger, summed per hour (the rollups of new rows are added as they are written).
  await sql`insert into usage_hourly (hour, key_id, model, provider, status, requests, errors, input_tokens, output_tokens, cost_nano, latency_ms_sum)
    select time - (time % 3600000), key_id, coalesce(model, ''), coalesce(provider, ''), status, count(*),
      sum(case when status >= 400 or error_code is not null then 1 else 0 end),
      coalesce(sum(input_tokens), 0), coalesce(sum(output_tokens), 0),
      coalesce(sum(round(coalesce(cost_usd, 0) * 1000000000)), 0), sum(latency_ms)
    from ledger_rows group by time - (time % 3600000), key_id, coalesce(model, ''), coalesce(provider, ''), status`.execute(db);

  await db.schema
    .createTable('console_sessions')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('access', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .execute();
  await db.schema.createIndex('console_sessions_expires').on('console_sessions').column('expires_at').execute();

  await db.schema
    .createTable('instances')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('started_at', 'bigint', (c) => c.notNull())
    .addColumn('last_seen_at', 'bigint', (c) => c.notNull())
    .addColumn('stats', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('instances_last_seen').on('instances').column('last_seen_at').execute();

  await db.schema.createIndex('ledger_rows_model_time').on('ledger_rows').columns(['model', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_provider_time').on('ledger_rows').columns(['provider', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_status_time').on('ledger_rows').columns(['status', 'time', 'trace_id']).execute();
  // `status=error` / `success` are ranges of statuses: partial indexes keep them newest-first without a sort.
  await db.schema.createIndex('ledger_rows_errors_time').on('ledger_rows').columns(['time', 'trace_id']).where(sql.ref('status'), '>=', 400).execute();
  await db.schema.createIndex('ledger_rows_successes_time').on('ledger_rows').columns(['time', 'trace_id']).where(sql.ref('status'), '<', 400).execute();
  await db.schema.createIndex('tasks_status_created').on('tasks').columns(['status', 'created_at', 'id']).execute();
  await db.schema.createIndex('tasks_model_created').on('tasks').columns(['model', 'created_at', 'id']).execute();
  await db.schema.createIndex('audit_log_actor_id').on('audit_log').columns(['actor', 'id']).execute();
  await db.schema.createIndex('audit_log_action_id').on('audit_log').columns(['action', 'id']).execute();
  await db.schema.createIndex('audit_log_target_id').on('audit_log').columns(['target_id', 'id']).execute();
  await db.schema.createIndex('api_keys_owner_id').on('api_keys').columns(['owner', 'id']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const index of ['ledger_rows_model_time', 'ledger_rows_provider_time', 'ledger_rows_status_time', 'ledger_rows_errors_time', 'ledger_rows_successes_time', 'tasks_status_created', 'tasks_model_created', 'audit_log_actor_id', 'audit_log_action_id', 'audit_log_target_id', 'api_keys_owner_id']) {
    await db.schema.dropIndex(index).execute();
  }
  for (const table of ['instances', 'console_sessions', 'usage_hourly']) await db.schema.dropTable(table).execute();
}
