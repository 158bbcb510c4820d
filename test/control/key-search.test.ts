/**
 * A key list's `search` matches names, owners and metadata labels and values, case-insensitively in
 * every script, on SQLite as on PostgreSQL: SQLite's lower() folds ASCII only, so `ÄRGER` was never
 * found on SQLite (not even typed as stored), and the metadata was searched as JSON text (`{`
 * matched every key, a value holding `"hi"` was missed because the JSON escapes it). Through the
 * admin API on a real SQLite file and PostgreSQL; and the migration that adds the searchable text
 * fills it in for keys stored before it.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Migrator } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import { migrateToLatest } from '../../src/control/db/migrate.js';
import { migrationProvider } from '../../src/control/db/migrations/index.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { openDatabase } from '../../node/db/open-database.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const ADMIN = 'adm-write-search-00000000001';

describe.each(testDatabaseKinds())('key search on %s', (kind) => {
  let t: TestDatabase;
  let control: ControlPlane;
  let gateway: Gateway;
  const ids: Record<string, string> = {};

  const call = async (method: string, path: string, body?: unknown): Promise<{ status: number; json: { data?: Array<{ id: string }> } }> => {
    const res = await gateway.handle(
      new Request(`http://gw/admin/v1${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }),
    );
    return { status: res.status, json: (await res.json()) as { data?: Array<{ id: string }> } };
  };
  const found = async (term: string): Promise<string[]> => {
    const r = await call('GET', `/keys?limit=100&source=store&search=${encodeURIComponent(term)}`);
    expect(r.status).toBe(200);
    return (r.json.data ?? []).map((k) => k.id).sort();
  };

  beforeAll(async () => {
    t = await openTestDatabase(kind, 'key_search');
    control = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: { warn: () => undefined } });
    gateway = createGateway({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], admin: { keys: [{ id: 'w', key: ADMIN, access: 'write' }] } }, { control });
    for (const [label, body] of Object.entries({
      umlaut: { name: 'ÄRGER-Team', owner: 'Ölaf@x.com' },
      quoted: { name: 'plain', metadata: { note: 'say "hi" \\ back', Région: 'Île-de-France' } },
      other: { name: 'other', owner: 'ops@example.com', metadata: { team: 'alpha' } },
    })) {
      const r = await call('POST', '/keys', body);
      expect(r.status).toBe(201);
      ids[label] = (r.json as unknown as { id: string }).id;
    }
  });
  afterAll(async () => {
    await gateway?.close();
    await control?.close();
    await t?.close();
  });

  it('names and owners in any case, in any script', async () => {
    for (const term of ['ÄRGER', 'ärger', 'Ärger-team', 'rger-TEAM', 'ölaf', 'ÖLAF@X']) expect(await found(term), term).toEqual([ids.umlaut]);
  });

  it('metadata labels and values as written, not their JSON text', async () => {
    expect(await found('"hi"')).toEqual([ids.quoted]);
    expect(await found('\\ back')).toEqual([ids.quoted]);
    expect(await found('île-DE')).toEqual([ids.quoted]);
    expect(await found('région')).toEqual([ids.quoted]);
    expect(await found('alpha')).toEqual([ids.other]);
    // JSON's punctuation is not in anything searched.
    expect(await found('{')).toEqual([]);
    expect(await found('":"')).toEqual([]);
    // LIKE's own characters are literal.
    expect(await found('%')).toEqual([]);
    expect(await found('_')).toEqual([]);
  });

  it('follows a change of name, owner or metadata', async () => {
    expect((await call('PATCH', `/keys/${ids.other}`, { name: 'Zoë', metadata: { team: 'beta' } })).status).toBe(200);
    expect(await found('ZOË')).toEqual([ids.other]);
    expect(await found('beta')).toEqual([ids.other]);
    expect(await found('alpha')).toEqual([]);
    expect(await found('ops@')).toEqual([ids.other]);
  });
});

describe('the migration that adds the searchable text', () => {
  it('fills it in for keys stored before it (SQLite file)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mg-key-search-migration-')), 'store.db');
    const opened = await openDatabase({ kind: 'sqlite', file }, { migrate: false });
    try {
      const migrated = await new Migrator({ db: opened.db, provider: migrationProvider }).migrateTo('0006_ledger_names');
      expect(migrated.error).toBeUndefined();
      const old = opened.db as unknown as import('kysely').Kysely<{ api_keys: Record<string, unknown> }>;
      await old
        .insertInto('api_keys')
        .values({ id: 'key_old', name: 'Ärger', owner: 'Ölaf', models: '["*"]', limits: null, metadata: '{"team":"Straße"}', provider_keys: null, expires_at: null, status: 'active', prefix: 'mg-', last4: 'abcd', created_at: 1, updated_at: 1, revoked_at: null, last_used_at: null, revision: 1 })
        .execute();
      expect(await migrateToLatest(opened.db)).toContain('0007_key_search');
      const row = await opened.db.selectFrom('api_keys').select('search_text').where('id', '=', 'key_old').executeTakeFirstOrThrow();
      expect(row.search_text).toBe('ärger\nölaf\nteam\nstraße');
    } finally {
      await opened.close();
    }
  });
});
