import type { AuditLogTable } from './schema-audit.js';
import type { ApiKeySecretsTable, ApiKeysTable, ControlStateTable, IdempotencyKeysTable } from './schema-keys.js';

/** Every table of the control plane's store (SQLite or PostgreSQL), for Kysely's typed queries. */
export interface Database {
  api_keys: ApiKeysTable;
  api_key_secrets: ApiKeySecretsTable;
  control_state: ControlStateTable;
  idempotency_keys: IdempotencyKeysTable;
  audit_log: AuditLogTable;
}

export type DatabaseDialect = 'sqlite' | 'postgres';
