/**
 * What the admin API says of a store key beyond its own fields, through the shipped CLI server on a
 * real SQLite file: a key past its expiry is refused and its record says so, and rows that name a
 * key (requests, usage by key, top keys) carry its current name.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall, chatStatusOf, createStoreKey } from '../helpers/admin-api.js';

const ADMIN = 'mg-admin-write-key-0000000001';
const READER = 'mg-admin-read-key-00000000002';
const CONFIG_KEY = 'mg-config-platform-key-0001';

let child: ChildProcess | undefined;
let url: string;
let output: () => string;
const secrets: string[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-key-state-'));
  const configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      providers: [{ id: 'mock', type: 'mock' }],
      models: [{ id: 'mock-chat', provider: 'mock' }],
      keys: [{ id: 'from-config', key: CONFIG_KEY }],
      admin: { keys: [{ id: 'reader', key: READER, access: 'read' }] },
    }),
  );
  const started = await spawnCli(['--config', configPath, '--db', join(dir, 'store.db')], { MODELGATE_ADMIN_KEY: ADMIN });
  child = started.child;
  url = started.url;
  output = started.output;
}, 180_000);

afterAll(async () => {
  if (child) await stopChild(child);
  for (const s of [...secrets, ADMIN, READER]) expect(output()).not.toContain(s);
});

const createKey = (body: Record<string, unknown>) => createStoreKey(url, ADMIN, body, secrets);

const chatStatus = (key: string, model?: string) => chatStatusOf(url, key, model);

describe('key state in the admin API (shipped server, SQLite file)', () => {
  it('a key past its expiry is refused and its record says expired (its status stays what was set)', async () => {
    const expiresAt = new Date(Date.now() + 1500).toISOString();
    const created = await createKey({ name: 'short-lived', models: ['mock-chat'], expiresAt });
    expect(created).toMatchObject({ status: 'active', expired: false });
    await new Promise((r) => setTimeout(r, 1700));
    const refused = await chatStatus(created.key);
    expect(refused.status).toBe(401);
    expect(refused.body).toContain('expired');
    const shown = await adminCall(url, `/keys/${created.id}`, { key: READER });
    expect(shown.json).toMatchObject({ id: created.id, status: 'active', expired: true, expiresAt });
    const listed = await adminCall(url, `/keys?search=short-lived`, { key: READER });
    expect(listed.json.data.map((k: { id: string; expired: boolean }) => [k.id, k.expired])).toEqual([[created.id, true]]);
    // Filters: `expired` lists it, `active` leaves it out.
    const expiredList = await adminCall(url, '/keys?status=expired', { key: READER });
    expect(expiredList.json.data.map((k: { id: string }) => k.id)).toEqual([created.id]);
    const activeList = await adminCall(url, '/keys?status=active&limit=100', { key: READER });
    const activeIds = activeList.json.data.map((k: { id: string }) => k.id);
    expect(activeIds).not.toContain(created.id);
    expect(activeIds).toContain('from-config');
    // A config key has no expiry.
    const fromConfig = await adminCall(url, '/keys/from-config', { key: READER });
    expect(fromConfig.json).toMatchObject({ source: 'config', expired: false });
  });

  it("rows that name a key carry its name: requests, usage by key, top keys (store and config keys)", async () => {
    const created = await createKey({ name: 'Billing team', models: ['mock-chat'] });
    expect((await chatStatus(created.key)).status).toBe(200);
    expect((await chatStatus(CONFIG_KEY)).status).toBe(200);
    // The ledger writes in batches (about once a second).
    let rows: Array<{ keyId: string; keyName: string | null }> = [];
    for (let i = 0; i < 50 && !rows.some((r) => r.keyId === created.id); i++) {
      await new Promise((r) => setTimeout(r, 200));
      rows = (await adminCall(url, `/requests?keyId=${created.id}`, { key: READER })).json.data;
    }
    expect(rows.map((r) => [r.keyId, r.keyName])).toEqual([[created.id, 'Billing team']]);
    const fromConfig = (await adminCall(url, '/requests?keyId=from-config', { key: READER })).json.data as typeof rows;
    expect(fromConfig[0]).toMatchObject({ keyId: 'from-config', keyName: 'from-config' });
    const byKey = (await adminCall(url, '/usage?groupBy=key', { key: READER })).json.data as Array<{ bucket: string; keyName: string | null }>;
    expect(byKey.find((b) => b.bucket === created.id)?.keyName).toBe('Billing team');
    const byModel = (await adminCall(url, '/usage?groupBy=model', { key: READER })).json.data as Array<Record<string, unknown>>;
    expect(byModel[0]).not.toHaveProperty('keyName');
    const top = (await adminCall(url, '/overview/top?by=key&window=24h', { key: READER })).json.data as Array<{ id: string; name: string | null }>;
    expect(top.find((t) => t.id === created.id)?.name).toBe('Billing team');
    // Renamed: the rows say the new name.
    expect((await adminCall(url, `/keys/${created.id}`, { method: 'PATCH', key: ADMIN, body: { name: 'Finance' } })).status).toBe(200);
    const renamed = (await adminCall(url, `/requests?keyId=${created.id}`, { key: READER })).json.data as typeof rows;
    expect(renamed[0]?.keyName).toBe('Finance');
  });
});
