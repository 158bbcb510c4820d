/** Node-only: Redis-backed shared state for the standalone server when REDIS_URL is set. */
import { Redis } from 'ioredis';
import { RedisConversationStore } from './conversations/redis-conversation-store.js';
import { RedisRateLimiter } from './limits/redis-rate-limiter.js';
import { RedisTaskStore } from './tasks/redis-task-store.js';
import type { GatewayOptions } from './runtime.js';

export interface SharedState {
  options: Pick<GatewayOptions, 'taskStore' | 'rateLimiter' | 'conversationStore'>;
  /** Checks the connection (fails fast at start instead of on the first request). */
  ready(): Promise<void>;
  close(): Promise<void>;
}

/** Task records, rate-limit counters and stored responses in Redis, so several instances share them. */
export function redisSharedState(url: string, prefix = 'modelgate:'): SharedState {
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
