/**
 * The lifecycle of the store's platform keys: create, list (cursor pages, search, filters), show,
 * update, rotate (with a grace period; idempotent with an Idempotency-Key), disable, enable and
 * revoke. Every change runs in one transaction that bumps the keys revision, writes the key and
 * its audit entry; then every instance is told (this one's cache at once, the others through the
 * notifier or their next refresh). Keys from the config file are listed read-only.
 */
import { foldForSearch, keySearchText, searchPattern } from './key-search.js';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { KeyConfig } from '../../config/schema.js';
import { GatewayError } from '../../core/errors.js';
import { quoteInput } from '../../core/quote-input.js';
import { recordAudit } from '../audit/audit-log.js';
import type { Database } from '../db/database.js';
import type { ApiKeysTable } from '../db/schema-keys.js';
import { timeOrderedId } from '../ids.js';
import { conflict, notFound, pageOf, type ListPage } from '../list-page.js';
import { idempotencyKey, remember, replayed, type StoredAnswer } from './idempotency.js';
import type { KeyCache } from './key-cache.js';
import { newSecret } from './key-secret.js';
import type { ProviderKeyCipher, ProviderKeys } from './provider-key-cipher.js';
import { recordOfConfigKey, recordOfRow, type CreateKeyInput, type KeyRecord, type KeyStatus, type KeyStatusFilter, type KeyWithSecret, type UpdateKeyInput } from './key-wire.js';

/** What the gateway's config adds: its read-only keys and the provider ids `providerKeys` may name (unchecked when absent). */
export interface KeysConfigView {
  configKeys: readonly KeyConfig[];
  providerIds?: ReadonlySet<string>;
}

export interface KeyListQuery {
  limit: number;
  after?: string | undefined;
  /** Matches name, owner and metadata (case-insensitive substring). */
  search?: string;
  status?: KeyStatusFilter;
  owner?: string;
  source?: 'store' | 'config';
}

export interface KeyServiceOptions {
  db: Kysely<Database>;
  cache: KeyCache;
  now: () => number;
  /** Tells the other instances that keys changed (Redis pub/sub); they also poll. */
  announce?: () => Promise<void>;
  /** Encrypts providerKeys at rest; without it a key cannot be given providerKeys (409). */
  cipher?: ProviderKeyCipher;
}

const CONFIG_CURSOR = 'config:';
/** A store key's id (ids.ts: `key_`, 10 characters of time, 16 random). */
const STORE_KEY_ID = /^key_[0-9a-z]{26}$/;

export class KeyService {
  private readonly db: Kysely<Database>;
  private readonly cache: KeyCache;
  private readonly now: () => number;
  private readonly announce: (() => Promise<void>) | undefined;
  private readonly cipher: ProviderKeyCipher | undefined;

  constructor(options: KeyServiceOptions) {
    this.db = options.db;
    this.cache = options.cache;
    this.now = options.now;
    this.announce = options.announce;
    this.cipher = options.cipher;
  }

  /** The stored form of providerKeys: encrypted; none (null) when empty; 409 when there is no secret to encrypt them with. */
  private async sealed(keyId: string, keys: ProviderKeys | null | undefined): Promise<string | null> {
    if (!keys || !Object.keys(keys).length) return null;
    if (!this.cipher) {
      throw new GatewayError(
        'conflict',
        'providerKeys cannot be stored: this server has no secret to encrypt them at rest. Set MODELGATE_SECRET (or control.secret in the config) to the same value on every instance, then try again.',
        { param: 'providerKeys', detail: 'provider_keys_need_secret' },
      );
    }
    return this.cipher.seal(keyId, keys);
  }

  async create(input: CreateKeyInput, actor: string, view: KeysConfigView, idempotency?: string): Promise<StoredAnswer & { body: KeyWithSecret }> {
    checkProviders(input.providerKeys, view);
    const expiresAt = futureInstant(input.expiresAt, this.now());
    // Refused before anything is written (and before an Idempotency-Key is spent).
    if (input.providerKeys && !this.cipher) await this.sealed('', input.providerKeys);
    // Scoped to the actor too: another admin reusing the same Idempotency-Key makes its own change, and never reads this one's secret.
    const idem = idempotency ? await idempotencyKey(`key.create:${actor}`, idempotency, input) : undefined;
    return this.write(async (trx, revision) => {
      const now = this.now();
      if (idem) {
        const earlier = await replayed(trx, idem, now);
        if (earlier) return earlier as StoredAnswer & { body: KeyWithSecret };
      }
      const secret = await newSecret();
      const id = timeOrderedId('key_', now);
      const row: ApiKeysTable = {
        id,
        name: input.name,
        owner: input.owner ?? null,
        models: JSON.stringify(input.models ?? ['*']),
        limits: input.limits ? JSON.stringify(input.limits) : null,
        metadata: JSON.stringify(input.metadata ?? {}),
        provider_keys: await this.sealed(id, input.providerKeys),
        expires_at: expiresAt,
        status: 'active',
        prefix: secret.prefix,
        last4: secret.last4,
        created_at: now,
        updated_at: now,
        revoked_at: null,
        last_used_at: null,
        revision,
        search_text: keySearchText(input.name, input.owner ?? null, input.metadata ?? {}),
      };
      await trx.insertInto('api_keys').values(row).execute();
      await trx.insertInto('api_key_secrets').values({ digest: secret.digest, key_id: row.id, prefix: secret.prefix, last4: secret.last4, created_at: now, expires_at: null }).execute();
      const record = recordOfRow(row);
      await recordAudit(trx, { actor, action: 'key.create', targetType: 'key', targetId: row.id, before: null, after: record }, now);
      const answer = { status: 201, body: { ...record, key: secret.secret } };
      if (idem) await remember(trx, idem, answer, now);
      return answer;
    });
  }

  async list(q: KeyListQuery, view: KeysConfigView): Promise<ListPage<KeyRecord>> {
    const want = q.limit + 1;
    const out: Array<{ record: KeyRecord; cursor: string }> = [];
    const afterConfig = q.after?.startsWith(CONFIG_CURSOR) ? q.after.slice(CONFIG_CURSOR.length) : undefined;
    // A cursor is a nextCursor this list gave: a config key's, or a store key id (a garbled one listed nothing and said so with a 200).
    if (q.after !== undefined && (afterConfig !== undefined ? !view.configKeys.some((k) => k.id === afterConfig) : !STORE_KEY_ID.test(q.after))) {
      throw new GatewayError('invalid_request', `The query parameter 'after' is not a cursor of this list: '${quoteInput(q.after, 60)}'. Pass a nextCursor the list answered.`, { param: 'after' });
    }
    const inStoreAlready = q.after !== undefined && afterConfig === undefined;
    if (!inStoreAlready && q.source !== 'store') {
      let started = afterConfig === undefined;
      for (const k of view.configKeys) {
        if (!started) {
          started = k.id === afterConfig;
          continue;
        }
        const record = recordOfConfigKey(k);
        if (matchesConfig(record, q)) out.push({ record, cursor: CONFIG_CURSOR + k.id });
        if (out.length === want) break;
      }
    }
    if (out.length < want && q.source !== 'config') {
      let query = this.db.selectFrom('api_keys').selectAll().orderBy('id', 'desc').limit(want - out.length);
      if (inStoreAlready) query = query.where('id', '<', q.after as string);
      if (q.status === 'expired') query = query.where('status', '=', 'active').where('expires_at', 'is not', null).where('expires_at', '<=', this.now());
      else if (q.status === 'active') query = query.where('status', '=', 'active').where((eb) => eb.or([eb('expires_at', 'is', null), eb('expires_at', '>', this.now())]));
      else if (q.status) query = query.where('status', '=', q.status);
      if (q.owner) query = query.where('owner', '=', q.owner);
      if (q.search) query = query.where(sql<boolean>`search_text like ${searchPattern(q.search)} escape '!'`);
      for (const row of await query.execute()) out.push({ record: recordOfRow(row), cursor: row.id });
    }
    const page = pageOf(out, q.limit, (e) => e.cursor);
    return { ...page, data: page.data.map((e) => e.record) };
  }

  async get(id: string, view: KeysConfigView): Promise<KeyRecord> {
    const fromConfig = view.configKeys.find((k) => k.id === id);
    if (fromConfig) return recordOfConfigKey(fromConfig);
    const row = await this.db.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('key', id);
    return recordOfRow(row);
  }

  async update(id: string, patch: UpdateKeyInput, actor: string, view: KeysConfigView): Promise<KeyRecord> {
    readOnlyIfConfig(id, view, 'changed');
    // Nothing to change: the key as it is, with no write and no audit entry.
    if (Object.values(patch).every((v) => v === undefined)) return this.get(id, view);
    checkProviders(patch.providerKeys ?? undefined, view);
    const expiresAt = patch.expiresAt === undefined ? undefined : futureInstant(patch.expiresAt, this.now());
    if (patch.providerKeys && !this.cipher) await this.sealed(id, patch.providerKeys);
    return this.write(async (trx, revision) => {
      const row = await this.current(trx, id);
      const providerKeys = patch.providerKeys === undefined ? undefined : await this.sealed(id, patch.providerKeys);
      if (row.status === 'revoked') throw conflict(`The key '${id}' is revoked; a revoked key cannot be changed.`, 'key_revoked');
      const next: ApiKeysTable = {
        ...row,
        ...(patch.name !== undefined ? { name: patch.name } : {}),
        ...(patch.owner !== undefined ? { owner: patch.owner } : {}),
        ...(patch.models !== undefined ? { models: JSON.stringify(patch.models) } : {}),
        ...(patch.limits !== undefined ? { limits: patch.limits === null ? null : JSON.stringify(patch.limits) } : {}),
        ...(patch.metadata !== undefined ? { metadata: JSON.stringify(patch.metadata) } : {}),
        ...(providerKeys !== undefined ? { provider_keys: providerKeys } : {}),
        ...(expiresAt !== undefined ? { expires_at: expiresAt } : {}),
        updated_at: this.now(),
        revision,
      };
      return this.save(trx, 'key.update', actor, row, next);
    });
  }

  async rotate(id: string, gracePeriodSeconds: number, actor: string, view: KeysConfigView, idempotency?: string): Promise<StoredAnswer & { body: KeyWithSecret }> {
    readOnlyIfConfig(id, view, 'rotated');
    const idem = idempotency ? await idempotencyKey(`key.rotate:${id}:${actor}`, idempotency, { gracePeriodSeconds }) : undefined;
    return this.write(async (trx, revision) => {
      const now = this.now();
      if (idem) {
        const earlier = await replayed(trx, idem, now);
        if (earlier) return earlier as StoredAnswer & { body: KeyWithSecret };
      }
      const row = await this.current(trx, id);
      if (row.status === 'revoked') throw conflict(`The key '${id}' is revoked; a revoked key cannot be rotated.`, 'key_revoked');
      const until = now + gracePeriodSeconds * 1000;
      // The current secret works until the grace period ends; secrets already rotated out keep their earlier end.
      await trx.updateTable('api_key_secrets').set({ expires_at: until }).where('key_id', '=', id).where('expires_at', 'is', null).execute();
      await trx.updateTable('api_key_secrets').set({ expires_at: until }).where('key_id', '=', id).where('expires_at', '>', until).execute();
      const secret = await newSecret();
      await trx.insertInto('api_key_secrets').values({ digest: secret.digest, key_id: id, prefix: secret.prefix, last4: secret.last4, created_at: now, expires_at: null }).execute();
      const next: ApiKeysTable = { ...row, prefix: secret.prefix, last4: secret.last4, updated_at: now, revision };
      const record = await this.save(trx, 'key.rotate', actor, row, next, { gracePeriodSeconds });
      const answer = { status: 200, body: { ...record, key: secret.secret } };
      if (idem) await remember(trx, idem, answer, now);
      return answer;
    });
  }

  async setStatus(id: string, status: KeyStatus, actor: string, view: KeysConfigView): Promise<KeyRecord> {
    readOnlyIfConfig(id, view, status === 'revoked' ? 'revoked' : status === 'disabled' ? 'disabled' : 'enabled');
    return this.write(async (trx, revision) => {
      const row = await this.current(trx, id);
      if (row.status === status) return recordOfRow(row);
      if (row.status === 'revoked') throw conflict(`The key '${id}' is revoked; a revoked key cannot be ${status === 'active' ? 'enabled' : 'disabled'}.`, 'key_revoked');
      const now = this.now();
      const next: ApiKeysTable = { ...row, status, updated_at: now, revision, ...(status === 'revoked' ? { revoked_at: now } : {}) };
      const action = status === 'revoked' ? 'key.revoke' : status === 'disabled' ? 'key.disable' : 'key.enable';
      return this.save(trx, action, actor, row, next);
    });
  }

  private async current(trx: Transaction<Database>, id: string): Promise<ApiKeysTable> {
    const row = await trx.selectFrom('api_keys').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) throw notFound('key', id);
    return row;
  }

  private async save(trx: Transaction<Database>, action: string, actor: string, before: ApiKeysTable, changed: ApiKeysTable, details?: Record<string, unknown>): Promise<KeyRecord> {
    const next: ApiKeysTable = { ...changed, search_text: keySearchText(changed.name, changed.owner, JSON.parse(changed.metadata) as Record<string, string>) };
    await trx.updateTable('api_keys').set(next).where('id', '=', next.id).execute();
    const after = recordOfRow(next);
    await recordAudit(trx, { actor, action, targetType: 'key', targetId: next.id, before: recordOfRow(before), after: details ? { ...after, ...details } : after }, this.now());
    return after;
  }

  /**
   * One change: the revision is bumped first (its row lock orders concurrent writers on PostgreSQL,
   * and a write as the first statement takes SQLite's write lock at once), then `fn` runs in the
   * same transaction. After the commit this instance reloads and the others are told.
   */
  private async write<T>(fn: (trx: Transaction<Database>, revision: number) => Promise<T>): Promise<T> {
    const result = await this.db.transaction().execute(async (trx) => {
      const bumped = await trx
        .updateTable('control_state')
        .set((eb) => ({ value: eb('value', '+', 1) }))
        .where('name', '=', 'keys_revision')
        .returning('value')
        .executeTakeFirstOrThrow();
      return fn(trx, Number(bumped.value));
    });
    await this.cache.refresh();
    if (this.announce) await this.announce().catch(() => undefined);
    return result;
  }
}

function matchesConfig(r: KeyRecord, q: KeyListQuery): boolean {
  // Config keys have no expiry: none is ever `expired`.
  if (q.status && r.status !== q.status) return false;
  if (q.owner) return false;
  if (q.search && !foldForSearch(r.name).includes(foldForSearch(q.search))) return false;
  return true;
}

function readOnlyIfConfig(id: string, view: KeysConfigView, what: string): void {
  if (view.configKeys.some((k) => k.id === id)) {
    throw conflict(`The key '${quoteInput(id, 80)}' comes from the config file and is read-only here; it cannot be ${what} through the admin API. Change it in the config file.`, 'config_key_read_only');
  }
}

function checkProviders(providerKeys: Record<string, string> | undefined, view: KeysConfigView): void {
  if (!providerKeys || !view.providerIds) return;
  for (const id of Object.keys(providerKeys)) {
    if (!view.providerIds.has(id)) throw new GatewayError('invalid_request', `Unknown provider '${quoteInput(id, 80)}' in providerKeys.`, { param: `providerKeys.${quoteInput(id, 80)}` });
  }
}

/** An `expiresAt` as epoch ms (null: never); a time already past is a 400. */
function futureInstant(value: string | null | undefined, now: number): number | null {
  if (value === undefined || value === null) return null;
  const ms = Date.parse(value);
  if (ms <= now) throw new GatewayError('invalid_request', `Invalid value for 'expiresAt': ${value} is not in the future.`, { param: 'expiresAt' });
  return ms;
}
