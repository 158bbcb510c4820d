/**
 * The response cache in Redis, shared by every gateway instance that uses the same client and
 * prefix: `GET` and `SET ... PX` (entries expire in Redis; its own `maxmemory-policy` bounds it).
 * The client is injected (ioredis fits), so the core stays free of Node modules.
 */
import type { ResponseCache } from './response-cache.js';

/** The Redis commands the cache needs (ioredis fits). */
export interface RedisCacheClient {
  get(key: string): Promise<string | null>;
  set(key: string, value: string, px: 'PX', ttlMs: number): Promise<unknown>;
}

export class RedisResponseCache implements ResponseCache {
  constructor(
    private readonly client: RedisCacheClient,
    private readonly prefix = 'modelgate:cache:',
  ) {}

  async get(key: string): Promise<string | undefined> {
    return (await this.client.get(`${this.prefix}${key}`)) ?? undefined;
  }

  async set(key: string, value: string, ttlMs: number): Promise<void> {
    await this.client.set(`${this.prefix}${key}`, value, 'PX', Math.max(1, Math.round(ttlMs)));
  }
}
