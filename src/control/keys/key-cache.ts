/**
 * The store's platform keys in memory, so authenticating a request never queries the database.
 * Every key change bumps `control_state.keys_revision` in its transaction and stamps the changed
 * row with it; `refresh()` reads that one number and, when it moved, only the rows past what it
 * holds. It runs on a timer (at most every second) and at once when another instance announces a
 * change (Redis pub/sub), so a change reaches every instance within a second.
 *
 * Lookups hash the presented token once (SHA-256, synchronous) and confirm the digest with a
 * constant-time comparison, like the config's keys. Disabled, revoked, expired and rotated-out
 * secrets stay known so the caller gets a clear 401 rather than "invalid key".
 *
 * A key's providerKeys are decrypted here, once per change (see provider-key-cipher.ts). A key
 * whose providerKeys this instance cannot decrypt (no secret, or another one) is refused rather
 * than served with the gateway's own credentials instead of the holder's.
 */
import type { Kysely } from 'kysely';
import { keyOf, timingSafeEqual, TokenHasher } from '../../auth/key-store.js';
import type { Principal } from '../../auth/principal.js';
import type { LimitsConfig } from '../../config/schema.js';
import type { Database } from '../db/database.js';
import type { ApiKeySecretsTable, ApiKeysTable } from '../db/schema-keys.js';
import { digestWords } from './key-secret.js';
import { openProviderKeys, type ProviderKeyCipher, type ProviderKeys } from './provider-key-cipher.js';

/** Longest a reload of the keys may take before it is given up and tried again. */
const LOAD_TIMEOUT_MS = 5000;

export interface CachedKey {
  row: ApiKeysTable;
  principal: Principal;
}

export type KeyLookup = { principal: Principal; key: CachedKey } | { refused: string };

interface Secret {
  digest: Int32Array;
  keyId: string;
  expiresAt: number | null;
}

/** Secrets are read for at most this many changed keys per query. */
const CHUNK = 500;

export interface KeyCacheOptions {
  /** Decrypts providerKeys (absent: only legacy plain ones can be read). */
  cipher?: ProviderKeyCipher;
  /** Told when a key's providerKeys cannot be decrypted (the key is refused meanwhile). */
  onUnreadable?: (keyId: string, reason: string) => void;
}

type OpenedKeys = { ok: true; keys: ProviderKeys | undefined } | { ok: false; reason: string };

export class KeyCache {
  private revision = -1;
  private readonly keys = new Map<string, CachedKey>();
  private readonly byDigest = new Map<number, Secret[]>();
  private readonly hasher = new TokenHasher();
  private readonly secretsOfKey = new Map<string, Secret[]>();
  /** Key id -> when it was last used here; written in batches (never per request). */
  private readonly used = new Map<string, number>();
  private running: Promise<void> | undefined;
  private again = false;

  /** Keys whose providerKeys could not be decrypted: refused until they can be. */
  private readonly unreadable = new Set<string>();
  /** The current load's number: a load given up (LOAD_TIMEOUT_MS) applies nothing. */
  private generation = 0;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly now: () => number,
    private readonly options: KeyCacheOptions = {},
  ) {}

  /** Brings the cache up to the store's revision; concurrent calls share a run (and one more after it). */
  refresh(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    const run = (async () => {
      try {
        do {
          this.again = false;
          await this.loadWithin();
        } while (this.again);
      } finally {
        this.running = undefined;
      }
    })();
    this.running = run;
    return run;
  }

  /**
   * One load, given up after LOAD_TIMEOUT_MS: a database connection that went silent (a failover
   * that leaves it open) would otherwise hold every later refresh behind it for good, and key
   * changes would stop reaching this instance. A load given up changes nothing when it ends late.
   */
  private loadWithin(): Promise<void> {
    const generation = ++this.generation;
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.generation++;
        reject(new Error(`the database did not answer within ${LOAD_TIMEOUT_MS} ms`));
      }, LOAD_TIMEOUT_MS);
      (timer as { unref?: () => void }).unref?.();
      this.load(generation).then(
        () => {
          clearTimeout(timer);
          resolve();
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err);
        },
      );
    });
  }

  private async load(generation: number): Promise<void> {
    const state = await this.db.selectFrom('control_state').select('value').where('name', '=', 'keys_revision').executeTakeFirst();
    const revision = Number(state?.value ?? 0);
    if (revision === this.revision) return;
    const rows = await this.db.selectFrom('api_keys').selectAll().where('revision', '>', this.revision).execute();
    const secrets: ApiKeySecretsTable[] = [];
    if (this.revision < 0) secrets.push(...(await this.db.selectFrom('api_key_secrets').selectAll().execute()));
    else {
      for (let i = 0; i < rows.length; i += CHUNK) {
        const ids = rows.slice(i, i + CHUNK).map((r) => r.id);
        secrets.push(...(await this.db.selectFrom('api_key_secrets').selectAll().where('key_id', 'in', ids).execute()));
      }
    }
    // Decrypted first, so the cache changes in one synchronous step (a lookup never sees half a change).
    const opened = await Promise.all(rows.map((row) => this.providerKeysOf(row)));
    if (generation !== this.generation) return; // given up meanwhile: a later load holds newer rows
    rows.forEach((row, i) => {
      const found = opened[i] as OpenedKeys;
      if (found.ok) this.unreadable.delete(row.id);
      else {
        this.unreadable.add(row.id);
        this.options.onUnreadable?.(row.id, found.reason);
      }
      this.put(row, found.ok ? found.keys : undefined);
    });
    const byKey = new Map<string, ApiKeySecretsTable[]>();
    for (const s of secrets) {
      const list = byKey.get(s.key_id) ?? [];
      list.push(s);
      byKey.set(s.key_id, list);
    }
    for (const row of rows) this.putSecrets(row.id, byKey.get(row.id) ?? []);
    this.revision = revision;
  }

  /** A row's providerKeys in the clear, or why they cannot be read. */
  private async providerKeysOf(row: ApiKeysTable): Promise<OpenedKeys> {
    if (!row.provider_keys) return { ok: true, keys: undefined };
    try {
      return { ok: true, keys: await openProviderKeys(this.options.cipher, row.id, row.provider_keys) };
    } catch (err) {
      return { ok: false, reason: (err as Error).message };
    }
  }

  private put(row: ApiKeysTable, providerKeys: ProviderKeys | undefined): void {
    const limits = row.limits ? (JSON.parse(row.limits) as LimitsConfig) : undefined;
    const principal: Principal = {
      id: row.id,
      models: JSON.parse(row.models) as string[],
      ...(limits ? { limits } : {}),
      ...(providerKeys && Object.keys(providerKeys).length ? { providerKeys } : {}),
      metadata: JSON.parse(row.metadata) as Record<string, string>,
    };
    this.keys.set(row.id, { row, principal });
  }

  private putSecrets(keyId: string, rows: ApiKeySecretsTable[]): void {
    for (const old of this.secretsOfKey.get(keyId) ?? []) {
      const bucket = this.byDigest.get(keyOf(old.digest));
      if (!bucket) continue;
      const rest = bucket.filter((s) => s !== old);
      if (rest.length) this.byDigest.set(keyOf(old.digest), rest);
      else this.byDigest.delete(keyOf(old.digest));
    }
    const fresh = rows.map((r): Secret => ({ digest: digestWords(r.digest), keyId, expiresAt: r.expires_at }));
    for (const s of fresh) {
      const bucket = this.byDigest.get(keyOf(s.digest)) ?? [];
      bucket.push(s);
      this.byDigest.set(keyOf(s.digest), bucket);
    }
    this.secretsOfKey.set(keyId, fresh);
  }

  private secretOf(token: string): Secret | undefined {
    const digest = this.hasher.digest(token);
    const bucket = this.byDigest.get(keyOf(digest));
    if (!bucket) return undefined;
    let found: Secret | undefined;
    for (let i = 0; i < bucket.length; i++) {
      const s = bucket[i] as Secret;
      if (timingSafeEqual(s.digest, digest) && !found) found = s;
    }
    return found;
  }

  /** Whether `token` is (or was) one of the store's platform keys, in any state. */
  isPlatformKey(token: string): boolean {
    return this.secretOf(token) !== undefined;
  }

  /** The principal of a usable key, a refusal naming why a known one is not usable, or undefined for an unknown token. */
  lookup(token: string): KeyLookup | undefined {
    const secret = this.secretOf(token);
    if (!secret) return undefined;
    const key = this.keys.get(secret.keyId);
    if (!key) return undefined;
    const now = this.now();
    const row = key.row;
    if (row.status === 'revoked') return { refused: 'This API key has been revoked.' };
    if (row.status === 'disabled') return { refused: 'This API key is disabled.' };
    if (row.expires_at !== null && row.expires_at <= now) return { refused: `This API key expired at ${new Date(row.expires_at).toISOString()}.` };
    if (secret.expiresAt !== null && secret.expiresAt <= now) return { refused: "This API key was replaced by a rotation and its grace period has ended; use the key's new secret." };
    if (this.unreadable.has(row.id)) return { refused: "This API key's own provider credentials (providerKeys) cannot be read by this server; the operator must configure the secret they were stored with." };
    this.used.set(row.id, now);
    return { principal: key.principal, key };
  }

  get(keyId: string): CachedKey | undefined {
    return this.keys.get(keyId);
  }

  /** Writes when keys were last used (batched, only ever forward); the map starts over. */
  async flushLastUsed(): Promise<void> {
    if (!this.used.size) return;
    const batch = [...this.used];
    this.used.clear();
    for (const [id, at] of batch) {
      await this.db
        .updateTable('api_keys')
        .set({ last_used_at: at })
        .where('id', '=', id)
        .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', at)]))
        .execute();
    }
  }
}
