/**
 * `modelgate keys create|list|show|update|rotate|disable|enable|revoke`: the platform keys'
 * lifecycle on the same database the server uses (--db, MODELGATE_DB, DATABASE_URL), through the
 * same service as the admin API (the same checks, the same audit log). Running servers see a
 * change within a second (at once through Redis when REDIS_URL is set). Tables, or --json.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { parseArgs } from 'node:util';
import type { GatewayConfig } from '../src/config/schema.js';
import { parseConfig, readConfigJson } from '../src/config/load.js';
import type { KeysConfigView } from '../src/control/keys/key-service.js';
import { createKeySchema, KEY_STATUS_FILTERS, rotateKeySchema, updateKeySchema, type KeyRecord, type KeyStatus, type KeyStatusFilter } from '../src/control/keys/key-wire.js';
import { parseOrThrow } from '../src/protocols/shared/zod-error.js';
import { GatewayError } from '../src/core/errors.js';
import { printable, table } from './cli-table.js';
import { openControlPlane } from './control.js';
import { redisSharedState } from './redis.js';
import type { Subcommand } from './subcommand.js';

const HELP = `modelgate keys - platform keys in the store

Usage:
  modelgate keys create --name NAME [key options]
  modelgate keys list [--search TEXT] [--status active|disabled|revoked|expired] [--owner O]
                      [--source store|config] [--limit N] [--after CURSOR]
  modelgate keys show ID
  modelgate keys update ID [key options]
  modelgate keys rotate ID [--grace-seconds N]
  modelgate keys disable ID | enable ID | revoke ID

Key options:
  --name NAME  --owner OWNER  --models GLOB,GLOB  --expires-at ISO|never
  --rpm N  --tpm N  --concurrency N  --budget-usd X --budget-period day|week|month
  --metadata KEY=VALUE (repeatable)  --provider-key PROVIDER=SECRET (repeatable)
  update changes only what its flags name: the other limits and labels stay; a limit
  given as "none" (--rpm none, --budget-usd none) is removed, --metadata KEY= removes a label.

Common: --db DB (as the server: file, "memory" or postgres:// URL; default $MODELGATE_DB,
$DATABASE_URL or ./modelgate.db), --config FILE (lists its keys, checks provider ids), --json.
The secret is printed once, by create and rotate.
`;

const OPTIONS = {
  db: { type: 'string' },
  config: { type: 'string', short: 'c' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  owner: { type: 'string' },
  models: { type: 'string' },
  'expires-at': { type: 'string' },
  rpm: { type: 'string' },
  tpm: { type: 'string' },
  concurrency: { type: 'string' },
  'budget-usd': { type: 'string' },
  'budget-period': { type: 'string' },
  metadata: { type: 'string', multiple: true },
  'provider-key': { type: 'string', multiple: true },
  'grace-seconds': { type: 'string' },
  search: { type: 'string' },
  status: { type: 'string' },
  source: { type: 'string' },
  limit: { type: 'string' },
  after: { type: 'string' },
} as const;

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

class UsageError extends Error {}

function num(flag: string, raw: string | undefined, integer: boolean): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) throw new UsageError(`--${flag} must be a ${integer ? 'whole ' : ''}number above 0, got ${JSON.stringify(raw)}`);
  return n;
}

function pairs(flag: string, list: string[] | undefined): Record<string, string> | undefined {
  if (!list) return undefined;
  const out: Record<string, string> = {};
  for (const item of list) {
    const at = item.indexOf('=');
    if (at <= 0) throw new UsageError(`--${flag} takes KEY=VALUE, got ${flag === 'provider-key' ? 'a value without "="' : JSON.stringify(item)}`);
    out[item.slice(0, at)] = item.slice(at + 1);
  }
  return out;
}

/** A limit flag's value: a number above 0, or (on update) `none` to remove that limit. */
function limitFlag(flag: string, raw: string | undefined, integer: boolean, updating: boolean): number | null | undefined {
  if (updating && raw === 'none') return null;
  return num(flag, raw, integer);
}

/**
 * The key fields given as flags, in the admin API's body shape (checked by the same schema). On
 * update (`current` given) the limits and metadata are merged into the stored ones, as a flag
 * changes only what it names: `--rpm 100` keeps the budget, `--budget-period day` keeps the
 * amount; `none` removes a limit and `--metadata KEY=` a label.
 */
function keyFields(v: Values, current?: KeyRecord): Record<string, unknown> {
  const updating = current !== undefined;
  const body: Record<string, unknown> = {};
  if (v.name !== undefined) body.name = v.name;
  if (v.owner !== undefined) body.owner = v.owner === '' ? null : v.owner;
  if (v.models !== undefined) body.models = v.models.split(',').map((m) => m.trim()).filter(Boolean);
  if (v['expires-at'] !== undefined) body.expiresAt = v['expires-at'] === 'never' ? null : v['expires-at'];
  const given: Record<string, number | null | undefined> = {
    requestsPerMinute: limitFlag('rpm', v.rpm, true, updating),
    tokensPerMinute: limitFlag('tpm', v.tpm, true, updating),
    concurrentRequests: limitFlag('concurrency', v.concurrency, true, updating),
  };
  const usd = limitFlag('budget-usd', v['budget-usd'], false, updating);
  const period = v['budget-period'];
  const changed = Object.values(given).some((x) => x !== undefined) || usd !== undefined || period !== undefined;
  if (changed) {
    const limits: Record<string, unknown> = { ...(current?.limits ?? {}) };
    for (const [field, value] of Object.entries(given)) {
      if (value === null) delete limits[field];
      else if (value !== undefined) limits[field] = value;
    }
    const stored = current?.limits?.budget;
    if (usd === null) delete limits.budget;
    else if (usd !== undefined || period !== undefined) {
      const amount = usd ?? stored?.usd;
      if (amount === undefined) throw new UsageError('--budget-period needs --budget-usd (the key has no budget)');
      limits.budget = { usd: amount, period: period ?? stored?.period ?? 'month' };
    }
    body.limits = Object.keys(limits).length ? limits : updating ? null : undefined;
    if (body.limits === undefined) delete body.limits;
  }
  const metadata = pairs('metadata', v.metadata);
  if (metadata) {
    if (!updating) body.metadata = metadata;
    else {
      const merged: Record<string, string> = { ...current.metadata };
      for (const [k, value] of Object.entries(metadata)) {
        if (value === '') delete merged[k];
        else merged[k] = value;
      }
      body.metadata = merged;
    }
  }
  const providerKeys = pairs('provider-key', v['provider-key']);
  if (providerKeys) body.providerKeys = providerKeys;
  return body;
}

function display(r: KeyRecord): string {
  return r.prefix ? `${r.prefix}…${r.last4}` : `…${r.last4}`;
}

/** The status as the table shows it: "expired" added once the expiry has passed (the key is refused). */
const statusText = (r: KeyRecord): string => (r.expired && r.status !== 'revoked' ? `${r.status} (expired)` : r.status);

function keysTable(records: readonly KeyRecord[]): string {
  return table(
    ['ID', 'NAME', 'OWNER', 'STATUS', 'SOURCE', 'KEY', 'MODELS', 'EXPIRES', 'LAST USED'],
    records.map((r) => [r.id, r.name, r.owner ?? '-', statusText(r), r.source, display(r), r.models.join(','), r.expiresAt ?? 'never', r.lastUsedAt ?? 'never']),
  );
}

function details(r: KeyRecord): string {
  const limits = r.limits ? JSON.stringify(r.limits) : 'none';
  const meta = Object.entries(r.metadata).map(([k, v]) => `${k}=${v}`).join(', ') || 'none';
  return table(
    ['FIELD', 'VALUE'],
    [
      ['id', r.id],
      ['name', r.name],
      ['owner', r.owner ?? '-'],
      ['status', statusText(r)],
      ['source', r.source],
      ['key', display(r)],
      ['models', r.models.join(', ')],
      ['limits', limits],
      ['metadata', meta],
      ['providerKeys', r.providerKeys.join(', ') || 'none'],
      ['expiresAt', r.expiresAt ?? 'never'],
      ['createdAt', r.createdAt ?? '-'],
      ['lastUsedAt', r.lastUsedAt ?? 'never'],
      ...(r.revokedAt ? [['revokedAt', r.revokedAt]] : []),
    ],
  );
}

function configView(file: string | undefined): KeysConfigView & { secret?: string } {
  if (!file) return { configKeys: [] };
  const cfg: GatewayConfig = parseConfig(readConfigJson(readFileSync(file, 'utf8')), process.env);
  return { configKeys: cfg.keys, providerIds: new Set(cfg.providers.map((p) => p.id)), ...(cfg.control.secret ? { secret: cfg.control.secret } : {}) };
}

export const runKeys: Subcommand = async (args, env) => {
  let parsed;
  try {
    parsed = parseArgs({ args, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    process.stderr.write(`modelgate keys: ${(err as Error).message}\n\n${HELP}`);
    return 2;
  }
  const { values: v, positionals } = parsed;
  const [action, id, ...extra] = positionals;
  if (v.help || !action) {
    process.stdout.write(HELP);
    return v.help ? 0 : 2;
  }
  const needsId = ['show', 'update', 'rotate', 'disable', 'enable', 'revoke'].includes(action);
  if (!needsId && action !== 'create' && action !== 'list') {
    process.stderr.write(`modelgate keys: unknown command ${JSON.stringify(action)}\n\n${HELP}`);
    return 2;
  }
  if ((needsId && !id) || extra.length || (!needsId && id)) {
    process.stderr.write(`modelgate keys ${action}: ${needsId ? 'takes one key id' : 'takes no positional arguments'}\n`);
    return 2;
  }
  const out = (json: unknown, text: string) => process.stdout.write(v.json ? `${JSON.stringify(json, null, 2)}\n` : text);
  const shared = env.REDIS_URL ? await redisSharedState(env.REDIS_URL, env.MODELGATE_REDIS_PREFIX || 'modelgate:') : undefined;
  let opened: Awaited<ReturnType<typeof openControlPlane>> | undefined;
  try {
    if (shared) await shared.ready();
    const view = configView(v.config);
    opened = await openControlPlane(v.db, env, { background: false, ...(view.secret ? { configSecret: view.secret } : {}), ...(shared ? { notifier: shared.notifier } : {}) });
    const keys = opened.control.keys;
    const actor = `cli:${userInfo().username}`;
    const keyId = id as string;
    switch (action) {
      case 'create': {
        const input = parseOrThrow(createKeySchema, keyFields(v));
        const { body } = await keys.create(input, actor, view);
        out(body, `${details(body)}\nSecret (shown once, store it now):\n${body.key}\n`);
        break;
      }
      case 'list': {
        const status = v.status;
        if (status !== undefined && !(KEY_STATUS_FILTERS as readonly string[]).includes(status)) throw new UsageError(`--status must be one of ${KEY_STATUS_FILTERS.join(', ')}`);
        if (v.source !== undefined && v.source !== 'store' && v.source !== 'config') throw new UsageError('--source must be store or config');
        const limit = num('limit', v.limit, true) ?? 50;
        if (limit > 100) throw new UsageError('--limit must be at most 100');
        const page = await keys.list(
          {
            limit,
            after: v.after,
            ...(v.search ? { search: v.search } : {}),
            ...(status ? { status: status as KeyStatusFilter } : {}),
            ...(v.owner ? { owner: v.owner } : {}),
            ...(v.source ? { source: v.source as 'store' | 'config' } : {}),
          },
          view,
        );
        out(page, `${keysTable(page.data)}${page.hasMore ? `\nMore: --after ${page.nextCursor}\n` : ''}`);
        break;
      }
      case 'show': {
        const record = await keys.get(keyId, view);
        out(record, details(record));
        break;
      }
      case 'update': {
        const patch = parseOrThrow(updateKeySchema, keyFields(v, await keys.get(keyId, view)));
        if (!Object.keys(patch).length) throw new UsageError('nothing to change: give at least one key option');
        const record = await keys.update(keyId, patch, actor, view);
        out(record, details(record));
        break;
      }
      case 'rotate': {
        const grace = v['grace-seconds'];
        const { gracePeriodSeconds } = parseOrThrow(rotateKeySchema, grace === undefined ? {} : { gracePeriodSeconds: Number(grace) });
        const { body } = await keys.rotate(keyId, gracePeriodSeconds, actor, view);
        const note = gracePeriodSeconds ? `The old secret works for ${gracePeriodSeconds} more seconds.\n` : 'The old secret no longer works.\n';
        out(body, `${details(body)}\n${note}New secret (shown once, store it now):\n${body.key}\n`);
        break;
      }
      default: {
        const status: KeyStatus = action === 'revoke' ? 'revoked' : action === 'disable' ? 'disabled' : 'active';
        const record = await keys.setStatus(keyId, status, actor, view);
        out(record, details(record));
      }
    }
    return 0;
  } catch (err) {
    if (err instanceof UsageError) process.stderr.write(`modelgate keys ${action}: ${printable(err.message)}\n`);
    else if (err instanceof GatewayError) process.stderr.write(`modelgate keys ${action}: ${printable(err.message)}${err.param ? ` (${printable(err.param)})` : ''}\n`);
    else process.stderr.write(`modelgate keys ${action}: ${printable((err as Error).message)}\n`);
    return err instanceof GatewayError && err.status === 404 ? 4 : 1;
  } finally {
    await opened?.close().catch(() => undefined);
    await shared?.close().catch(() => undefined);
  }
};
