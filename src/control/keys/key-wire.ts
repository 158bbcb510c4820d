/**
 * The wire shapes of platform keys in the admin API (camelCase, like the config file): a key record
 * is a config key entry plus its state. The zod schemas here check request bodies and generate the
 * OpenAPI document.
 */
import { z } from 'zod';
import { limitsSchema, type KeyConfig, type LimitsConfig } from '../../config/schema.js';
import type { ApiKeysTable } from '../db/schema-keys.js';
import { displayParts } from './key-secret.js';
import { providerIdsOf } from './provider-key-cipher.js';

export const KEY_STATUSES = ['active', 'disabled', 'revoked'] as const;
export type KeyStatus = (typeof KEY_STATUSES)[number];
/** What a key list filters on: a status, or `expired` (active, but past its expiry: refused); `active` then leaves expired keys out. */
export const KEY_STATUS_FILTERS = [...KEY_STATUSES, 'expired'] as const;
export type KeyStatusFilter = (typeof KEY_STATUS_FILTERS)[number];

/** C0 and C1 control characters (newlines, ESC, BEL, ...) and DEL: they rewrite an operator's terminal (`modelgate keys list`) and break tables and logs. */
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** A UTF-16 surrogate without its pair: not representable in UTF-8, so the database would store replacement bytes. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** Text an operator reads back in tables and terminals: no control characters, no lone surrogates. */
function plainText(max: number, min = 1) {
  return z
    .string()
    .trim()
    .min(min)
    .max(max)
    .refine((s) => !CONTROL.test(s), { message: 'must not contain control characters (newlines, escape sequences)' })
    .refine((s) => !LONE_SURROGATE.test(s), { message: 'must be valid Unicode (a lone surrogate was sent)' });
}

const modelsSchema = z.array(plainText(200)).min(1).max(100).describe('Glob patterns of the model ids the key may call (default ["*"]).');
/** Labels per key at most (as Stripe's metadata): every instance holds every key's labels in memory, and every key list carries them. */
export const MAX_METADATA_ENTRIES = 50;
const metadataSchema = z
  .record(plainText(100), plainText(1000, 0))
  .refine((m) => Object.keys(m).length <= MAX_METADATA_ENTRIES, { message: `Too big: expected at most ${MAX_METADATA_ENTRIES} labels` })
  .describe(`Free-form string labels (team, plan...), at most ${MAX_METADATA_ENTRIES}. Searchable.`);
const expiresAtSchema = z.iso.datetime({ offset: true }).nullable().describe('ISO 8601 instant after which the key is refused (null: never).');
const providerKeysSchema = z.record(z.string().min(1), z.string().min(1)).describe("Provider id -> the key holder's own upstream credential (bring your own key). Never returned.");

export const createKeySchema = z.strictObject({
  name: plainText(200),
  owner: plainText(200).nullable().optional(),
  models: modelsSchema.optional(),
  limits: limitsSchema.optional(),
  expiresAt: expiresAtSchema.optional(),
  metadata: metadataSchema.optional(),
  providerKeys: providerKeysSchema.optional(),
});
export type CreateKeyInput = z.output<typeof createKeySchema>;

/** PATCH: the fields given replace the stored ones; null clears owner, limits, expiresAt and providerKeys. */
export const updateKeySchema = z.strictObject({
  name: plainText(200).optional(),
  owner: plainText(200).nullable().optional(),
  models: modelsSchema.optional(),
  limits: limitsSchema.nullable().optional(),
  expiresAt: expiresAtSchema.optional(),
  metadata: metadataSchema.optional(),
  providerKeys: providerKeysSchema.nullable().optional(),
});
export type UpdateKeyInput = z.output<typeof updateKeySchema>;

export const rotateKeySchema = z.strictObject({
  gracePeriodSeconds: z.number().int().min(0).max(30 * 24 * 3600).default(0).describe('How long the old secret keeps working (default 0: refused at once).'),
});

export const keyRecordSchema = z.object({
  object: z.literal('key'),
  id: z.string().describe('Stable across rotations: key_…, or the config entry id.'),
  prefix: z.string().describe('The first characters of the secret, for display.'),
  last4: z.string(),
  name: z.string(),
  owner: z.string().nullable(),
  models: z.array(z.string()),
  limits: limitsSchema.nullable(),
  expiresAt: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
  providerKeys: z.array(z.string()).describe('The providers this key brings its own credential for (ids only, never the credentials).'),
  status: z.enum(KEY_STATUSES),
  expired: z.boolean().describe('True once expiresAt has passed: the key is refused whatever its status says.'),
  source: z.enum(['store', 'config']).describe('"config": from the config file, read-only here.'),
  createdAt: z.string().nullable(),
  updatedAt: z.string().nullable(),
  revokedAt: z.string().nullable(),
  lastUsedAt: z.string().nullable(),
});
export type KeyRecord = z.output<typeof keyRecordSchema>;

/** The creation and rotation answer: the record plus the secret, this once. */
export const keyWithSecretSchema = keyRecordSchema.extend({ key: z.string().describe('The secret: shown this once, never again.') });
export type KeyWithSecret = z.output<typeof keyWithSecretSchema>;

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

export type ApiKeyRow = ApiKeysTable;

export function recordOfRow(row: ApiKeyRow): KeyRecord {
  const providerKeys = providerIdsOf(row.provider_keys);
  return {
    object: 'key',
    id: row.id,
    prefix: row.prefix,
    last4: row.last4,
    name: row.name,
    owner: row.owner,
    models: JSON.parse(row.models) as string[],
    limits: row.limits ? (JSON.parse(row.limits) as LimitsConfig) : null,
    expiresAt: iso(row.expires_at),
    metadata: JSON.parse(row.metadata) as Record<string, string>,
    providerKeys,
    status: row.status,
    expired: row.expires_at !== null && row.expires_at <= Date.now(),
    source: 'store',
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
    revokedAt: iso(row.revoked_at),
    lastUsedAt: iso(row.last_used_at),
  };
}

export function recordOfConfigKey(k: KeyConfig): KeyRecord {
  return {
    object: 'key',
    id: k.id,
    ...displayParts(k.key),
    name: k.id,
    owner: null,
    models: [...k.models],
    limits: k.limits ?? null,
    expiresAt: null,
    metadata: {},
    providerKeys: Object.keys(k.providerKeys ?? {}),
    status: k.disabled ? 'disabled' : 'active',
    expired: false,
    source: 'config',
    createdAt: null,
    updatedAt: null,
    revokedAt: null,
    lastUsedAt: null,
  };
}
