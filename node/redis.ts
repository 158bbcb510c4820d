/** Node-only: Redis-backed shared state for the standalone server when REDIS_URL is set. */
import { RedisConversationStore } from '../src/conversations/redis-conversation-store.js';
import { RedisRateLimiter } from '../src/limits/redis-rate-limiter.js';
import { RedisTaskStore } from '../src/tasks/redis-task-store.js';
import type { GatewayOptions } from '../src/runtime.js';

export interface SharedState {
  options: Pick<GatewayOptions, 'taskStore' | 'rateLimiter' | 'conversationStore'>;
  /** Checks the connection (fails fast at start instead of on the first request). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Task records, rate-limit counters and stored responses in Redis, so several instances share them.
 * `ioredis` is an optional peer dependency: it is loaded only here, when Redis is asked for.
 */
export async function redisSharedState(url: string, prefix = 'modelgate:'): Promise<SharedState> {
  let Redis: typeof import('ioredis').Redis;
  try {
    ({ Redis } = await import('ioredis'));
  } catch {
    throw new Error('REDIS_URL is set but the optional dependency "ioredis" is not installed (npm install ioredis).');
  }
  const redis = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    options: {
      taskStore: new RedisTaskStore(redis, { prefix }),
      rateLimiter: new RedisRateLimiter(redis, `${prefix}rl:`),
      conversationStore: new RedisConversationStore(redis, { prefix }),
    },
    async ready() {
      await redis.connect();
      await redis.ping();
    },
    async close() {
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
