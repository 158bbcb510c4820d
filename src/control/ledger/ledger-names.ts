/**
 * The ledger's repeated strings (key ids, methods, routes, protocols, models, providers,
 * deployments, error codes, prices) and their integer ids in `ledger_names` (store version 6):
 * a row refers to each by id. Ids are handed out once and never change or go, so an id read
 * anywhere means the same name everywhere; this process keeps the ones it met (at most
 * `maxCached`, then it starts over) and asks the database only for names or ids it has not met.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';

/** Names or ids per statement (one parameter each; far inside SQLite's and PostgreSQL's limits). */
const CHUNK = 500;
/**
 * New names are numbered from the largest id stored; another instance numbering at the same time
 * takes some of the same ids first (ON CONFLICT skips them). Those names are numbered again, a
 * few rounds at most even with many instances starting to write at once.
 */
const MAX_ROUNDS = 8;

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** Copies the cached ones of `wanted` into `found`; returns the others. */
function fromCache<K, V>(wanted: Iterable<K>, cache: ReadonlyMap<K, V>, found: Map<K, V>): K[] {
  const missing: K[] = [];
  for (const k of wanted) {
    const v = cache.get(k);
    if (v === undefined) missing.push(k);
    else found.set(k, v);
  }
  return missing;
}

export class LedgerNames {
  private readonly ids = new Map<string, number>();
  private readonly names = new Map<number, string>();

  constructor(private readonly db: Kysely<Database>, private readonly maxCached = 100_000) {}

  /**
   * The id of each of `wanted`, storing the ones never seen before. They are committed in a
   * transaction of their own, before any row refers to them: a batch of rows rolled back never
   * leaves this process holding an id that is not stored.
   */
  async idsOf(wanted: ReadonlySet<string>): Promise<Map<string, number>> {
    const found = new Map<string, number>();
    let missing = fromCache(wanted, this.ids, found);
    for (let round = 0; missing.length; round++) {
      await this.loadNames(missing, found);
      missing = missing.filter((n) => !found.has(n));
      if (!missing.length) break;
      if (round >= MAX_ROUNDS) throw new Error(`could not store ${missing.length} new ledger names after ${MAX_ROUNDS} rounds`);
      const adding = missing;
      await this.db.transaction().execute(async (trx) => {
        const top = await trx.selectFrom('ledger_names').select((eb) => eb.fn.max('id').as('top')).executeTakeFirst();
        let next = num(top?.top ?? 0) + 1;
        for (let i = 0; i < adding.length; i += CHUNK) {
          const values = adding.slice(i, i + CHUNK).map((name) => ({ id: next++, name }));
          await trx.insertInto('ledger_names').values(values).onConflict((oc) => oc.doNothing()).execute();
        }
      });
    }
    return found;
  }

  /** The name of each of `wanted` ids (an id missing from the database is left out). */
  async namesOf(wanted: ReadonlySet<number>): Promise<Map<number, string>> {
    const found = new Map<number, string>();
    const missing = fromCache(wanted, this.names, found);
    for (let i = 0; i < missing.length; i += CHUNK) {
      const lines = await this.db.selectFrom('ledger_names').select(['id', 'name']).where('id', 'in', missing.slice(i, i + CHUNK)).execute();
      for (const l of lines) {
        found.set(num(l.id), l.name);
        this.remember(l.name, num(l.id));
      }
    }
    return found;
  }

  private async loadNames(names: readonly string[], into: Map<string, number>): Promise<void> {
    for (let i = 0; i < names.length; i += CHUNK) {
      const lines = await this.db.selectFrom('ledger_names').select(['id', 'name']).where('name', 'in', names.slice(i, i + CHUNK)).execute();
      for (const l of lines) {
        into.set(l.name, num(l.id));
        this.remember(l.name, num(l.id));
      }
    }
  }

  private remember(name: string, id: number): void {
    if (this.ids.size >= this.maxCached) {
      this.ids.clear();
      this.names.clear();
    }
    this.ids.set(name, id);
    this.names.set(id, name);
  }
}
