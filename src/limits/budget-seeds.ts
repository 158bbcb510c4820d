/**
 * Where a key's budget period starts when the limit store holds no total for it yet: the spend the
 * usage ledger recorded for the key since the period began. Without it an in-process store starts
 * every period at zero after a restart (a key that had spent $24 of $25 could spend $25 more after
 * each deploy), and a changed period (day to month) would start its total at zero too. The store
 * takes the seed only when it has no total for the period (atomically, in Redis: the instance
 * that creates the total seeds it; the others' seeds are ignored).
 *
 * Read once per key and period per process, off the hot path afterwards: the first model call of
 * a key in a period waits for one indexed query (at most `timeoutMs`); every later one takes the
 * number from memory. A read that fails or times out is retried after `retryMs`; meanwhile the
 * period starts from what this instance counts (a warning says so).
 */

export type BudgetSpendReader = (keyId: string, since: number) => Promise<number>;

/** Entries remembered at most (keys x periods); past it the memory starts over. */
const MAX_ENTRIES = 100_000;

export interface BudgetSeedOptions {
  timeoutMs?: number;
  retryMs?: number;
  warn?: (message: string) => void;
}

export class BudgetSeeds {
  readonly #read: BudgetSpendReader;
  readonly #now: () => number;
  readonly #timeoutMs: number;
  readonly #retryMs: number;
  readonly #warn: (message: string) => void;
  readonly #known = new Map<string, number>();
  readonly #pending = new Map<string, Promise<number | undefined>>();
  readonly #failedUntil = new Map<string, number>();

  constructor(read: BudgetSpendReader, now: () => number, o: BudgetSeedOptions = {}) {
    this.#read = read;
    this.#now = now;
    this.#timeoutMs = o.timeoutMs ?? 2000;
    this.#retryMs = o.retryMs ?? 5000;
    this.#warn = o.warn ?? (() => {});
  }

  /**
   * The key's spend (nano-USD) since `since`, the start of its budget period: a number once known,
   * a promise the first time, undefined while the ledger cannot be read.
   */
  spent(keyId: string, since: number): number | Promise<number | undefined> | undefined {
    const id = `${since}:${keyId}`;
    const known = this.#known.get(id);
    if (known !== undefined) return known;
    const pending = this.#pending.get(id);
    if (pending) return pending;
    const failedUntil = this.#failedUntil.get(id);
    if (failedUntil !== undefined && failedUntil > this.#now()) return undefined;
    const read = this.#readWithin(keyId, since).then(
      (nano) => {
        if (this.#known.size >= MAX_ENTRIES) this.#known.clear();
        this.#known.set(id, nano);
        this.#failedUntil.delete(id);
        return nano;
      },
      (err: unknown) => {
        if (this.#failedUntil.size >= MAX_ENTRIES) this.#failedUntil.clear();
        this.#failedUntil.set(id, this.#now() + this.#retryMs);
        this.#warn(`could not read what key '${keyId}' spent in its budget period from the usage ledger (${(err as Error).message}); the period's total starts from this instance's count`);
        return undefined;
      },
    );
    const settled = read.finally(() => this.#pending.delete(id));
    this.#pending.set(id, settled);
    return settled;
  }

  #readWithin(keyId: string, since: number): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer within ${this.#timeoutMs} ms`)), this.#timeoutMs);
      (timer as { unref?: () => void }).unref?.();
      this.#read(keyId, since).then(
        (v) => {
          clearTimeout(timer);
          resolve(v);
        },
        (err: unknown) => {
          clearTimeout(timer);
          reject(err instanceof Error ? err : new Error(String(err)));
        },
      );
    });
  }
}
