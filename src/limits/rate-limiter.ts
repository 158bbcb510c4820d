/**
 * The store behind every limit: fixed-window counters (requests and tokens per minute),
 * concurrency leases and budget totals. One `acquire` checks a request against all of its limits
 * and takes from all of them only when every one has room, atomically (in memory: one synchronous
 * step; in Redis: one script), so N parallel requests against a limit of M let exactly M through.
 */

/** One limit a request is checked against. Names are store keys such as `key:team-a:rpm`. */
export type LimitCheck =
  /** A counter over a fixed window that starts at its first hit: room when `used + amount <= limit`. */
  | { kind: 'window'; name: string; limit: number; windowMs: number; amount: number }
  /** Requests in flight: room when fewer than `limit` leases are alive; `member` names this one. */
  | { kind: 'concurrency'; name: string; limit: number; member: string; leaseMs: number }
  /**
   * A spending total (integer units) for a period ending at `resetAt`: room while `used < limit`.
   * `seed`: the period's total when the store holds none for it yet (what the usage ledger says was
   * spent: budget-seeds.ts); the store keeps it from then on, and ignores it once it has a total.
   */
  | { kind: 'budget'; name: string; limit: number; resetAt: number; seed?: number };

export interface LimitState {
  /** The count after this request (when allowed) or as found (when denied). */
  used: number;
  /** Epoch ms when the window or period ends (0 for concurrency). */
  resetAt: number;
}

export interface AcquireResult {
  allowed: boolean;
  /** Index of the first check without room. */
  denied?: number;
  /** One state per check, in order; empty when the store could not be asked (see GuardedRateLimiter). */
  states: LimitState[];
}

export interface RateLimiter {
  /** Checks every limit and, only when all have room, takes from all of them. `now`: the gateway's clock. */
  acquire(checks: readonly LimitCheck[], now: number): Promise<AcquireResult>;
  /** Adds `delta` (may be negative) to a window counter if the window ending at `resetAt` is still the current one. */
  adjust(name: string, resetAt: number, delta: number, now: number): Promise<void>;
  /** Adds to a budget total of the period ending at `resetAt`. */
  spend(name: string, amount: number, resetAt: number, now: number): Promise<void>;
  /** Ends a concurrency lease. */
  release(name: string, member: string): Promise<void>;
}

interface Window {
  used: number;
  resetAt: number;
}

/** In-process limits (one instance). Ended windows, leases and periods are swept as time passes. */
export class MemoryRateLimiter implements RateLimiter {
  private readonly windows = new Map<string, Window>();
  private readonly leases = new Map<string, Map<string, number>>();
  private readonly budgets = new Map<string, Window>();
  private lastSweep = 0;

  async acquire(checks: readonly LimitCheck[], now: number): Promise<AcquireResult> {
    this.sweep(now);
    const states: LimitState[] = [];
    let denied: number | undefined;
    checks.forEach((c, i) => {
      let state: LimitState;
      let room: boolean;
      if (c.kind === 'window') {
        const w = this.windows.get(c.name);
        state = w && w.resetAt > now ? { used: w.used, resetAt: w.resetAt } : { used: 0, resetAt: now + c.windowMs };
        room = state.used + c.amount <= c.limit;
      } else if (c.kind === 'concurrency') {
        state = { used: this.alive(c.name, now), resetAt: 0 };
        room = state.used < c.limit;
      } else {
        const b = this.budgets.get(c.name);
        if (b && b.resetAt === c.resetAt) state = { used: b.used, resetAt: c.resetAt };
        else {
          state = { used: c.seed ?? 0, resetAt: c.resetAt };
          if (c.seed) this.budgets.set(c.name, { used: c.seed, resetAt: c.resetAt });
        }
        room = state.used < c.limit;
      }
      if (!room && denied === undefined) denied = i;
      states.push(state);
    });
    if (denied !== undefined) return { allowed: false, denied, states };
    checks.forEach((c, i) => {
      const state = states[i] as LimitState;
      if (c.kind === 'window') {
        state.used += c.amount;
        this.windows.set(c.name, { used: state.used, resetAt: state.resetAt });
      } else if (c.kind === 'concurrency') {
        let set = this.leases.get(c.name);
        if (!set) this.leases.set(c.name, (set = new Map()));
        set.set(c.member, now + c.leaseMs);
        state.used += 1;
      }
    });
    return { allowed: true, states };
  }

  async adjust(name: string, resetAt: number, delta: number, now: number): Promise<void> {
    const w = this.windows.get(name);
    if (w && w.resetAt === resetAt && w.resetAt > now) w.used = Math.max(0, w.used + delta);
  }

  async spend(name: string, amount: number, resetAt: number): Promise<void> {
    const b = this.budgets.get(name);
    if (b && b.resetAt === resetAt) b.used += amount;
    else this.budgets.set(name, { used: amount, resetAt });
  }

  async release(name: string, member: string): Promise<void> {
    const set = this.leases.get(name);
    set?.delete(member);
    if (set?.size === 0) this.leases.delete(name);
  }

  /** Live leases of one name (a lease whose holder never released it ends with its lease time). */
  private alive(name: string, now: number): number {
    const set = this.leases.get(name);
    if (!set) return 0;
    for (const [member, until] of set) if (until <= now) set.delete(member);
    return set.size;
  }

  /** Bounded memory: forget ended windows, leases and periods (at most once a second). */
  private sweep(now: number): void {
    if (now - this.lastSweep < 1000) return;
    this.lastSweep = now;
    for (const [k, w] of this.windows) if (w.resetAt <= now) this.windows.delete(k);
    for (const [k, b] of this.budgets) if (b.resetAt <= now) this.budgets.delete(k);
    for (const k of [...this.leases.keys()]) if (this.alive(k, now) === 0) this.leases.delete(k);
  }
}
