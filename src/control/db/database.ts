import type { AuditLogTable } from './schema-audit.js';
import type { ApiKeySecretsTable, ApiKeysTable, ControlStateTable, IdempotencyKeysTable } from './schema-keys.js';
import type { LedgerNamesTable, LedgerRowsTable, UsageDailyTable } from './schema-ledger.js';
import type { TasksTable } from './schema-tasks.js';
import type { ConsoleSessionsTable, InstancesTable, UsageHourlyTable } from './schema-console.js';

/** Every table of the control plane's store (SQLite or PostgreSQL), for Kysely's typed queries. */
export interface Database {
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  control_state: ControlStateTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
  ledger_rows: LedgerRowsTable;
  ledger_names: LedgerNamesTable;
  usage_daily: UsageDailyTable;
  tasks: TasksTable;
  usage_hourly: UsageHourlyTable;
  console_sessions: ConsoleSessionsTable;
  instances: InstancesTable;
}

export type DatabaseDialect = 'sqlite' | 'postgres';
