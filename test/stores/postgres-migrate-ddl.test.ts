/**
 * Opening (and migrating) a store on a PostgreSQL database where other schemas come and go at the
 * same moment: another application's migrations, other tests, tenants dropped. Kysely's migrator
 * looks for its bookkeeping tables by listing the tables of every schema of the database, through
 * functions that look a schema up by name (has_schema_privilege, pg_get_serial_sequence): a schema
 * dropped between the catalog read and that lookup failed the whole start with `schema "…" does
 * not exist` (seen in CI). The store's migrations look only at the schema its tables go to.
 * Runs when DATABASE_URL is set, and then fails if PostgreSQL cannot be reached.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../node/db/open-database.js';

const DATABASE_URL = process.env.DATABASE_URL;
const PREFIX = `mg_churn_${process.pid}_${Date.now().toString(36)}`;

describe.skipIf(!DATABASE_URL)('migrating while other schemas are created and dropped', () => {
  let client: pg.Client;
  const made: string[] = [];

  beforeAll(async () => {
    client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`DATABASE_URL is set (${DATABASE_URL}) but PostgreSQL cannot be reached: ${(err as Error).message}`);
    }
  });

  afterAll(async () => {
    if (!client) return;
    for (const s of made) await client.query(`drop schema if exists "${s}" cascade`).catch(() => undefined);
    await client.end();
  });

  it('every store opens and is migrated; none fails on a schema another session dropped', async () => {
    let churning = true;
    let churned = 0;
    const churn = (async () => {
      const other = new pg.Client({ connectionString: DATABASE_URL });
      await other.connect();
      try {
        while (churning) {
          const s = `${PREFIX}_x${churned++}`;
          await other.query(`create schema "${s}"`);
          await other.query(`create table "${s}".t (id serial primary key, a text, b integer)`);
          await other.query(`drop schema "${s}" cascade`);
        }
      } finally {
        await other.end();
      }
    })();
    const failures: string[] = [];
    try {
      for (let i = 0; i < 12; i++) {
        const schema = `${PREFIX}_s${i}`;
        made.push(schema);
        try {
          const opened = await openDatabase({ kind: 'postgres', url: DATABASE_URL as string, schema });
          await opened.close();
        } catch (err) {
          failures.push((err as Error).message);
        }
      }
    } finally {
      churning = false;
      await churn;
    }
    expect(churned).toBeGreaterThan(10);
    expect(failures).toEqual([]);
    const { rows } = await client.query<{ n: string }>(
      `select count(*) as n from information_schema.tables where table_schema like $1 and table_name = 'ledger_rows'`,
      [`${PREFIX}_s%`],
    );
    expect(Number(rows[0]?.n)).toBe(12);
  }, 120_000);

  it("the store's introspection lists its own schema's tables, with their columns", async () => {
    const schema = `${PREFIX}_s0`;
    const opened = await openDatabase({ kind: 'postgres', url: DATABASE_URL as string, schema }, { migrate: false });
    try {
      const tables = await opened.db.introspection.getTables();
      expect(new Set(tables.map((t) => t.schema))).toEqual(new Set([schema]));
      expect(tables.map((t) => t.name)).toEqual(expect.arrayContaining(['api_keys', 'ledger_rows', 'ledger_names']));
      expect(tables.map((t) => t.name)).not.toContain('kysely_migration');
      expect(tables.find((t) => t.name === 'ledger_requests')?.isView).toBe(true);
      const names = tables.find((t) => t.name === 'ledger_names');
      expect(names?.columns.map((c) => [c.name, c.isNullable])).toEqual([['id', false], ['name', false]]);
      const internal = await opened.db.introspection.getTables({ withInternalKyselyTables: true });
      expect(internal.map((t) => t.name)).toContain('kysely_migration');
    } finally {
      await opened.close();
    }
  });
});
