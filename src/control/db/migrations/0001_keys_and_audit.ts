/**
 * Version 1 of the store: platform keys and their secrets' digests, the revision counter that
 * tells instances a key changed, idempotent answers, and the audit log. Released: never edit it;
 * a change is a new migration.
 */
import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('owner', 'text')
    .addColumn('models', 'text', (c) => c.notNull())
    .addColumn('limits', 'text')
    .addColumn('metadata', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('provider_keys', 'text')
    .addColumn('expires_at', 'bigint')
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('updated_at', 'bigint', (c) => c.notNull())
    .addColumn('revoked_at', 'bigint')
    .addColumn('last_used_at', 'bigint')
    .addColumn('revision', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('api_keys_revision').on('api_keys').column('revision').execute();
  await db.schema.createIndex('api_keys_status_id').on('api_keys').columns(['status', 'id']).execute();
  await db.schema.createIndex('api_keys_owner').on('api_keys').column('owner').execute();

  await db.schema
    .createTable('api_key_secrets')
    .addColumn('digest', 'text', (c) => c.primaryKey())
    .addColumn('key_id', 'text', (c) => c.notNull().references('api_keys.id'))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('last4', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .addColumn('expires_at', 'bigint')
    .execute();
  await db.schema.createIndex('api_key_secrets_key_id').on('api_key_secrets').column('key_id').execute();

  await db.schema
    .createTable('control_state')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'bigint', (c) => c.notNull())
    .execute();
  await sql`insert into control_state (name, value) values ('keys_revision', 0)`.execute(db);

  await db.schema
    .createTable('idempotency_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('request_hash', 'text', (c) => c.notNull())
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('response', 'text', (c) => c.notNull())
    .addColumn('created_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('idempotency_keys_created_at').on('idempotency_keys').column('created_at').execute();

  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text', (c) => c.notNull())
    .addColumn('before', 'text')
    .addColumn('after', 'text')
    .execute();
  await db.schema.createIndex('audit_log_time').on('audit_log').columns(['time', 'id']).execute();
  await db.schema.createIndex('audit_log_target').on('audit_log').columns(['target_id', 'time']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['audit_log', 'idempotency_keys', 'control_state', 'api_key_secrets', 'api_keys']) await db.schema.dropTable(table).execute();
}
