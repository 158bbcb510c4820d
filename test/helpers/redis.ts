/**
 * Redis for the suites that share state through it: they run when REDIS_URL is set and then fail
 * (never skip, never hang) when Redis cannot be reached; each run writes under its own key prefix
 * and deletes it afterwards.
 */
import { Redis } from 'ioredis';

export const REDIS_URL = process.env.REDIS_URL;

/** The notice a suite prints when it is skipped for want of REDIS_URL. */
export function warnWithoutRedis(suite: string, skipped: string): void {
  if (!REDIS_URL) console.warn(`[${suite}] REDIS_URL is not set: skipping ${skipped} (run with REDIS_URL=redis://127.0.0.1:6379 to include them).`);
}

/** A key prefix no other run or suite uses: `modelgate-test:<tag><pid>-<time>-<random>:<suffix>`. */
export function uniquePrefix(tag = '', suffix = ''): string {
  return `modelgate-test:${tag}${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}:${suffix}`;
}

/** `count` connected clients of REDIS_URL. No retries: an unreachable Redis fails the suite. */
export async function connectRedis(count: number): Promise<Redis[]> {
  const opts = { lazyConnect: true, maxRetriesPerRequest: 1, connectTimeout: 3000, retryStrategy: () => null };
  const clients = Array.from({ length: count }, () => new Redis(REDIS_URL as string, opts));
  try {
    for (const c of clients) await c.connect();
  } catch (err) {
    throw new Error(`REDIS_URL is set (${REDIS_URL}) but Redis cannot be reached: ${(err as Error).message}`);
  }
  return clients;
}

/** Deletes every key under `prefix` (when the client is still connected). */
export async function deletePrefix(redis: Redis | undefined, prefix: string): Promise<void> {
  if (redis?.status !== 'ready') return;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 200);
    if (keys.length) await redis.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
