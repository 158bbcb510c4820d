/**
 * Node-only: a PostgreSQL dialect whose introspection sees only the store's own schema.
 *
 * Kysely's migrator asks whether its bookkeeping tables exist by listing the tables of every
 * schema in the database (PostgresIntrospector.getTables), through functions that look each schema
 * up by name (has_schema_privilege, pg_get_serial_sequence). When another session drops a schema
 * between the catalog read and that lookup, the query fails with `schema "…" does not exist` and
 * the gateway does not start: a database shared with other applications (or tenants, or tests)
 * that create and drop schemas made startup fail at random. It also read every column of every
 * table in the database at each start. Here the list is the tables of `current_schema()` (public
 * when it has none, as open-database.ts falls back): the schema the store's tables go to (`?schema=`
 * sets search_path to it), read from the catalog alone.
 */
import { PostgresDialect, PostgresIntrospector, sql, type DatabaseIntrospector, type DatabaseMetadataOptions, type Kysely, type TableMetadata } from 'kysely';

interface ColumnRow {
  table: string;
  kind: string;
  schema: string;
  column: string | null;
  type: string | null;
  type_schema: string | null;
  not_null: boolean | null;
  has_default: boolean | null;
  serial: boolean | null;
  comment: string | null;
}

const KYSELY_TABLES = new Set(['kysely_migration', 'kysely_migration_lock']);

export class StoreSchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #all: PostgresIntrospector;

  constructor(db: Kysely<unknown>) {
    this.#db = db;
    this.#all = new PostgresIntrospector(db);
  }

  /** A plain read of pg_namespace: no name lookups, so nothing to race with. */
  getSchemas(): ReturnType<DatabaseIntrospector['getSchemas']> {
    return this.#all.getSchemas();
  }

  async getTables(options: DatabaseMetadataOptions = { withInternalKyselyTables: false }): Promise<TableMetadata[]> {
    const { rows } = await sql<ColumnRow>`
      select c.relname as "table", c.relkind as kind, ns.nspname as schema,
             a.attname as "column", typ.typname as type, dtns.nspname as type_schema,
             a.attnotnull as not_null, a.atthasdef as has_default,
             pg_get_serial_sequence(c.oid::regclass::text, a.attname) is not null as serial,
             col_description(c.oid, a.attnum) as comment
        from pg_catalog.pg_class c
        join pg_catalog.pg_namespace ns on ns.oid = c.relnamespace
        left join pg_catalog.pg_attribute a on a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
        left join pg_catalog.pg_type typ on typ.oid = a.atttypid
        left join pg_catalog.pg_namespace dtns on dtns.oid = typ.typnamespace
       where ns.nspname = coalesce(current_schema(), 'public') and c.relkind in ('r', 'v', 'p')
       order by c.relname, a.attnum`.execute(this.#db);
    const tables = new Map<string, TableMetadata>();
    for (const r of rows) {
      if (!options.withInternalKyselyTables && KYSELY_TABLES.has(r.table)) continue;
      let table = tables.get(r.table);
      if (!table) {
        table = { name: r.table, isView: r.kind === 'v', schema: r.schema, columns: [] };
        tables.set(r.table, table);
      }
      if (r.column === null) continue;
      table.columns.push({
        name: r.column,
        dataType: r.type ?? '',
        ...(r.type_schema ? { dataTypeSchema: r.type_schema } : {}),
        isAutoIncrementing: r.serial === true,
        isNullable: r.not_null !== true,
        hasDefaultValue: r.has_default === true,
        ...(r.comment ? { comment: r.comment } : {}),
      });
    }
    return [...tables.values()];
  }

  async getMetadata(options?: DatabaseMetadataOptions): Promise<{ tables: TableMetadata[] }> {
    return { tables: await this.getTables(options) };
  }
}

/** PostgresDialect with the introspection above; everything else is Kysely's. */
export class StorePostgresDialect extends PostgresDialect {
  override createIntrospector(db: Kysely<unknown>): DatabaseIntrospector {
    return new StoreSchemaIntrospector(db);
  }
}
