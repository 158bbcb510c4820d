/**
 * The ledger in the control plane's database (SQLite or PostgreSQL through Kysely): batches of rows
 * and their daily rollups written in one transaction, rows read newest first with a keyset cursor,
 * summaries read from the rollups, and the retention's batched reads and deletes.
 */
import { CompiledQuery, sql, type ExpressionBuilder, type Expression, type Kysely, type Selectable, type SqlBool, type Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import type { LedgerRowsTable } from '../db/schema-ledger.js';
import type { LedgerSink } from './ledger-queue.js';
import type { LedgerRow } from './ledger-row.js';
import { dayOf, rollupOf, type UsageBucket } from './ledger-rollup.js';
import type { LedgerFilter, RowPage, UsageQuery } from './ledger-filter.js';
import { NANO_PER_USD } from '../../limits/cost.js';
import { addHourlyRollups } from './ledger-hourly.js';
import { LedgerNames } from './ledger-names.js';
import { fromDb, idsIn, namesIn, num, pushParameters, SAMPLE, type Batch } from './ledger-columns.js';

/**
 * Rows per INSERT statement (29 parameters each: well inside SQLite's and PostgreSQL's limits).
 * SQLite runs a statement synchronously on the event loop (about 1 ms for 100 rows) and Kysely's
 * awaits between statements resolve as microtasks, so between chunks the write gives the event
 * loop a turn: requests wait for one chunk at most, not for a whole batch.
 */
const INSERT_CHUNK = 100;

/**
 * Rows in the next INSERT: INSERT_CHUNK, or for the rest of a batch the largest power of two that
 * fits. A batch's size varies (the queue writes what a second gathered), so statements for every
 * row count from 1 to 99 would be prepared over and over (parsing one of 2,900 parameters costs
 * SQLite more than inserting its rows); this way 8 statement shapes serve every batch.
 */
export function chunkSize(left: number): number {
  if (left >= INSERT_CHUNK) return INSERT_CHUNK;
  return 2 ** Math.floor(Math.log2(left));
}

const nextTurn = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

const DAY_MS = 86_400_000;

/** Statement texts kept per row count (a batch's size varies; the last chunk of a big one too). */
const MAX_CACHED_TEXTS = 32;

/** A batch held rows already stored (a retry after a commit that was not heard): written again with RETURNING. */
class AlreadyStored extends Error {}

export class SqlLedgerStore implements LedgerSink {
  /**
   * The INSERT's SQL per row count, compiled once by Kysely: building the query for each batch
   * (Kysely parses every row's values into its tree) cost ~25 us CPU per ledger row in the bench's
   * control-plane scenario, more than the database's own work (bench/RESULTS.md, control-openai-*).
   */
  private readonly insertTexts = new Map<number, string>();

  private readonly names: LedgerNames;

  constructor(private readonly db: Kysely<Database>, options: { maxCachedNames?: number } = {}) {
    this.names = new LedgerNames(db, options.maxCachedNames);
  }

  /** Rows as the API shows them: each named column's id read back as its string. */
  private async named(found: ReadonlyArray<Selectable<LedgerRowsTable>>): Promise<LedgerRow[]> {
    if (!found.length) return [];
    const names = await this.names.namesOf(idsIn(found));
    return found.map((d) => fromDb(d, names));
  }

  private insertText(trx: Transaction<Database>, rows: number, returning: boolean): string {
    const id = returning ? rows : -rows;
    let text = this.insertTexts.get(id);
    if (text === undefined) {
      const insert = trx
        .insertInto('ledger_rows')
        .values(Array.from({ length: rows }, () => SAMPLE))
        .onConflict((oc) => oc.columns(['time', 'trace_id']).doNothing());
      text = returning ? insert.returning('trace_id').compile().sql : insert.compile().sql;
      if (this.insertTexts.size >= MAX_CACHED_TEXTS) this.insertTexts.clear();
      this.insertTexts.set(id, text);
    }
    return text;
  }

  /**
   * Rows and their rollups in one transaction. A row already stored (a batch retried after its
   * commit was not heard) is skipped and not counted again.
   */
  async write(rows: readonly LedgerRow[]): Promise<void> {
    if (!rows.length) return;
    // The batch's strings are stored (committed) before any row refers to them.
    const { names, prices } = namesIn(rows);
    const batch: Batch = { ids: await this.names.idsOf(names), prices };
    try {
      await this.db.transaction().execute(async (trx) => {
        await this.insertRows(trx, rows, batch, false);
        await addRollups(trx, rows);
        await addHourlyRollups(trx, rows);
      });
    } catch (err) {
      if (!(err instanceof AlreadyStored)) throw err;
      // Rolled back; written again, this time told which rows are new.
      await this.db.transaction().execute(async (trx) => {
        const added = await this.insertRows(trx, rows, batch, true);
        await addRollups(trx, added);
        await addHourlyRollups(trx, added);
      });
    }
  }

  /**
   * INSERTs of up to INSERT_CHUNK rows, each compiled once per row count. Without `returning`
   * (the usual case: a batch written once) a chunk that stored fewer rows than it holds throws
   * AlreadyStored; with it, the rows that were new are returned. RETURNING costs SQLite about
   * 1.2 us per row of 10 (a result row built for each), so it is only paid for a retried batch.
   */
  private async insertRows(trx: Transaction<Database>, rows: readonly LedgerRow[], batch: Batch, returning: boolean): Promise<readonly LedgerRow[]> {
    const fresh = new Set<string>();
    for (let i = 0; i < rows.length; ) {
      if (i > 0) await nextTurn();
      const chunk = rows.slice(i, i + chunkSize(rows.length - i));
      i += chunk.length;
      const parameters: unknown[] = [];
      for (const row of chunk) pushParameters(parameters, row, batch);
      const result = await trx.executeQuery<{ trace_id: string }>(CompiledQuery.raw(this.insertText(trx, chunk.length, returning), parameters));
      if (returning) for (const r of result.rows) fresh.add(r.trace_id);
      else if (result.numAffectedRows !== BigInt(chunk.length)) throw new AlreadyStored();
    }
    return returning ? rows.filter((r) => fresh.has(r.traceId)) : rows;
  }

  /** Rows matching `filter`, newest first; one more than `limit` is read to tell whether more follow. */
  async rows(filter: LedgerFilter, page: RowPage): Promise<{ rows: LedgerRow[]; hasMore: boolean }> {
    let q = this.db.selectFrom('ledger_rows').selectAll();
    q = q.where((eb) => eb.and(rowConditions(eb, filter)));
    const after = page.after;
    if (after) q = q.where((eb) => eb.or([eb('time', '<', after.time), eb.and([eb('time', '=', after.time), eb('trace_id', '<', after.traceId)])]));
    const found = await q.orderBy('time', 'desc').orderBy('trace_id', 'desc').limit(page.limit + 1).execute();
    return { rows: await this.named(found.slice(0, page.limit)), hasMore: found.length > page.limit };
  }

  /** Rows matching `filter` oldest first, `batch` at a time (the CSV export). */
  async *scan(filter: LedgerFilter, batch = 1000): AsyncGenerator<LedgerRow[]> {
    let after: { time: number; traceId: string } | undefined;
    for (;;) {
      let q = this.db.selectFrom('ledger_rows').selectAll().where((eb) => eb.and(rowConditions(eb, filter)));
      const a = after;
      if (a) q = q.where((eb) => eb.or([eb('time', '>', a.time), eb.and([eb('time', '=', a.time), eb('trace_id', '>', a.traceId)])]));
      const found = await this.named(await q.orderBy('time', 'asc').orderBy('trace_id', 'asc').limit(batch).execute());
      if (!found.length) return;
      yield found;
      const last = found[found.length - 1] as LedgerRow;
      after = { time: last.time, traceId: last.traceId };
      if (found.length < batch) return;
    }
  }

  /** Summed rollups, one bucket per day, key, model or provider. `from`/`to` select whole UTC days. */
  async usage(query: UsageQuery): Promise<UsageBucket[]> {
    const column = ({ day: 'day', key: 'key_id', model: 'model', provider: 'provider' } as const)[query.groupBy];
    const lines = await this.db
      .selectFrom('usage_daily')
      .select((eb) => [
        eb.ref(column).as('bucket'),
        eb.fn.sum<number>('requests').as('requests'),
        eb.fn.sum<number>('errors').as('errors'),
        eb.fn.sum<number>('input_tokens').as('input_tokens'),
        eb.fn.sum<number>('output_tokens').as('output_tokens'),
        eb.fn.sum<number>('cached_tokens').as('cached_tokens'),
        eb.fn.sum<number>('reasoning_tokens').as('reasoning_tokens'),
        eb.fn.sum<number>('images').as('images'),
        eb.fn.sum<number>('video_seconds').as('video_seconds'),
        eb.fn.sum<number>('cost_nano').as('cost_nano'),
      ])
      .where((eb) => {
        const c: Expression<SqlBool>[] = [];
        if (query.keyId !== undefined) c.push(eb('key_id', '=', query.keyId));
        if (query.model !== undefined) c.push(eb('model', '=', query.model));
        if (query.provider !== undefined) c.push(eb('provider', '=', query.provider));
        const s = query.status;
        if (typeof s === 'number') c.push(eb('status', '=', s));
        else if (s === 'error') c.push(eb('status', '>=', 400));
        else if (s === 'success') c.push(eb('status', '<', 400));
        if (query.from !== undefined) c.push(eb('day', '>=', dayOf(query.from)));
        // `to` is exclusive: the day of the last millisecond before it.
        if (query.to !== undefined) c.push(eb('day', '<=', dayOf(query.to - 1)));
        return eb.and(c);
      })
      .groupBy(column)
      .orderBy(column)
      .execute();
    return lines.map((l) => ({
      bucket: String(l.bucket),
      requests: num(l.requests),
      errors: num(l.errors),
      inputTokens: num(l.input_tokens),
      outputTokens: num(l.output_tokens),
      cachedTokens: num(l.cached_tokens),
      reasoningTokens: num(l.reasoning_tokens),
      images: num(l.images),
      videoSeconds: num(l.video_seconds),
      costUsd: num(l.cost_nano) / NANO_PER_USD,
    }));
  }

  /** USD spent by a key since `since` (whole UTC days, from the rollups). */
  async spendSince(keyId: string, since: number): Promise<{ costUsd: number; requests: number }> {
    const r = await this.db
      .selectFrom('usage_daily')
      .select((eb) => [eb.fn.sum<number>('cost_nano').as('cost_nano'), eb.fn.sum<number>('requests').as('requests')])
      .where('key_id', '=', keyId)
      .where('day', '>=', dayOf(since))
      .executeTakeFirst();
    return { costUsd: num(r?.cost_nano ?? 0) / NANO_PER_USD, requests: num(r?.requests ?? 0) };
  }

  /**
   * What a key's budget has spent since `since`, in nano-USD: the cost of its rows from then on that
   * the gateway's credentials paid (BYOK rows cost the caller, not the budget). A budget's period
   * starts from it when no limit store holds the period's total yet (budget-seeds.ts). Reads the
   * key's rows of the period through the (key, time) index.
   */
  async budgetSpendNano(keyId: string, since: number): Promise<number> {
    const r = await this.db
      .selectFrom('ledger_rows')
      .select((eb) => eb.fn.sum<number>('cost_usd').as('cost'))
      .where((eb) => eb.and([...rowConditions(eb, { keyId, from: since }), eb('byok', '=', 0)]))
      .executeTakeFirst();
    return Math.round(num(r?.cost ?? 0) * NANO_PER_USD);
  }

  /** The oldest rows before `cutoff`, at most `limit` (what the retention exports, then deletes). */
  async oldestBefore(cutoff: number, limit: number): Promise<LedgerRow[]> {
    const found = await this.db.selectFrom('ledger_rows').selectAll().where('time', '<', cutoff).orderBy('time', 'asc').orderBy('trace_id', 'asc').limit(limit).execute();
    return this.named(found);
  }

  /** Deletes these rows, found by their key (time, trace_id). */
  async deleteRows(rows: ReadonlyArray<Pick<LedgerRow, 'time' | 'traceId'>>): Promise<number> {
    if (!rows.length) return 0;
    const r = await this.db
      .deleteFrom('ledger_rows')
      .where((eb) => eb(eb.refTuple('time', 'trace_id'), 'in', rows.map((row) => eb.tuple(row.time, row.traceId))))
      .executeTakeFirst();
    return num(r.numDeletedRows);
  }

  /** Drops rollup lines of days before `cutoff`'s day. */
  async deleteRollupsBefore(cutoff: number): Promise<number> {
    const r = await this.db.deleteFrom('usage_daily').where('day', '<', dayOf(cutoff)).executeTakeFirst();
    return num(r.numDeletedRows);
  }

  /** Drops hourly rollup lines before `cutoff` (the overview reads at most the last 7 days of them). */
  async deleteHourlyBefore(cutoff: number): Promise<number> {
    const r = await this.db.deleteFrom('usage_hourly').where('hour', '<', cutoff).executeTakeFirst();
    return num(r.numDeletedRows);
  }

  /** Days covered, for messages: the first and the last row's time (undefined when empty). */
  async span(): Promise<{ first: number; last: number } | undefined> {
    const r = await this.db.selectFrom('ledger_rows').select((eb) => [eb.fn.min('time').as('first'), eb.fn.max('time').as('last')]).executeTakeFirst();
    if (!r || r.first === null || r.last === null) return undefined;
    return { first: num(r.first), last: num(r.last) };
  }
}

/** The id of a stored name, read inside the statement (a constant to the planner, so the column's index serves it). */
function idOfName(eb: ExpressionBuilder<Database, 'ledger_rows'>, name: string) {
  return eb.selectFrom('ledger_names').select('id').where('name', '=', name);
}

function rowConditions(eb: ExpressionBuilder<Database, 'ledger_rows'>, f: LedgerFilter): Expression<SqlBool>[] {
  const c: Expression<SqlBool>[] = [];
  if (f.keyId !== undefined) c.push(eb('key_ref', '=', idOfName(eb, f.keyId)));
  if (f.model !== undefined) c.push(eb('model_ref', '=', idOfName(eb, f.model)));
  if (f.provider !== undefined) c.push(eb('provider_ref', '=', idOfName(eb, f.provider)));
  if (typeof f.status === 'number') {
    c.push(eb('status', '=', f.status));
    // Implied, but SQLite only uses the errors' partial index (store version 5) when the query says it.
    if (f.status >= 400) c.push(eb('status', '>=', 400));
  } else if (f.status === 'error') c.push(eb('status', '>=', 400));
  else if (f.status === 'success') c.push(eb('status', '<', 400));
  if (f.from !== undefined) c.push(eb('time', '>=', f.from));
  if (f.to !== undefined) c.push(eb('time', '<', f.to));
  return c;
}

async function addRollups(trx: Transaction<Database>, rows: readonly LedgerRow[]): Promise<void> {
  for (const line of rollupOf(rows)) {
    await trx
      .insertInto('usage_daily')
      .values({
        day: line.day,
        key_id: line.keyId,
        model: line.model,
        provider: line.provider,
        status: line.status,
        requests: line.requests,
        errors: line.errors,
        input_tokens: line.inputTokens,
        output_tokens: line.outputTokens,
        cached_tokens: line.cachedTokens,
        reasoning_tokens: line.reasoningTokens,
        images: line.images,
        video_seconds: line.videoSeconds,
        cost_nano: line.costNano,
        latency_ms_sum: line.latencyMsSum,
      })
      .onConflict((oc) =>
        oc.columns(['day', 'key_id', 'model', 'provider', 'status']).doUpdateSet({
          requests: sql`usage_daily.requests + excluded.requests`,
          errors: sql`usage_daily.errors + excluded.errors`,
          input_tokens: sql`usage_daily.input_tokens + excluded.input_tokens`,
          output_tokens: sql`usage_daily.output_tokens + excluded.output_tokens`,
          cached_tokens: sql`usage_daily.cached_tokens + excluded.cached_tokens`,
          reasoning_tokens: sql`usage_daily.reasoning_tokens + excluded.reasoning_tokens`,
          images: sql`usage_daily.images + excluded.images`,
          video_seconds: sql`usage_daily.video_seconds + excluded.video_seconds`,
          cost_nano: sql`usage_daily.cost_nano + excluded.cost_nano`,
          latency_ms_sum: sql`usage_daily.latency_ms_sum + excluded.latency_ms_sum`,
        }),
      )
      .execute();
  }
}

export { DAY_MS };
