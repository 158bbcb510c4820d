/**
 * Version 5 of the store: the ledger's rows keyed by (time, trace_id) instead of trace_id alone.
 *
 * Trace ids are random, so the trace_id key's B-tree took every row at a random place: a batch of
 * 500 rows dirtied hundreds of its pages, each written to SQLite's WAL (and PostgreSQL's) at every
 * commit, and once the table outgrew the page cache each insert read pages back. Measured with the
 * store writing batches of 500 rows into a SQLite file, CPU per row: 33 us at 50,000 rows, 47 us at
 * 200,000 and still rising; keyed by (time, trace_id) (rows arrive in time order, so the key's
 * B-tree only grows at its end) 18 us, flat. The key is also the (time, trace_id) order every page
 * of rows is read in, so the separate `ledger_rows_time_trace` index goes (and two more, below). A retried batch is still
 * recognised (a row keeps its time and trace id). The table is rebuilt (SQLite cannot change a
 * table's primary key): rows are copied in one statement and the indexes created after the copy.
 * Released: never edit it; a change is a new migration.
 */
import { sql, type CreateTableBuilder, type Kysely } from 'kysely';

/** The columns of ledger_rows (as migration 0002 created them), in order. */
function withColumns<T extends string>(t: CreateTableBuilder<T>): CreateTableBuilder<T, string> {
  return t
    .addColumn('trace_id', 'text', (c) => c.notNull())
    .addColumn('request_id', 'text')
    .addColumn('time', 'bigint', (c) => c.notNull())
    .addColumn('key_id', 'text', (c) => c.notNull())
    .addColumn('method', 'text', (c) => c.notNull())
    .addColumn('route', 'text', (c) => c.notNull())
    .addColumn('protocol', 'text')
    .addColumn('model', 'text')
    .addColumn('requested_model', 'text')
    .addColumn('resolved_model', 'text')
    .addColumn('provider', 'text')
    .addColumn('deployment', 'text')
    .addColumn('status', 'integer', (c) => c.notNull())
    .addColumn('error_code', 'text')
    .addColumn('attempts', 'integer', (c) => c.notNull())
    .addColumn('fallbacks', 'integer', (c) => c.notNull())
    .addColumn('input_tokens', 'bigint')
    .addColumn('output_tokens', 'bigint')
    .addColumn('cached_tokens', 'bigint')
    .addColumn('reasoning_tokens', 'bigint')
    .addColumn('images', 'integer')
    .addColumn('video_seconds', 'double precision')
    .addColumn('cost_usd', 'double precision')
    .addColumn('price', 'text')
    .addColumn('latency_ms', 'bigint', (c) => c.notNull())
    .addColumn('ttft_ms', 'bigint')
    .addColumn('stream', 'integer', (c) => c.notNull())
    .addColumn('byok', 'integer', (c) => c.notNull())
    .addColumn('cache_hit', 'integer', (c) => c.notNull());
}

const COLUMNS = [
  'trace_id', 'request_id', 'time', 'key_id', 'method', 'route', 'protocol', 'model', 'requested_model', 'resolved_model', 'provider',
  'deployment', 'status', 'error_code', 'attempts', 'fallbacks', 'input_tokens', 'output_tokens', 'cached_tokens', 'reasoning_tokens',
  'images', 'video_seconds', 'cost_usd', 'price', 'latency_ms', 'ttft_ms', 'stream', 'byok', 'cache_hit',
];

/**
 * The secondary indexes kept from versions 3 and 4, created again on the new table. Every index
 * costs each insert (six of them were 3 us of a row's 10 us in SQLite); `(status, time)` and the
 * successes' partial index go: a status filter reads the errors' partial index (statuses from 400)
 * or walks the key newest first (successes are most rows, so a page fills at once).
 */
async function secondaryIndexes(db: Kysely<unknown>): Promise<void> {
  await db.schema.createIndex('ledger_rows_key_time_trace').on('ledger_rows').columns(['key_id', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_model_time').on('ledger_rows').columns(['model', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_provider_time').on('ledger_rows').columns(['provider', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_errors_time').on('ledger_rows').columns(['time', 'trace_id']).where(sql.ref('status'), '>=', 400).execute();
}

/** Copies ledger_rows into a table shaped by `shape`, drops the old one (with its indexes) and takes its name. */
async function rebuild(db: Kysely<unknown>, shape: (t: CreateTableBuilder<'ledger_rows_next', string>) => CreateTableBuilder<'ledger_rows_next', string>): Promise<void> {
  await shape(withColumns(db.schema.createTable('ledger_rows_next'))).execute();
  const list = sql.join(COLUMNS.map((c) => sql.ref(c)));
  await sql`insert into ${sql.table('ledger_rows_next')} (${list}) select ${list} from ${sql.table('ledger_rows')}`.execute(db);
  await db.schema.dropTable('ledger_rows').execute();
  await db.schema.alterTable('ledger_rows_next').renameTo('ledger_rows').execute();
}

export async function up(db: Kysely<unknown>): Promise<void> {
  await rebuild(db, (t) => t.addPrimaryKeyConstraint('ledger_rows_time_trace_pk', ['time', 'trace_id']));
  await secondaryIndexes(db);
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await rebuild(db, (t) => t.addPrimaryKeyConstraint('ledger_rows_trace_pk', ['trace_id']));
  await secondaryIndexes(db);
  await db.schema.createIndex('ledger_rows_time_trace').on('ledger_rows').columns(['time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_status_time').on('ledger_rows').columns(['status', 'time', 'trace_id']).execute();
  await db.schema.createIndex('ledger_rows_successes_time').on('ledger_rows').columns(['time', 'trace_id']).where(sql.ref('status'), '<', 400).execute();
}
