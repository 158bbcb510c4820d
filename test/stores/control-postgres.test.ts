/**
 * Several instances on one PostgreSQL store and one Redis, through the shipped CLI
 * (`node dist/node/cli.js --db postgres://…`): two servers started at the same moment on a fresh
 * schema migrate it once (advisory lock); a key created on one works on the other, and revoking it
 * on one is a 401 on the other within a second (Redis pub/sub). Key lists, search and idempotent
 * rotation on PostgreSQL. Runs when DATABASE_URL is set — and then fails if PostgreSQL cannot be
 * reached; REDIS_URL must be set with it.
 */
import type { ChildProcess } from 'node:child_process';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall, runKeysCli, within } from '../helpers/admin-api.js';
import { openDatabase } from '../../node/db/open-database.js';

const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
if (!DATABASE_URL) console.warn('[control-postgres.test] DATABASE_URL is not set: skipping (set DATABASE_URL=postgres://postgres@127.0.0.1:5432/test to run it).');

const ADMIN = 'mg-pg-admin-key-0000000000001';
const SCHEMA = `mg_ctl_${process.pid}_${Date.now().toString(36)}`;
const children: ChildProcess[] = [];
let client: pg.Client;
let urlA: string;
let urlB: string;
let outputs: Array<() => string> = [];
let dbUrl: string;

function chat(base: string, key: string): Promise<number> {
  return fetch(`${base}/v1/chat/completions`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }),
  }).then((r) => r.status);
}

describe.skipIf(!DATABASE_URL)('keys on PostgreSQL shared by two instances (and Redis)', () => {
  beforeAll(async () => {
    if (!REDIS_URL) throw new Error('DATABASE_URL is set but REDIS_URL is not: this suite needs both (redis://127.0.0.1:6379).');
    client = new pg.Client({ connectionString: DATABASE_URL, connectionTimeoutMillis: 5000 });
    try {
      await client.connect();
    } catch (err) {
      throw new Error(`DATABASE_URL is set (${DATABASE_URL}) but PostgreSQL cannot be reached: ${(err as Error).message}`);
    }
    await ensureCliBuilt();
    const u = new URL(DATABASE_URL as string);
    u.searchParams.set('schema', SCHEMA);
    dbUrl = u.toString();
    const env = { MODELGATE_ADMIN_KEY: ADMIN, REDIS_URL: REDIS_URL as string, MODELGATE_REDIS_PREFIX: `mgtest:${SCHEMA}:` };
    // Both at once on a schema that does not exist yet: one migrates, the other waits for its lock.
    const [a, b] = await Promise.all([spawnCli(['--db', dbUrl], env), spawnCli(['--db', dbUrl], env)]);
    children.push(a.child, b.child);
    urlA = a.url;
    urlB = b.url;
    outputs = [a.output, b.output];
  }, 180_000);

  afterAll(async () => {
    await Promise.all(children.map((c) => stopChild(c)));
    if (client) {
      await client.query(`drop schema if exists "${SCHEMA}" cascade`).catch(() => undefined);
      await client.end();
    }
  });

  it('two instances starting at once migrate the schema once', async () => {
    const { rows } = await client.query(`select name from "${SCHEMA}".kysely_migration order by name`);
    expect(rows.map((r: { name: string }) => r.name)[0]).toBe('0001_keys_and_audit');
    expect(new Set(rows.map((r: { name: string }) => r.name)).size).toBe(rows.length);
    const tables = await client.query(`select table_name from information_schema.tables where table_schema = $1 order by table_name`, [SCHEMA]);
    expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(expect.arrayContaining(['api_keys', 'api_key_secrets', 'audit_log', 'control_state', 'idempotency_keys']));
    for (const out of outputs) expect(out()).toContain(`PostgreSQL 127.0.0.1:5432/test (schema ${SCHEMA})`);
  });

  it("migrates the connection's own default schema although another schema of the database already holds a store", async () => {
    // SCHEMA (beforeAll) holds Kysely's bookkeeping tables; a store whose connection defaults to a
    // fresh, empty schema must still get its own (Kysely looks in every schema unless told which).
    const fresh = `${SCHEMA}_dflt`;
    await client.query(`create schema "${fresh}"`);
    try {
      const u = new URL(DATABASE_URL as string);
      u.searchParams.set('options', `-c search_path=${fresh}`);
      const opened = await openDatabase({ kind: 'postgres', url: u.toString() });
      await opened.close();
      const tables = await client.query(`select table_name from information_schema.tables where table_schema = $1 order by table_name`, [fresh]);
      expect(tables.rows.map((r: { table_name: string }) => r.table_name)).toEqual(expect.arrayContaining(['api_keys', 'kysely_migration', 'kysely_migration_lock', 'ledger_rows']));
    } finally {
      await client.query(`drop schema if exists "${fresh}" cascade`);
    }
  });

  it('a key created on one instance works on the other; revoked on one, it is a 401 on the other within a second', async () => {
    const created = await adminCall(urlA, '/keys', { method: 'POST', key: ADMIN, body: { name: 'shared', metadata: { region: 'eu' } } });
    expect(created.status).toBe(201);
    const secret: string = created.json.key;
    await within(1000, async () => (await chat(urlB, secret)) === 200);
    expect(await chat(urlA, secret)).toBe(200);

    const revoked = await adminCall(urlA, `/keys/${created.json.id}`, { method: 'DELETE', key: ADMIN });
    expect(revoked.json.status).toBe('revoked');
    const took = await within(1000, async () => (await chat(urlB, secret)) === 401);
    expect(took).toBeLessThan(1000);
    const body = await (await fetch(`${urlB}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${secret}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock-chat', messages: [] }) })).text();
    expect(JSON.parse(body).error.message).toBe('This API key has been revoked.');
    expect(body).not.toContain(secret);
    for (const out of outputs) expect(out()).not.toContain(secret);
  });

  it('the keys CLI on the same PostgreSQL URL: a key it makes works on both instances within a second', async () => {
    const made = await runKeysCli(['create', '--db', dbUrl, '--name', 'cli-on-pg', '--json'], { REDIS_URL: REDIS_URL as string, MODELGATE_REDIS_PREFIX: `mgtest:${SCHEMA}:` });
    expect(made.code, made.stderr).toBe(0);
    const key = JSON.parse(made.stdout).key as string;
    await within(1000, async () => (await chat(urlA, key)) === 200 && (await chat(urlB, key)) === 200);
  }, 60_000);

  it('pages, searches (case-insensitive, % taken literally) and filters on PostgreSQL', async () => {
    for (let i = 0; i < 12; i++) {
      const r = await adminCall(urlB, '/keys', { method: 'POST', key: ADMIN, body: { name: i === 3 ? 'Big 100% Plan' : `pg-page-${i}`, owner: i < 4 ? 'Team-X' : 'team-y' } });
      expect(r.status).toBe(201);
    }
    const ids: string[] = [];
    let after: string | null = null;
    do {
      const page: { json: { data: Array<{ id: string }>; nextCursor: string | null } } = await adminCall(urlA, `/keys?limit=5&search=pg-page${after ? `&after=${after}` : ''}`, { key: ADMIN });
      ids.push(...page.json.data.map((k) => k.id));
      after = page.json.nextCursor;
    } while (after);
    expect(ids).toHaveLength(11);
    expect(new Set(ids).size).toBe(11);
    const percent = await adminCall(urlA, '/keys?search=100%25', { key: ADMIN });
    expect(percent.json.data.map((k: { name: string }) => k.name)).toEqual(['Big 100% Plan']);
    const upper = await adminCall(urlA, '/keys?search=BIG', { key: ADMIN });
    expect(upper.json.data).toHaveLength(1);
    const owner = await adminCall(urlA, '/keys?owner=Team-X&limit=100', { key: ADMIN });
    expect(owner.json.data).toHaveLength(4);
    const revoked = await adminCall(urlA, '/keys?status=revoked', { key: ADMIN });
    expect(revoked.json.data.map((k: { name: string }) => k.name)).toEqual(['shared']);
  });

  it('rotation with an Idempotency-Key rotates once, whichever instance gets the retry', async () => {
    const created = await adminCall(urlA, '/keys', { method: 'POST', key: ADMIN, body: { name: 'idem' } });
    const headers = { 'idempotency-key': `idem-${SCHEMA}` };
    const [first, second] = await Promise.all([
      adminCall(urlA, `/keys/${created.json.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 30 }, headers }),
      adminCall(urlB, `/keys/${created.json.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 30 }, headers }),
    ]);
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    expect(second.json.key).toBe(first.json.key);
    const audit = await adminCall(urlA, `/audit?targetId=${created.json.id}&action=key.rotate`, { key: ADMIN });
    expect(audit.json.data).toHaveLength(1);
    const { rows } = await client.query(`select response from "${SCHEMA}".idempotency_keys`);
    expect(rows).toHaveLength(1);
    expect(rows[0].response).not.toContain(first.json.key);
    // Old and new secrets both work during the grace period, on both instances.
    await within(1000, async () => (await chat(urlB, first.json.key)) === 200);
    expect(await chat(urlB, created.json.key)).toBe(200);
  });

  it('keeps only digests: no secret is stored in any table', async () => {
    const created = await adminCall(urlA, '/keys', { method: 'POST', key: ADMIN, body: { name: 'digest-only' } });
    const secret: string = created.json.key;
    const dump = await client.query(
      `select (select coalesce(json_agg(k), '[]') from "${SCHEMA}".api_keys k)::text as keys,
              (select coalesce(json_agg(s), '[]') from "${SCHEMA}".api_key_secrets s)::text as secrets,
              (select coalesce(json_agg(a), '[]') from "${SCHEMA}".audit_log a)::text as audit`,
    );
    const all = `${dump.rows[0].keys}${dump.rows[0].secrets}${dump.rows[0].audit}`;
    expect(all).not.toContain(secret);
    expect(all).not.toContain(secret.slice(3, 20));
    expect(dump.rows[0].secrets).toContain(created.json.last4);
  });
});
