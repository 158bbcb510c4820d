/**
 * `tasks`: asynchronous task records (video generations) of every instance: the task store of
 * the video service, and the task center's list (per key and for all keys). The kind-specific
 * state is `data` (JSON text); the columns beside it are what lists filter and show.
 */
export interface TasksTable {
  /** `vtask_…`. */
  id: string;
  kind: string;
  /** The key that created it. */
  owner_id: string;
  version: number;
  /** When background work (a poll, a callback) is next due, epoch ms; null when none. */
  due_at: number | null;
  /** A poller claimed it until then (other instances leave it alone). */
  lease_until: number | null;
  /** After this the task may be forgotten. */
  expires_at: number;
  status: string;
  progress: number;
  model: string;
  provider: string;
  /** The first 200 characters of the prompt. */
  prompt_summary: string;
  created_at: number;
  updated_at: number;
  completed_at: number | null;
  cost_usd: number | null;
  /** Hex SHA-256 of the owner and its Request-Id: the same request twice names the same task. */
  idempotency_key: string | null;
  data: string;
}
