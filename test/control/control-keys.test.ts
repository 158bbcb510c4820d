/**
 * Platform keys in the store, end to end through the shipped CLI server (`node dist/node/cli.js`)
 * on a real SQLite file: the admin API's key lifecycle, a new key working with the official openai
 * SDK at once, rotation with a grace period and an Idempotency-Key, disable/enable/revoke (401s in
 * the caller's protocol shape), pagination, search and filters, the errors (400 naming the field,
 * 404, 409 for a config key), admin access (read-only 403, platform key 403, none 401), the audit
 * log, GET /v1/key, and the `modelgate keys` commands on the same --db. No secret appears in a
 * later answer, the audit log or the server's output.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import Anthropic from '@anthropic-ai/sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall, chatStatusOf, createStoreKey, runKeysCli, within } from '../helpers/admin-api.js';

const ADMIN = 'mg-admin-write-key-0000000001';
const READER = 'mg-admin-read-key-00000000002';
const CONFIG_KEY = 'mg-config-platform-key-0001';

let child: ChildProcess | undefined;
let url: string;
let output: () => string;
let db: string;
let configPath: string;
/** Every secret the tests saw: none may appear later where it should not. */
const secrets: string[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-control-keys-'));
  db = join(dir, 'store.db');
  configPath = join(dir, 'config.json');
  writeFileSync(
    configPath,
    JSON.stringify({
      providers: [{ id: 'mock', type: 'mock' }],
      models: [
        { id: 'mock-chat', provider: 'mock' },
        { id: 'other-chat', provider: 'mock', upstreamModel: 'mock-chat' },
      ],
      keys: [{ id: 'from-config', key: CONFIG_KEY }],
      admin: { keys: [{ id: 'reader', key: READER, access: 'read' }] },
    }),
  );
  const started = await spawnCli(['--config', configPath, '--db', db], { MODELGATE_ADMIN_KEY: ADMIN });
  child = started.child;
  url = started.url;
  output = started.output;
}, 180_000);

afterAll(async () => {
  if (child) await stopChild(child);
  // Nothing the server printed holds a secret (platform keys made here, admin keys).
  for (const s of [...secrets, ADMIN, READER]) expect(output()).not.toContain(s);
});

const createKey = (body: Record<string, unknown>) => createStoreKey(url, ADMIN, body, secrets);

function openai(key: string): OpenAI {
  return new OpenAI({ baseURL: `${url}/v1`, apiKey: key, maxRetries: 0 });
}

const chatStatus = (key: string, model?: string) => chatStatusOf(url, key, model);

describe('platform keys in the store (admin API, SQLite file)', () => {
  it('creates a key whose secret is shown once and works with the openai SDK right away', async () => {
    const created = await createKey({ name: 'Team A', owner: 'alice@example.com', models: ['mock-*'], metadata: { team: 'a' }, limits: { requestsPerMinute: 100, budget: { usd: 5, period: 'month' } } });
    expect(created).toMatchObject({ object: 'key', name: 'Team A', owner: 'alice@example.com', models: ['mock-*'], status: 'active', source: 'store', metadata: { team: 'a' }, limits: { requestsPerMinute: 100, budget: { usd: 5, period: 'month' } }, expiresAt: null, lastUsedAt: null, providerKeys: [] });
    expect(created.id).toMatch(/^key_[0-9a-z]{26}$/);
    expect(created.key).toMatch(/^mg-[0-9A-Za-z]{43}$/);
    expect(created.prefix).toBe(created.key.slice(0, 7));
    expect(created.last4).toBe(created.key.slice(-4));
    expect(typeof created.createdAt).toBe('string');

    const completion = await openai(created.key).chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hello' }] });
    expect(completion.object).toBe('chat.completion');
    expect(completion.choices[0]?.message.role).toBe('assistant');
    // Its model patterns apply like a config key's: 403 outside them.
    const denied = await chatStatus(created.key, 'other-chat');
    expect(denied.status).toBe(403);
    expect(JSON.parse(denied.body).error.code).toBe('model_not_allowed');

    // Later reads have every field but the secret.
    const shown = await adminCall(url, `/keys/${created.id}`, { key: READER });
    expect(shown.status).toBe(200);
    expect(shown.json).not.toHaveProperty('key');
    expect(shown.json).toMatchObject({ id: created.id, name: 'Team A', prefix: created.prefix, last4: created.last4, status: 'active', source: 'store' });
    expect(shown.text).not.toContain(created.key);
  });

  it('GET /v1/key answers the key its own name, models, limits, spend and rate-limit state', async () => {
    const created = await createKey({ name: 'self', models: ['mock-chat'], limits: { requestsPerMinute: 10, budget: { usd: 2, period: 'day' } }, expiresAt: '2999-01-01T00:00:00Z' });
    const res = await fetch(`${url}/v1/key`, { headers: { authorization: `Bearer ${created.key}` } });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ object: 'key', id: created.id, name: 'self', models: ['mock-chat'], limits: { requestsPerMinute: 10, budget: { usd: 2, period: 'day' } }, expiresAt: '2999-01-01T00:00:00.000Z', status: 'active' });
    expect(body.usage).toMatchObject({ spendUsd: 0, budgetRemainingUsd: 2 });
    expect(body.usage.periodStart).toBe(`${new Date().toISOString().slice(0, 10)}T00:00:00.000Z`);
    expect(body.rateLimit.requests).toMatchObject({ limit: 10, remaining: 10 }); // looking at its own key spends none of its requests
    expect(JSON.stringify(body)).not.toContain(created.key);
    // A config key has its own view too.
    const fromConfig = await (await fetch(`${url}/v1/key`, { headers: { authorization: `Bearer ${CONFIG_KEY}` } })).json();
    expect(fromConfig).toMatchObject({ id: 'from-config', name: 'from-config', source: 'config', status: 'active', usage: { spendUsd: null, budgetRemainingUsd: null } });
  });

  it('updates a key; its new model patterns apply to requests within a second', async () => {
    const created = await createKey({ name: 'narrow', models: ['mock-chat'] });
    expect((await chatStatus(created.key, 'other-chat')).status).toBe(403);
    const patched = await adminCall(url, `/keys/${created.id}`, { method: 'PATCH', key: ADMIN, body: { name: 'wide', models: ['*'], owner: 'bob' } });
    expect(patched.status).toBe(200);
    expect(patched.json).toMatchObject({ id: created.id, name: 'wide', models: ['*'], owner: 'bob', status: 'active' });
    expect(patched.json).not.toHaveProperty('key');
    expect((await chatStatus(created.key, 'other-chat')).status).toBe(200);
  });

  it('rotates with a grace period: the old secret works until it ends, then 401; the id stays', async () => {
    const created = await createKey({ name: 'rotating' });
    const rotated = await adminCall(url, `/keys/${created.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 2 }, headers: { 'idempotency-key': 'rotate-once-1' } });
    expect(rotated.status).toBe(200);
    secrets.push(rotated.json.key);
    expect(rotated.json.id).toBe(created.id);
    expect(rotated.json.key).toMatch(/^mg-/);
    expect(rotated.json.key).not.toBe(created.key);
    expect(rotated.json.last4).toBe(rotated.json.key.slice(-4));

    // The same Idempotency-Key: the same answer (the same new secret), not a second rotation.
    const again = await adminCall(url, `/keys/${created.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 2 }, headers: { 'idempotency-key': 'rotate-once-1' } });
    expect(again.status).toBe(200);
    expect(again.json.key).toBe(rotated.json.key);
    // ... with other parameters: a 409.
    const reused = await adminCall(url, `/keys/${created.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 5 }, headers: { 'idempotency-key': 'rotate-once-1' } });
    expect(reused.status).toBe(409);
    expect(reused.json.error.param).toBe('Idempotency-Key');

    expect((await chatStatus(rotated.json.key)).status).toBe(200);
    expect((await chatStatus(created.key)).status).toBe(200);
    await new Promise((r) => setTimeout(r, 2100));
    const old = await chatStatus(created.key);
    expect(old.status).toBe(401);
    expect(JSON.parse(old.body).error.message).toContain('rotation');
    expect(old.body).not.toContain(created.key);
    expect((await chatStatus(rotated.json.key)).status).toBe(200);

    // Rotation without grace: the old secret stops at once.
    const hard = await adminCall(url, `/keys/${created.id}/rotate`, { method: 'POST', key: ADMIN });
    expect(hard.status).toBe(200);
    secrets.push(hard.json.key);
    expect((await chatStatus(rotated.json.key)).status).toBe(401);
    expect((await chatStatus(hard.json.key)).status).toBe(200);
  }, 30_000);

  it('disable, enable and revoke: 401 with a clear message in the caller protocol shape, never the secret', async () => {
    const created = await createKey({ name: 'lifecycle' });
    const disabled = await adminCall(url, `/keys/${created.id}/disable`, { method: 'POST', key: ADMIN });
    expect(disabled.json.status).toBe('disabled');
    const refused = await chatStatus(created.key);
    expect(refused.status).toBe(401);
    expect(JSON.parse(refused.body).error).toMatchObject({ type: 'authentication_error', message: 'This API key is disabled.' });
    expect((await adminCall(url, `/keys/${created.id}/enable`, { method: 'POST', key: ADMIN })).json.status).toBe('active');
    expect((await chatStatus(created.key)).status).toBe(200);

    const revoked = await adminCall(url, `/keys/${created.id}`, { method: 'DELETE', key: ADMIN });
    expect(revoked.status).toBe(200);
    expect(revoked.json).toMatchObject({ id: created.id, status: 'revoked' });
    expect(typeof revoked.json.revokedAt).toBe('string');
    const err = await openai(created.key).chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OpenAI.AuthenticationError);
    expect((err as InstanceType<typeof OpenAI.AuthenticationError>).message).toContain('revoked');
    // The Anthropic route answers in Anthropic's shape.
    const anthropicErr = await new Anthropic({ baseURL: url, apiKey: created.key, maxRetries: 0 }).messages.create({ model: 'mock-chat', max_tokens: 5, messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
    expect(anthropicErr).toBeInstanceOf(Anthropic.AuthenticationError);
    expect(JSON.stringify((anthropicErr as InstanceType<typeof Anthropic.AuthenticationError>).error)).toContain('revoked');
    // Still listed, filterable by status; a revoked key cannot come back.
    const listed = await adminCall(url, '/keys?status=revoked', { key: READER });
    expect(listed.json.data.map((k: { id: string }) => k.id)).toContain(created.id);
    expect((await adminCall(url, `/keys/${created.id}/enable`, { method: 'POST', key: ADMIN })).status).toBe(409);
    expect((await adminCall(url, `/keys/${created.id}`, { method: 'PATCH', key: ADMIN, body: { name: 'x' } })).status).toBe(409);
  });

  it('pages through many keys by cursor; search and filters; an unknown filter is a 400 naming it', async () => {
    const made: string[] = [];
    for (let i = 0; i < 23; i++) made.push((await createKey({ name: `bulk-${String(i).padStart(2, '0')}`, owner: i % 2 ? 'odd-team' : 'even-team', metadata: { batch: 'paging' } })).id);
    const seen: string[] = [];
    let after: string | undefined;
    let pages = 0;
    do {
      const res = await adminCall(url, `/keys?limit=10&search=bulk-${after ? `&after=${encodeURIComponent(after)}` : ''}`, { key: READER });
      expect(res.status).toBe(200);
      expect(res.json.object).toBe('list');
      expect(res.json.data.length).toBeLessThanOrEqual(10);
      seen.push(...res.json.data.map((k: { id: string }) => k.id));
      after = res.json.hasMore ? res.json.nextCursor : undefined;
      if (!res.json.hasMore) expect(res.json.nextCursor).toBeNull();
      pages++;
    } while (after);
    expect(pages).toBe(3);
    expect(seen).toHaveLength(23);
    expect(new Set(seen)).toEqual(new Set(made));
    // Newest first.
    expect(seen[0]).toBe(made[22]);

    // A cursor this list never gave is a 400 naming it, not an empty page.
    for (const bad of ['garbage', 'config:no-such-key', 'key_short']) {
      const res = await adminCall(url, `/keys?after=${encodeURIComponent(bad)}`, { key: READER });
      expect(res.status, bad).toBe(400);
      expect(res.json.error.param).toBe('after');
    }

    const odd = await adminCall(url, '/keys?owner=odd-team&limit=100', { key: READER });
    expect(odd.json.data).toHaveLength(11);
    const byMeta = await adminCall(url, '/keys?search=PAGING&limit=100', { key: READER });
    expect(byMeta.json.data).toHaveLength(23);
    const byName = await adminCall(url, '/keys?search=bulk-07', { key: READER });
    expect(byName.json.data.map((k: { name: string }) => k.name)).toEqual(['bulk-07']);
    const configOnly = await adminCall(url, '/keys?source=config', { key: READER });
    expect(configOnly.json.data).toEqual([expect.objectContaining({ id: 'from-config', source: 'config', name: 'from-config', last4: CONFIG_KEY.slice(-4) })]);
    expect(configOnly.text).not.toContain(CONFIG_KEY);

    const unknown = await adminCall(url, '/keys?colour=red', { key: READER });
    expect(unknown.status).toBe(400);
    expect(unknown.json.error.param).toBe('colour');
    const badStatus = await adminCall(url, '/keys?status=sleeping', { key: READER });
    expect(badStatus.status).toBe(400);
    expect(badStatus.json.error.param).toBe('status');
    const badLimit = await adminCall(url, '/keys?limit=0', { key: READER });
    expect(badLimit.status).toBe(400);
    expect(badLimit.json.error.param).toBe('limit');
  }, 60_000);

  it('bad input is a 400 naming the field; unknown ids 404; a config key cannot be changed (409)', async () => {
    const noName = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { models: ['*'] } });
    expect(noName.status).toBe(400);
    expect(noName.json.error.param).toBe('name');
    const badModels = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'x', models: 'mock-chat' } });
    expect(badModels.status).toBe(400);
    expect(badModels.json.error.param).toBe('models');
    const badLimit = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'x', limits: { requestsPerMinute: -1 } } });
    expect(badLimit.json.error.param).toBe('limits.requestsPerMinute');
    const unknownField = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'x', colour: 'red' } });
    expect(unknownField.status).toBe(400);
    expect(unknownField.json.error.message).toContain('colour');
    const past = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'x', expiresAt: '2001-01-01T00:00:00Z' } });
    expect(past.json.error.param).toBe('expiresAt');
    const badProvider = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'x', providerKeys: { nowhere: 'sk-x' } } });
    expect(badProvider.status).toBe(400);
    expect(badProvider.json.error.param).toBe('providerKeys.nowhere');
    const notJson = await adminCall(url, '/keys', { method: 'POST', key: ADMIN, body: '{nope' });
    expect(notJson.status).toBe(400);
    const badGrace = await adminCall(url, '/keys/key_whatever/rotate', { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 'soon' } });
    expect(badGrace.status).toBe(400);
    expect(badGrace.json.error.param).toBe('gracePeriodSeconds');

    for (const [method, path] of [['GET', '/keys/key_missing'], ['PATCH', '/keys/key_missing'], ['DELETE', '/keys/key_missing'], ['POST', '/keys/key_missing/rotate'], ['POST', '/keys/key_missing/disable']] as const) {
      const res = await adminCall(url, path, { method, key: ADMIN, ...(method === 'PATCH' ? { body: { name: 'y' } } : {}) });
      expect(res.status, `${method} ${path}`).toBe(404);
      expect(res.json.error).toMatchObject({ type: 'invalid_request_error', code: 'not_found' });
    }
    for (const [method, path, body] of [['PATCH', '/keys/from-config', { name: 'y' }], ['POST', '/keys/from-config/rotate', undefined], ['DELETE', '/keys/from-config', undefined], ['POST', '/keys/from-config/disable', undefined]] as const) {
      const res = await adminCall(url, path, { method, key: ADMIN, ...(body ? { body } : {}) });
      expect(res.status, `${method} ${path}`).toBe(409);
      expect(res.json.error.code).toBe('config_key_read_only');
      expect(res.json.error.message).toContain('config file');
    }
    const shown = await adminCall(url, '/keys/from-config', { key: READER });
    expect(shown.json).toMatchObject({ id: 'from-config', source: 'config', status: 'active' });
  });

  it('admin access: none 401, a platform key 403, read-only 403 on writes; the admin key never echoed', async () => {
    const none = await adminCall(url, '/keys');
    expect(none.status).toBe(401);
    // The hint reads as written (it once quoted `Bearer <admin key>`, which the log scrubber garbled).
    expect(none.json.error.message).toBe('Missing admin key. Send it in the Authorization header as a bearer token.');
    const wrong = await adminCall(url, '/keys', { key: 'mg-not-an-admin-key-at-all-000' });
    expect(wrong.status).toBe(401);
    expect(wrong.text).not.toContain('mg-not-an-admin-key-at-all-000');
    const platform = await adminCall(url, '/keys', { key: CONFIG_KEY });
    expect(platform.status).toBe(403);
    expect(platform.text).not.toContain(CONFIG_KEY);
    const storeKey = await createKey({ name: 'not-admin' });
    expect((await adminCall(url, '/keys', { key: storeKey.key })).status).toBe(403);
    const readOnly = await adminCall(url, '/keys', { method: 'POST', key: READER, body: { name: 'x' } });
    expect(readOnly.status).toBe(403);
    expect(readOnly.json.error.code).toBe('admin_read_only');
    expect((await adminCall(url, '/keys', { key: READER })).status).toBe(200);
    // An admin key is not a platform key.
    expect((await chatStatus(ADMIN)).status).toBe(401);
  });

  it('the audit log has every change with actor, action, target, before and after, and no secret', async () => {
    const created = await createKey({ name: 'audited', providerKeys: { mock: 'sk-upstream-secret-of-the-holder' } });
    expect(created.providerKeys).toEqual(['mock']);
    expect(JSON.stringify(created)).not.toContain('sk-upstream-secret-of-the-holder');
    await adminCall(url, `/keys/${created.id}`, { method: 'PATCH', key: ADMIN, body: { name: 'audited-2' } });
    const rotated = await adminCall(url, `/keys/${created.id}/rotate`, { method: 'POST', key: ADMIN, body: { gracePeriodSeconds: 0 } });
    secrets.push(rotated.json.key);
    await adminCall(url, `/keys/${created.id}`, { method: 'DELETE', key: ADMIN });
    const audit = await adminCall(url, `/audit?targetId=${created.id}`, { key: READER });
    expect(audit.status).toBe(200);
    expect(audit.json.data.map((e: { action: string }) => e.action)).toEqual(['key.revoke', 'key.rotate', 'key.update', 'key.create']);
    const update = audit.json.data[2];
    expect(update).toMatchObject({ object: 'audit_entry', actor: 'env:MODELGATE_ADMIN_KEY', targetType: 'key', targetId: created.id, before: { name: 'audited' }, after: { name: 'audited-2' } });
    expect(audit.json.data[3].before).toBeNull();
    const all = await adminCall(url, '/audit?limit=100', { key: READER });
    for (const s of [...secrets, 'sk-upstream-secret-of-the-holder', ADMIN]) expect(all.text).not.toContain(s);
    const paged = await adminCall(url, '/audit?limit=2&action=key.create', { key: READER });
    expect(paged.json.data).toHaveLength(2);
    expect(paged.json.hasMore).toBe(true);
    const next = await adminCall(url, `/audit?limit=2&action=key.create&after=${paged.json.nextCursor}`, { key: READER });
    expect(next.json.data[0].id < paged.json.data[1].id).toBe(true);
    expect((await adminCall(url, '/audit?from=yesterday', { key: READER })).json.error.param).toBe('from');
  });

  it('serves an OpenAPI document of the admin API generated from the schemas', async () => {
    const res = await adminCall(url, '/openapi.json', { key: READER });
    expect(res.status).toBe(200);
    expect(res.json.openapi).toBe('3.1.0');
    const create = res.json.paths['/admin/v1/keys'].post;
    expect(create.requestBody.content['application/json'].schema.required).toEqual(['name']);
    expect(Object.keys(create.requestBody.content['application/json'].schema.properties)).toEqual(['name', 'owner', 'models', 'limits', 'expiresAt', 'metadata', 'providerKeys']);
    expect(create.responses['201'].content['application/json'].schema.properties.key).toBeDefined();
    expect(res.json.paths['/admin/v1/keys/{id}/rotate'].post.parameters.map((p: { name: string }) => p.name)).toEqual(['id', 'Idempotency-Key']);
    expect(res.json.paths['/admin/v1/keys'].get.parameters.map((p: { name: string }) => p.name)).toEqual(['limit', 'after', 'search', 'status', 'owner', 'source']);
    expect(res.json.paths['/admin/v1/audit'].get).toBeDefined();
  });

  it('the keys CLI works on the same --db: tables and --json; its changes reach the running server within a second', async () => {
    const created = await runKeysCli(['create', '--db', db, '--name', 'from-cli', '--owner', 'ops', '--models', 'mock-chat', '--rpm', '30', '--metadata', 'env=prod', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const record = JSON.parse(created.stdout);
    secrets.push(record.key);
    expect(record).toMatchObject({ object: 'key', name: 'from-cli', owner: 'ops', models: ['mock-chat'], limits: { requestsPerMinute: 30 }, metadata: { env: 'prod' }, status: 'active', source: 'store' });
    // The server (polling, no Redis here) accepts the new key within a second.
    const took = await within(1500, async () => (await chatStatus(record.key)).status === 200);
    expect(took).toBeLessThan(1200);

    const table = await runKeysCli(['list', '--db', db, '--search', 'from-cli']);
    expect(table.code).toBe(0);
    expect(table.stdout.split('\n')[0]).toMatch(/^ID\s+NAME\s+OWNER\s+STATUS\s+SOURCE\s+KEY\s+MODELS\s+EXPIRES\s+LAST USED$/);
    expect(table.stdout).toContain(record.id);
    expect(table.stdout).toContain(`${record.prefix}…${record.last4}`);
    expect(table.stdout).not.toContain(record.key);

    const listed = await runKeysCli(['list', '--db', db, '--json', '--limit', '100', '--config', configPath]);
    const page = JSON.parse(listed.stdout);
    expect(page.object).toBe('list');
    expect(page.data[0]).toMatchObject({ id: 'from-config', source: 'config' });
    expect(page.data.map((k: { id: string }) => k.id)).toContain(record.id);
    expect(listed.stdout).not.toContain(record.key);

    // A key made through the admin API is visible to the CLI, and the CLI's revoke reaches the server.
    const viaApi = await createKey({ name: 'api-then-cli' });
    const shown = await runKeysCli(['show', viaApi.id, '--db', db]);
    expect(shown.stdout).toMatch(/name\s+api-then-cli/);
    const revoked = await runKeysCli(['revoke', viaApi.id, '--db', db, '--json']);
    expect(JSON.parse(revoked.stdout).status).toBe('revoked');
    await within(1500, async () => (await chatStatus(viaApi.key)).status === 401);

    const rotated = await runKeysCli(['rotate', record.id, '--db', db, '--grace-seconds', '60']);
    expect(rotated.stdout).toContain('New secret (shown once');
    const newSecret = rotated.stdout.trim().split('\n').pop() as string;
    secrets.push(newSecret);
    expect(newSecret).toMatch(/^mg-/);
    await within(1500, async () => (await chatStatus(newSecret)).status === 200);
    expect((await chatStatus(record.key)).status).toBe(200);

    const updated = await runKeysCli(['update', record.id, '--db', db, '--name', 'renamed', '--json']);
    expect(JSON.parse(updated.stdout).name).toBe('renamed');
    const audit = await adminCall(url, `/audit?targetId=${record.id}`, { key: READER });
    expect(audit.json.data[0]).toMatchObject({ action: 'key.update', actor: expect.stringMatching(/^cli:/) });

    const missing = await runKeysCli(['show', 'key_nope', '--db', db]);
    expect(missing.code).toBe(4);
    expect(missing.stderr).toContain("No key with id 'key_nope'");
    const configChange = await runKeysCli(['disable', 'from-config', '--db', db, '--config', configPath]);
    expect(configChange.code).toBe(1);
    expect(configChange.stderr).toContain('config file');
    const badFlag = await runKeysCli(['create', '--db', db, '--name', 'x', '--rpm', 'many']);
    expect(badFlag.code).toBe(1);
    expect(badFlag.stderr).toContain('--rpm');
  }, 240_000);
});
