/**
 * `api_keys`: one row per platform key created through the admin API or the CLI (config-file keys
 * are not stored). The secret itself is never stored: see `api_key_secrets`. Times are integer
 * milliseconds since the epoch; JSON columns are text.
 */
export interface ApiKeysTable {
  /** `key_…`, stable across rotations. */
  id: string;
  name: string;
  owner: string | null;
  /** JSON array of model globs. */
  models: string;
  /** JSON of the config's `limits` entry, or null. */
  limits: string | null;
  /** JSON object of string values. */
  metadata: string;
  /** JSON object provider id -> the key holder's own upstream credential, or null (never returned by the API). */
  provider_keys: string | null;
  expires_at: number | null;
  status: 'active' | 'disabled' | 'revoked';
  /** Display parts of the current secret. */
  prefix: string;
  last4: string;
  created_at: number;
  updated_at: number;
  revoked_at: number | null;
  /** Written in batches from the instances that saw the key used (never per request). */
  last_used_at: number | null;
  /** The `control_state.keys_revision` of the change that last wrote this row: instances reload rows newer than what they hold. */
  revision: number;
  /** Name, owner and metadata labels and values, case-folded: what a list's `search` matches (keys/key-search.ts). */
  search_text: string;
}

/** `api_key_secrets`: the SHA-256 digests of a key's secrets; several while a rotation's grace period runs. */
export interface ApiKeySecretsTable {
  /** Lowercase hex SHA-256 of the secret. */
  digest: string;
  key_id: string;
  prefix: string;
  last4: string;
  created_at: number;
  /** Null for the current secret; a rotated-out secret works until this instant. */
  expires_at: number | null;
}

/** `control_state`: named counters (one row `keys_revision`, bumped in the transaction of every key change). */
export interface ControlStateTable {
  name: string;
  value: number;
}

/** `idempotency_keys`: answers of writes sent with an `Idempotency-Key`, for 24 hours. */
export interface IdempotencyKeysTable {
  /** Hex SHA-256 of the scope and the Idempotency-Key (the key itself is not stored). */
  id: string;
  /** Hex SHA-256 of the request's parameters: the same key with other parameters is a 409. */
  request_hash: string;
  status: number;
  /** The answer, AES-GCM encrypted with a key derived from the Idempotency-Key (it may hold a new secret). */
  response: string;
  created_at: number;
}

