import type { AuditLogTable } from './schema-audit.js';
import type { ApiKeySecretsTable, ApiKeysTable, ControlStateTable, IdempotencyKeysTable } from './schema-keys.js';
import type { LedgerRowsTable, UsageDailyTable } from './schema-ledger.js';
import type { TasksTable } from './schema-tasks.js';

/** Every table of the control plane's store (SQLite or PostgreSQL), for Kysely's typed queries. */
export interface Database {
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  control_state: ControlStateTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
  ledger_rows: LedgerRowsTable;
  usage_daily: UsageDailyTable;
  tasks: TasksTable;
}

export type DatabaseDialect = 'sqlite' | 'postgres';
