/**
 * The default response cache: one process, bounded in bytes (UTF-16 code units x 2 of key and
 * value). A Map keeps insertion order, so re-inserting on every read makes its first key the least
 * recently used one, evicted first; expired entries go when read or evicted.
 */
import { DEFAULT_CACHE_MAX_BYTES, type ResponseCache } from './response-cache.js';

interface Entry {
  value: string;
  expiresAt: number;
  bytes: number;
}

export class MemoryResponseCache implements ResponseCache {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly now: () => number = Date.now,
    readonly maxBytes = DEFAULT_CACHE_MAX_BYTES,
  ) {}

  async get(key: string): Promise<string | undefined> {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    if (entry.expiresAt <= this.now()) {
      this.bytes -= entry.bytes;
      return undefined;
    }
    this.entries.set(key, entry);
    return entry.value;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    const bytes = (key.length + value.length) * 2;
    this.remove(key);
    // An answer larger than the whole cache is not kept (it would evict everything else).
    if (bytes > this.maxBytes) return;
    this.entries.set(key, { value, expiresAt: this.now() + ttlMs, bytes });
    this.bytes += bytes;
    for (const [k] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(k);
    }
  }

  /** Bytes held now (for tests and metrics). */
  get size(): number {
    return this.bytes;
  }

  private remove(key: string): void {
    const entry = this.entries.get(key);
    if (!entry) return;
    this.entries.delete(key);
    this.bytes -= entry.bytes;
  }
}
