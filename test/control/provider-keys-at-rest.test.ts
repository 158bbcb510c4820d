/**
 * Store keys' providerKeys (bring-your-own upstream credentials) encrypted at rest: the cipher
 * (AES-256-GCM under an HKDF-derived key, bound to the key's id), the control plane on a real
 * SQLite file and PostgreSQL (stored encrypted, read back for requests, legacy plain rows still
 * read and re-written encrypted, a key whose credentials cannot be decrypted refused, no secret on
 * PostgreSQL: 409 naming why), and the shipped server: the embedded SQLite default generates its
 * secret beside the database (0600), a BYOK request reaches the upstream with the holder's key
 * after a restart, and the admin API only ever names provider ids.
 */
import { mkdtempSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane } from '../../src/control/control-plane.js';
import { isSealed, providerIdsOf, providerKeyCipher } from '../../src/control/keys/provider-key-cipher.js';
import { GatewayError } from '../../src/core/errors.js';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const SECRET = 'an-operator-secret-of-enough-length-01';
const HOLDER_KEY = 'sk-holder-own-upstream-credential-0001';
const quiet = { warn: () => undefined };

describe('the providerKeys cipher', () => {
  it('round-trips; the provider ids stay readable; another key id, another secret or altered ids cannot open it', async () => {
    const cipher = await providerKeyCipher(SECRET);
    const sealed = await cipher.seal('key_a', { openai: HOLDER_KEY, 'odd,id:x': 'sk-2' });
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(HOLDER_KEY);
    expect(providerIdsOf(sealed)).toEqual(['openai', 'odd,id:x']);
    expect(await cipher.open('key_a', sealed)).toEqual({ openai: HOLDER_KEY, 'odd,id:x': 'sk-2' });
    // Two seals of the same value differ (a fresh IV each time).
    expect(await cipher.seal('key_a', { openai: HOLDER_KEY })).not.toBe(await cipher.seal('key_a', { openai: HOLDER_KEY }));
    await expect(cipher.open('key_b', sealed)).rejects.toThrow(/another secret, or altered/);
    await expect((await providerKeyCipher(`${SECRET}-other`)).open('key_a', sealed)).rejects.toThrow(/another secret, or altered/);
    await expect(cipher.open('key_a', sealed.replace('enc:v1:openai', 'enc:v1:anthropic'))).rejects.toThrow(/another secret, or altered/);
    // A legacy plain row reads as it is.
    expect(providerIdsOf('{"openai":"sk-x"}')).toEqual(['openai']);
    expect(await cipher.open('key_a', '{"openai":"sk-x"}')).toEqual({ openai: 'sk-x' });
    await expect(providerKeyCipher('short')).rejects.toThrow(/at least 16 characters/);
  });
});

describe.each(testDatabaseKinds())('providerKeys at rest on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'provider_keys');
  });
  afterAll(async () => {
    await t?.close();
  });

  const stored = async (id: string) => (await t.db.selectFrom('api_keys').select('provider_keys').where('id', '=', id).executeTakeFirstOrThrow()).provider_keys;

  it('stores them encrypted, gives requests the plain ones, lists only provider ids', async () => {
    const control = await createControlPlane({ db: t.db, dialect: t.dialect, secret: SECRET, background: false, logger: quiet });
    try {
      const { body } = await control.keys.create({ name: 'byok', providerKeys: { openai: HOLDER_KEY } }, 'test', { configKeys: [] });
      expect(body.providerKeys).toEqual(['openai']);
      const raw = (await stored(body.id)) as string;
      expect(raw.startsWith('enc:v1:openai:')).toBe(true);
      expect(raw).not.toContain(HOLDER_KEY);
      expect((await control.keys.get(body.id, { configKeys: [] })).providerKeys).toEqual(['openai']);
      const found = control.keyCache.lookup(body.key);
      expect(found && 'principal' in found ? found.principal.providerKeys : found).toEqual({ openai: HOLDER_KEY });
      // PATCH replaces them, encrypted again; null clears them.
      await control.keys.update(body.id, { providerKeys: { openai: 'sk-holder-second-000000001' } }, 'test', { configKeys: [] });
      expect(await stored(body.id)).not.toContain('sk-holder-second');
      const again = control.keyCache.lookup(body.key);
      expect(again && 'principal' in again ? again.principal.providerKeys : again).toEqual({ openai: 'sk-holder-second-000000001' });
      await control.keys.update(body.id, { providerKeys: null }, 'test', { configKeys: [] });
      expect(await stored(body.id)).toBeNull();
      // Nothing in the audit log holds a credential.
      const audit = await t.db.selectFrom('audit_log').selectAll().execute();
      expect(JSON.stringify(audit)).not.toContain('sk-holder');
    } finally {
      await control.close();
    }
  });

  it('legacy plain rows still read without a secret, and are encrypted at the next start with one', async () => {
    const first = await createControlPlane({ db: t.db, dialect: t.dialect, secret: SECRET, background: false, logger: quiet });
    const { body } = await first.keys.create({ name: 'legacy' }, 'test', { configKeys: [] });
    await first.close();
    // A row as the release before encryption wrote it.
    await t.db.updateTable('api_keys').set({ provider_keys: JSON.stringify({ openai: HOLDER_KEY }) }).where('id', '=', body.id).execute();

    const withoutSecret = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: quiet });
    const plain = withoutSecret.keyCache.lookup(body.key);
    expect(plain && 'principal' in plain ? plain.principal.providerKeys : plain).toEqual({ openai: HOLDER_KEY });
    expect(await stored(body.id)).toBe(JSON.stringify({ openai: HOLDER_KEY }));
    await withoutSecret.close();

    const withSecret = await createControlPlane({ db: t.db, dialect: t.dialect, secret: SECRET, background: false, logger: quiet });
    try {
      expect(isSealed((await stored(body.id)) as string)).toBe(true);
      expect(await stored(body.id)).not.toContain(HOLDER_KEY);
      const found = withSecret.keyCache.lookup(body.key);
      expect(found && 'principal' in found ? found.principal.providerKeys : found).toEqual({ openai: HOLDER_KEY });
    } finally {
      await withSecret.close();
    }
  });

  it('without a secret, storing providerKeys is a 409 naming why; encrypted ones it cannot read refuse the key', async () => {
    const withSecret = await createControlPlane({ db: t.db, dialect: t.dialect, secret: SECRET, background: false, logger: quiet });
    const { body } = await withSecret.keys.create({ name: 'sealed', providerKeys: { openai: HOLDER_KEY } }, 'test', { configKeys: [] });
    await withSecret.close();

    const warnings: string[] = [];
    const noSecret = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: { warn: (m) => warnings.push(m) } });
    try {
      const err = await noSecret.keys.create({ name: 'x', providerKeys: { openai: 'sk-1' } }, 'test', { configKeys: [] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(GatewayError);
      expect(err).toMatchObject({ status: 409, param: 'providerKeys', detail: 'provider_keys_need_secret' });
      expect((err as Error).message).toMatch(/no secret to encrypt them at rest.*MODELGATE_SECRET/);
      expect(await t.db.selectFrom('api_keys').select('id').where('name', '=', 'x').executeTakeFirst()).toBeUndefined();
      const patched = await noSecret.keys.update(body.id, { providerKeys: { openai: 'sk-2' } }, 'test', { configKeys: [] }).catch((e: unknown) => e);
      expect(patched).toMatchObject({ status: 409, detail: 'provider_keys_need_secret' });
      // Without the secret the key is refused, not served with the gateway's own credential.
      expect(noSecret.keyCache.lookup(body.key)).toEqual({ refused: expect.stringMatching(/providerKeys\) cannot be read by this server/) });
      // (Warnings are rate-limited: the first unreadable key of this database is named.)
      expect(warnings.join('\n')).toMatch(/the providerKeys of key key_\w+ cannot be read \(this server has no secret to decrypt them/);
      expect(warnings.join('\n')).not.toContain(HOLDER_KEY);
      // A key without providerKeys is still made.
      expect((await noSecret.keys.create({ name: 'no-byok' }, 'test', { configKeys: [] })).status).toBe(201);
    } finally {
      await noSecret.close();
    }
    const otherSecret = await createControlPlane({ db: t.db, dialect: t.dialect, secret: `${SECRET}-rotated`, background: false, logger: quiet });
    try {
      expect(otherSecret.keyCache.lookup(body.key)).toMatchObject({ refused: expect.any(String) });
    } finally {
      await otherSecret.close();
    }
  });
});

describe('providerKeys through the shipped server', () => {
  let mock: MockOpenAI;
  let configFile: string;
  const ADMIN = 'mg-admin-provider-keys-0001';
  beforeAll(async () => {
    await ensureCliBuilt();
    mock = await startMockOpenAI();
    configFile = join(mkdtempSync(join(tmpdir(), 'mg-pk-config-')), 'config.json');
    // The gateway's own credential is wrong: only the holder's own key gets through.
    writeFileSync(configFile, JSON.stringify({ providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: 'sk-gateway-wrong-credential-01' }], models: [{ id: 'gpt-4o-mini', provider: 'openai' }] }));
  }, 360_000);
  afterAll(async () => {
    await mock?.close();
  });

  it('SQLite default: a generated secret beside the database (0600); BYOK works after a restart; the API names provider ids only', async () => {
    const db = join(mkdtempSync(join(tmpdir(), 'mg-pk-sqlite-')), 'store.db');
    let server = await spawnCli(['--config', configFile, '--db', db], { MODELGATE_ADMIN_KEY: ADMIN });
    let key: string;
    let id: string;
    try {
      expect(existsSync(`${db}.secret`)).toBe(true);
      expect(statSync(`${db}.secret`).mode & 0o777).toBe(0o600);
      expect(server.output()).toContain(`providerKeys secret: the file ${db}.secret`);
      const created = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'byok', providerKeys: { openai: mock.apiKey } } });
      expect(created.status, created.text).toBe(201);
      expect(created.json.providerKeys).toEqual(['openai']);
      expect(created.text).not.toContain(mock.apiKey);
      key = created.json.key;
      id = created.json.id;
      const listed = await adminCall(server.url, '/keys', { key: ADMIN });
      const shown = await adminCall(server.url, `/keys/${id}`, { key: ADMIN });
      expect(shown.json.providerKeys).toEqual(['openai']);
      for (const a of [listed, shown]) expect(a.text).not.toContain(mock.apiKey);
    } finally {
      await stopChild(server.child);
    }
    server = await spawnCli(['--config', configFile, '--db', db], { MODELGATE_ADMIN_KEY: ADMIN });
    try {
      const client = new OpenAI({ apiKey: key, baseURL: `${server.url}/v1`, maxRetries: 0 });
      const reply = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] });
      expect(reply.choices[0]?.message.content).toBeTruthy();
      expect(server.output()).not.toContain(mock.apiKey);
    } finally {
      await stopChild(server.child);
    }
  }, 120_000);

  it.runIf(process.env.DATABASE_URL)('PostgreSQL without MODELGATE_SECRET: 409 naming why; with it, 201', async () => {
    const t = await openTestDatabase('postgres', 'provider_keys_cli');
    try {
      let server = await spawnCli(['--config', configFile, '--db', t.target], { MODELGATE_ADMIN_KEY: ADMIN });
      try {
        const refused = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'byok', providerKeys: { openai: mock.apiKey } } });
        expect(refused.status).toBe(409);
        expect(refused.json.error).toMatchObject({ param: 'providerKeys', code: 'provider_keys_need_secret' });
        expect(refused.json.error.message).toContain('MODELGATE_SECRET');
        expect(refused.text).not.toContain(mock.apiKey);
      } finally {
        await stopChild(server.child);
      }
      server = await spawnCli(['--config', configFile, '--db', t.target], { MODELGATE_ADMIN_KEY: ADMIN, MODELGATE_SECRET: SECRET });
      try {
        expect(server.output()).toContain('providerKeys secret: MODELGATE_SECRET');
        const created = await adminCall(server.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'byok', providerKeys: { openai: mock.apiKey } } });
        expect(created.status, created.text).toBe(201);
        const client = new OpenAI({ apiKey: created.json.key, baseURL: `${server.url}/v1`, maxRetries: 0 });
        expect((await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] })).choices[0]?.message.content).toBeTruthy();
        const row = await t.db.selectFrom('api_keys').select('provider_keys').where('id', '=', created.json.id).executeTakeFirstOrThrow();
        expect(row.provider_keys).not.toContain(mock.apiKey);
      } finally {
        await stopChild(server.child);
      }
    } finally {
      await t.close();
    }
  }, 120_000);
});
