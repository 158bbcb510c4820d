/** Node-only: Redis-backed shared state for the standalone server when REDIS_URL is set. */
import { RedisResponseCache } from '../src/cache/redis-response-cache.js';
import { RedisConversationStore } from '../src/conversations/redis-conversation-store.js';
import { RedisRateLimiter } from '../src/limits/redis-rate-limiter.js';
import { RedisTaskStore } from '../src/tasks/redis-task-store.js';
import type { GatewayOptions } from '../src/gateway/options.js';
import { redact } from '../src/core/redact.js';
import type { ChangeNotifier } from '../src/control/change-notifier.js';
import { redisChangeNotifier } from './redis-change-notifier.js';

const WARN_EVERY_MS = 60_000;

export interface SharedState {
  options: Pick<GatewayOptions, 'taskStore' | 'rateLimiter' | 'conversationStore' | 'responseCache'>;
  /** Key-change announcements between instances (the control plane's cache reloads at once). */
  notifier: ChangeNotifier;
  /** Checks the connection (fails fast at start instead of on the first request). */
  ready(): Promise<void>;
  /** Whether Redis answers a PING within `timeoutMs` (the readiness probe). */
  ping(timeoutMs: number): Promise<boolean>;
  close(): Promise<void>;
}

/**
 * Task records, rate-limit counters, stored responses and cached answers in Redis, so several instances share them.
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
  // ioredis reconnects on its own and emits an error per failed attempt; without a listener each
  // one is a stack trace on stderr. One line a minute says what happened: the stores report
  // their own failures (the rate limiter as rateLimitStore.onError says).
  let warnedAt = -Infinity;
  redis.on('error', (err: Error) => {
    const now = Date.now();
    if (now - warnedAt < WARN_EVERY_MS) return;
    warnedAt = now;
    console.warn(`modelgate: lost the connection to Redis (${redact(err.message)}); reconnecting. This warning repeats at most once a minute.`);
  });
  const watchdog = stallWatchdog(redis, () => {
    console.warn(`modelgate: Redis stopped answering (no PING reply within ${STALL_MS} ms) on an open connection; reconnecting.`);
  });
  return {
    options: {
      taskStore: new RedisTaskStore(redis, { prefix }),
      rateLimiter: new RedisRateLimiter(redis, `${prefix}rl:`),
      conversationStore: new RedisConversationStore(redis, { prefix }),
      responseCache: new RedisResponseCache(redis, `${prefix}cache:`),
    },
    notifier: redisChangeNotifier(redis, `${prefix}keys-changed`),
    async ready() {
      await redis.connect();
      await redis.ping();
    },
    async ping(timeoutMs) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      try {
        return await Promise.race([redis.ping().then((r) => r === 'PONG', () => false), late]);
      } finally {
        clearTimeout(timer);
      }
    },
    async close() {
      clearInterval(watchdog);
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}

/** How often the connection is checked, and how long a PING may go unanswered before it is replaced. */
const WATCH_MS = 1000;
const STALL_MS = 2000;

/**
 * A connection that stays open but stops carrying replies (a failover or a network path that drops
 * everything without closing it) is never replaced by ioredis on its own: every command waits, and
 * budgets answer 503 for as long as it lasts. A PING a second finds it; one unanswered for
 * STALL_MS replaces the connection (ioredis reconnects, and commands waiting on the old one fail).
 */
function stallWatchdog(redis: import('ioredis').Redis, onStall: () => void): ReturnType<typeof setInterval> {
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight || redis.status !== 'ready') return;
    inFlight = true;
    const stalled = setTimeout(() => {
      onStall();
      redis.disconnect(true);
    }, STALL_MS);
    redis
      .ping()
      .catch(() => undefined)
      .finally(() => {
        clearTimeout(stalled);
        inFlight = false;
      });
  }, WATCH_MS);
  timer.unref();
  return timer;
}
