/** Fixed-window request counters, shared across instances when backed by Redis. */
export interface RateLimitResult {
  allowed: boolean;
  /** Requests left in the current window. */
  remaining: number;
  /** Milliseconds until the window resets. */
  resetMs: number;
}

export interface RateLimiter {
  /** Counts one request against `key`; `limit` requests are allowed per `windowMs`. */
  hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult>;
}

/** In-process counters (one instance). Expired windows are dropped as they are touched and swept. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { allowed: w.count <= limit, remaining: Math.max(0, limit - w.count), resetMs: w.resetAt - now };
  }

  /** Bounded memory: forget windows that have ended (at most once a second). */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
  }
}

/** The subset of a Redis client (ioredis, node-redis v4 via a wrapper) the limiter needs. */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then redis.call('PEXPIRE', KEYS[1], ARGV[1]) end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[1]); ttl = tonumber(ARGV[1]) end
return {count, ttl}
`;

/** Counters in Redis with one atomic script per hit, so limits hold across instances. */
export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: RedisEvalClient, private readonly prefix = 'modelgate:rl:') {}

  async hit(key: string, limit: number, windowMs: number): Promise<RateLimitResult> {
    const reply = (await this.redis.eval(HIT_SCRIPT, 1, `${this.prefix}${key}`, windowMs)) as [number, number];
    const count = Number(reply[0]);
    const ttl = Number(reply[1]);
    return { allowed: count <= limit, remaining: Math.max(0, limit - count), resetMs: ttl };
  }
}
