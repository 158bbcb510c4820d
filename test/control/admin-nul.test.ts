/**
 * Hostile admin input. NUL in a body field, a metadata name, a query filter or a path id (also a
 * public route's id) is the caller's 400 naming where it is: PostgreSQL refuses NUL in text, so
 * before this each was the store's failure (a 500; a 503 for a task id). Metadata past 50 labels is
 * a 400 too. Run on a real SQLite file and on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const ADMIN = 'adm-write-nul-000000000001';

describe.each(testDatabaseKinds())('NUL in admin and path input on %s', (kind) => {
  let t: TestDatabase;
  let control: ControlPlane;
  let gateway: Gateway;
  let platformKey: string;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'admin_nul');
    control = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: { warn: () => undefined } });
    platformKey = (await control.keys.create({ name: 'caller' }, 'test', { configKeys: [] })).body.key as string;
    gateway = createGateway(
      { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], admin: { keys: [{ id: 'w', key: ADMIN, access: 'write' }] } },
      { control },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await control?.close();
    await t?.close();
  });

  const call = async (method: string, path: string, body?: unknown, key = ADMIN): Promise<{ status: number; param: unknown; message: string }> => {
    const res = await gateway.handle(
      new Request(`http://gw${path}`, { method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }),
    );
    const json = (await res.json()) as { error?: { param?: unknown; message?: string } };
    return { status: res.status, param: json.error?.param, message: json.error?.message ?? '' };
  };

  it.each([
    ['POST', '/admin/v1/keys', { name: 'a\u0000b' }, 'name'],
    ['POST', '/admin/v1/keys', { name: 'ok', metadata: { team: 'x\u0000' } }, 'metadata.team'],
    ['POST', '/admin/v1/keys', { name: 'ok', metadata: { 't\u0000': 'x' } }, 'metadata.t\u0000'],
    ['GET', '/admin/v1/keys?search=%00', undefined, 'search'],
    ['GET', '/admin/v1/requests?model=a%00', undefined, 'model'],
    ['GET', '/admin/v1/usage?groupBy=model&provider=%00', undefined, 'provider'],
    ['GET', '/admin/v1/tasks?model=%00', undefined, 'model'],
    ['GET', '/admin/v1/audit?actor=%00', undefined, 'actor'],
    ['GET', '/admin/v1/keys/key_%00', undefined, 'id'],
    ['PATCH', '/admin/v1/keys/key_%00', { name: 'x' }, 'id'],
    ['GET', '/admin/v1/tasks/vtask_%00', undefined, 'id'],
  ])('%s %s: 400 naming the place', async (method, path, body, param) => {
    const answer = await call(method, path, body);
    expect(answer.status).toBe(400);
    expect(answer.param).toBe(param);
    expect(answer.message).toMatch(/must not contain NUL/);
  });

  it("a public route's id: 400 naming it (a task id was the task store's 503)", async () => {
    const answer = await call('GET', '/v1/video/generations/vtask_%00', undefined, platformKey);
    expect(answer).toMatchObject({ status: 400, param: 'id' });
    // The store still answers the same request without the NUL.
    expect((await call('GET', '/v1/video/generations/vtask_unknown', undefined, platformKey)).status).toBe(404);
  });

  it('metadata: at most 50 labels (a 400 naming metadata); 50 are taken', async () => {
    const labels = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, 'v']));
    expect(await call('POST', '/admin/v1/keys', { name: 'many', metadata: labels(51) })).toMatchObject({ status: 400, param: 'metadata' });
    const res = await gateway.handle(
      new Request('http://gw/admin/v1/keys', { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'fifty', metadata: labels(50) }) }),
    );
    expect(res.status).toBe(201);
    expect(Object.keys(((await res.json()) as { metadata: Record<string, string> }).metadata)).toHaveLength(50);
  });
});
