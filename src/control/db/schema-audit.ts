/** `audit_log`: one row per change made through the admin API or the CLI. Secrets never appear in it. */
export interface AuditLogTable {
  /** `aud_…`, sortable by time. */
  id: string;
  time: number;
  /** Who: an admin key id, `host:<id>` (authorizeAdmin), or `cli:<user>`. */
  actor: string;
  /** e.g. `key.create`, `key.update`, `key.rotate`, `key.disable`, `key.enable`, `key.revoke`. */
  action: string;
  target_type: string;
  target_id: string;
  /** JSON of the target before and after the change (the public record, never a secret), or null. */
  before: string | null;
  after: string | null;
}
