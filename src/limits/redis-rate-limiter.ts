/**
 * Limits in Redis, shared by every instance: each operation is one Lua script, so a check and
 * its take happen atomically across instances. Times are the gateway's clock (passed in), which
 * keeps instances on one window and makes an injected clock work; Redis TTLs are only for
 * cleanup. Windows are hashes {n: used, r: resetAt}, leases a sorted set scored by expiry,
 * budgets a hash {n: spent, r: resetAt}.
 *
 * Redis Cluster: one acquire touches the key's and the model's counters; keep them on one node
 * with a hash tag in the prefix (e.g. `{modelgate}:rl:`).
 */
import type { AcquireResult, LimitCheck, LimitState, RateLimiter } from './rate-limiter.js';

/** The subset of a Redis client (ioredis, node-redis v4 via a wrapper) the limiter needs. */
export interface RedisEvalClient {
  eval(script: string, numKeys: number, ...args: Array<string | number>): Promise<unknown>;
}

/**
 * KEYS: one per check. ARGV: now, then 4 per check: kind (w|c|b), limit, a, b where
 * w: a = windowMs, b = amount; c: a = member, b = leaseMs; b: a = resetAt, b = seed or '';
 * then the budgets' grace time (ms kept past their period).
 * Returns {denied index or 0, used1, reset1, used2, reset2, ...}.
 */
const ACQUIRE = `
local now = tonumber(ARGV[1])
local used, reset, fresh = {}, {}, {}
local denied = 0
for i = 1, #KEYS do
  local o = 1 + (i - 1) * 4
  local kind, limit = ARGV[o + 1], tonumber(ARGV[o + 2])
  if kind == 'w' then
    local r = tonumber(redis.call('HGET', KEYS[i], 'r') or '0')
    if r > now then
      used[i] = tonumber(redis.call('HGET', KEYS[i], 'n') or '0'); reset[i] = r; fresh[i] = false
    else
      used[i] = 0; reset[i] = now + tonumber(ARGV[o + 3]); fresh[i] = true
    end
    if denied == 0 and used[i] + tonumber(ARGV[o + 4]) > limit then denied = i end
  elseif kind == 'c' then
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', now)
    used[i] = redis.call('ZCARD', KEYS[i]); reset[i] = 0
    if denied == 0 and used[i] >= limit then denied = i end
  else
    reset[i] = tonumber(ARGV[o + 3])
    used[i] = 0
    if tonumber(redis.call('HGET', KEYS[i], 'r') or '0') == reset[i] then used[i] = tonumber(redis.call('HGET', KEYS[i], 'n') or '0')
    elseif ARGV[o + 4] ~= '' then
      -- No total for this period yet: it starts from the seed (what the ledger says was spent).
      used[i] = tonumber(ARGV[o + 4])
      redis.call('HSET', KEYS[i], 'n', used[i], 'r', reset[i])
      redis.call('PEXPIRE', KEYS[i], math.max(1, reset[i] - now) + tonumber(ARGV[2 + #KEYS * 4]))
    end
    if denied == 0 and used[i] >= limit then denied = i end
  end
end
if denied == 0 then
  for i = 1, #KEYS do
    local o = 1 + (i - 1) * 4
    local kind = ARGV[o + 1]
    if kind == 'w' then
      local amount = tonumber(ARGV[o + 4])
      if fresh[i] then
        redis.call('HSET', KEYS[i], 'n', amount, 'r', reset[i])
        redis.call('PEXPIRE', KEYS[i], math.max(1, reset[i] - now))
      else
        redis.call('HINCRBY', KEYS[i], 'n', amount)
      end
      used[i] = used[i] + amount
    elseif kind == 'c' then
      local lease = tonumber(ARGV[o + 4])
      redis.call('ZADD', KEYS[i], now + lease, ARGV[o + 3])
      local ttl = redis.call('PTTL', KEYS[i])
      if ttl < lease then redis.call('PEXPIRE', KEYS[i], lease) end
      used[i] = used[i] + 1
    end
  end
end
local out = {denied}
for i = 1, #KEYS do
  table.insert(out, used[i]); table.insert(out, reset[i])
end
return out
`;

/** KEYS: window. ARGV: resetAt, delta. */
const ADJUST = `
if tonumber(redis.call('HGET', KEYS[1], 'r') or '0') ~= tonumber(ARGV[1]) then return 0 end
local n = redis.call('HINCRBY', KEYS[1], 'n', ARGV[2])
if n < 0 then redis.call('HSET', KEYS[1], 'n', 0) end
return 1
`;

/** KEYS: budget. ARGV: amount, resetAt, ttlMs. A total of an earlier period is replaced. */
const SPEND = `
if tonumber(redis.call('HGET', KEYS[1], 'r') or '0') ~= tonumber(ARGV[2]) then
  redis.call('HSET', KEYS[1], 'n', 0, 'r', ARGV[2])
end
redis.call('HINCRBY', KEYS[1], 'n', ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
`;

/** Kept a day past the period's end, so instances with a slightly late clock still find it. */
const BUDGET_GRACE_MS = 24 * 60 * 60 * 1000;

export class RedisRateLimiter implements RateLimiter {
  constructor(private readonly redis: RedisEvalClient, private readonly prefix = 'modelgate:rl:') {}

  async acquire(checks: readonly LimitCheck[], now: number): Promise<AcquireResult> {
    if (checks.length === 0) return { allowed: true, states: [] };
    const keys = checks.map((c) => `${this.prefix}${c.name}`);
    const args: Array<string | number> = [now];
    for (const c of checks) {
      if (c.kind === 'window') args.push('w', c.limit, c.windowMs, c.amount);
      else if (c.kind === 'concurrency') args.push('c', c.limit, c.member, c.leaseMs);
      else args.push('b', c.limit, c.resetAt, c.seed ? Math.round(c.seed) : '');
    }
    args.push(BUDGET_GRACE_MS);
    const reply = (await this.redis.eval(ACQUIRE, keys.length, ...keys, ...args)) as unknown[];
    const denied = Number(reply[0]);
    const states: LimitState[] = checks.map((_c, i) => ({ used: Number(reply[1 + i * 2]), resetAt: Number(reply[2 + i * 2]) }));
    return denied > 0 ? { allowed: false, denied: denied - 1, states } : { allowed: true, states };
  }

  async adjust(name: string, resetAt: number, delta: number): Promise<void> {
    await this.redis.eval(ADJUST, 1, `${this.prefix}${name}`, resetAt, Math.round(delta));
  }

  async spend(name: string, amount: number, resetAt: number, now: number): Promise<void> {
    await this.redis.eval(SPEND, 1, `${this.prefix}${name}`, Math.round(amount), resetAt, Math.max(1, resetAt - now) + BUDGET_GRACE_MS);
  }

  async release(name: string, member: string): Promise<void> {
    await this.redis.eval("return redis.call('ZREM', KEYS[1], ARGV[1])", 1, `${this.prefix}${name}`, member);
  }
}
