import type { LedgerRowsTable, UsageDailyTable } from './schema-ledger.js';
import type { TasksTable } from './schema-tasks.js';

/** TEMPORARY until the control foundation merges. */
export interface Database {
  ledger_rows: LedgerRowsTable;
  usage_daily: UsageDailyTable;
  tasks: TasksTable;
}
