/**
 * Whether and how a request uses the response cache. Opt-in: a model or key with `cache` in the
 * config (the key's setting wins); per request, `Cache-Control: no-store` (neither read nor
 * write), `no-cache` (do not read, store the fresh answer) and `max-age=N` (accept only an answer
 * stored within N seconds). The key is a SHA-256 digest of the scope (the platform key, or
 * `global`), the entry point, the resolved model and the request's semantic fields (not `user`,
 * `stream`, `stream_options`, `metadata`, `store` or ids). An answer paid with the caller's own
 * upstream credential (bring your own key) is cached only for that key.
 */
import type { Principal } from '../auth/principal.js';
import { sha256 } from '../auth/sha256.js';
import type { CacheConfig } from '../config/schema.js';
import type { ResolvedModel } from '../routing/model-registry.js';

export const CACHE_HEADER = 'x-modelgate-cache';

/** Request fields that do not change the answer. */
const IGNORED = new Set(['user', 'stream', 'stream_options', 'metadata', 'store', 'service_tier', 'safety_identifier', 'prompt_cache_key', 'request_id', 'traceId']);

export interface CachePlan {
  /** The digest the answer is kept under. */
  key: string;
  ttlMs: number;
  /** False with `Cache-Control: no-cache` (the fresh answer is still stored). */
  read: boolean;
  /** Oldest answer accepted (`max-age`), in ms; undefined: every live one. */
  maxAgeMs?: number;
  /** Share of the original price a hit costs. */
  hitCostFraction: number;
}

interface CacheControl {
  noStore: boolean;
  noCache: boolean;
  maxAgeSeconds?: number;
}

export function parseCacheControl(header: string | null): CacheControl {
  const out: CacheControl = { noStore: false, noCache: false };
  if (!header) return out;
  for (const part of header.split(',')) {
    const [name = '', value] = part.trim().toLowerCase().split('=', 2);
    if (name === 'no-store') out.noStore = true;
    else if (name === 'no-cache') out.noCache = true;
    else if (name === 'max-age' && value !== undefined && /^\d+$/.test(value.trim())) out.maxAgeSeconds = Number(value.trim());
  }
  return out;
}

/**
 * JSON with object keys sorted, so the same request in another key order has the same digest.
 * Built in one string (no per-key arrays): it runs on every cached call, hit or miss.
 */
function stableJson(value: unknown): string {
  if (typeof value !== 'object' || value === null) return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let out = '[';
    for (let i = 0; i < value.length; i++) out += (i ? ',' : '') + stableJson(value[i]);
    return `${out}]`;
  }
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = '{';
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    out += `${first ? '' : ','}${JSON.stringify(k)}:${stableJson(v)}`;
    first = false;
  }
  return `${out}}`;
}

const HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'));

function hex(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) out += HEX[b];
  return out;
}

/** The request's semantic fields: the body without the fields that do not change the answer. */
export function semanticFields(body: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(body)) if (!IGNORED.has(k)) out[k] = v;
  return out;
}

/**
 * The cache plan of a request to `model` at `entry` (the entry point and anything of the answer's
 * shape not in the body, e.g. `gemini:batchEmbedContents`); undefined when the request does not use
 * the cache.
 */
export function cachePlan(principal: Principal | undefined, model: ResolvedModel, headers: Headers, entry: string, body: Record<string, unknown>): CachePlan | undefined {
  const settings: CacheConfig | undefined = principal?.cache ?? model.cache;
  if (!settings || !principal) return undefined;
  const control = parseCacheControl(headers.get('cache-control'));
  if (control.noStore) return undefined;
  const ownCredential = model.deployments.some((d) => d.provider.credential === 'caller');
  if (settings.scope === 'global' && ownCredential) return undefined;
  const scope = settings.scope === 'global' ? 'global' : `key:${principal.id}`;
  const text = stableJson([1, scope, entry, model.id, semanticFields(body)]);
  return {
    key: hex(sha256(new TextEncoder().encode(text))),
    ttlMs: settings.ttlSeconds * 1000,
    read: !control.noCache && control.maxAgeSeconds !== 0,
    ...(control.maxAgeSeconds !== undefined ? { maxAgeMs: control.maxAgeSeconds * 1000 } : {}),
    hitCostFraction: settings.hitCostFraction,
  };
}
