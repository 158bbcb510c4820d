/**
 * The response cache's store: exact-match answers by key, each with its time to live. In memory by
 * default (MemoryResponseCache, a least-recently-used cache bounded in bytes); RedisResponseCache
 * for several instances. A store failure is a miss, never a failed request.
 */
import type { IRChatResponse, IRUsage } from '../ir/types.js';

/** What a cached answer holds: a chat answer in the IR (re-encoded in the caller's protocol, streamed or not), or a JSON body (embeddings). */
export type CachedAnswer =
  | { kind: 'chat'; response: IRChatResponse }
  | { kind: 'json'; body: string; usage?: IRUsage };

export interface CacheEntry {
  answer: CachedAnswer;
  /** When the answer was stored (epoch ms), for `Cache-Control: max-age`. */
  storedAt: number;
  /** What the answer cost when it was made (USD), for hits priced at a fraction of it. */
  costUsd?: number;
}

export interface ResponseCache {
  get(key: string): Promise<string | undefined>;
  /** Stores `value` (a serialized CacheEntry) for `ttlMs`. */
  set(key: string, value: string, ttlMs: number): Promise<void>;
}

/** Default memory bound: 64 MiB of cached answers. */
export const DEFAULT_CACHE_MAX_BYTES = 64 * 1024 * 1024;
