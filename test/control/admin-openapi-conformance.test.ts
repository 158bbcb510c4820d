/**
 * The admin API answers as its OpenAPI document says: live answers of the gateway (success and
 * error) validated with Ajv against the schema the document gives for that path, method and
 * status. Error bodies carry `traceId`, which the document's error schema used to forbid, and an
 * instance's ledger stats carry `timeouts`, which it left out.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { openTestDatabase, type TestDatabase } from '../helpers/control-db.js';

const ADMIN = 'adm-write-openapi-0000000001';
const PLATFORM = 'mg-platform-openapi-000001';

type Doc = { paths: Record<string, Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>> };

let t: TestDatabase;
let control: ControlPlane;
let gateway: Gateway;
let doc: Doc;
const ajv = new Ajv2020({ strict: false, allErrors: true });

beforeAll(async () => {
  t = await openTestDatabase('sqlite', 'admin_openapi');
  control = await createControlPlane({ db: t.db, dialect: t.dialect, background: false, logger: { warn: () => undefined } });
  await control.instances.heartbeat({ ledger: control.ledger.stats() });
  gateway = createGateway(
    { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], keys: [{ id: 'config-key', key: PLATFORM }], admin: { keys: [{ id: 'w', key: ADMIN, access: 'write' }] } },
    { control },
  );
  doc = (await (await call('GET', '/openapi.json')).json()) as Doc;
});
afterAll(async () => {
  await gateway?.close();
  await control?.close();
  await t?.close();
});

function call(method: string, path: string, body?: unknown): Promise<Response> {
  return gateway.handle(
    new Request(`http://gw/admin/v1${path}`, { method, headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, ...(body !== undefined ? { body: JSON.stringify(body) } : {}) }),
  );
}

/** Calls the route and checks its answer against the document's schema for (template, method, status). */
async function conforms(method: string, path: string, template: string, status: number, body?: unknown): Promise<unknown> {
  const res = await call(method, path, body);
  const json = (await res.json()) as unknown;
  expect(res.status, JSON.stringify(json)).toBe(status);
  const schema = doc.paths[`/admin/v1${template}`]?.[method.toLowerCase()]?.responses[String(status)]?.content?.['application/json']?.schema;
  expect(schema, `${method} ${template} ${status} in the document`).toBeDefined();
  const validate = ajv.compile(schema as object);
  expect(validate(json), `${method} ${path}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  return json;
}

describe('admin answers conform to /admin/v1/openapi.json', () => {
  it('successes', async () => {
    const created = (await conforms('POST', '/keys', '/keys', 201, { name: 'conformance', metadata: { team: 'a' } })) as { id: string };
    await conforms('GET', '/keys', '/keys', 200);
    await conforms('GET', `/keys/${created.id}`, '/keys/{id}', 200);
    await conforms('PATCH', `/keys/${created.id}`, '/keys/{id}', 200, { owner: 'ops' });
    await conforms('POST', `/keys/${created.id}/rotate`, '/keys/{id}/rotate', 200, { gracePeriodSeconds: 5 });
    await conforms('GET', '/instances', '/instances', 200);
    await conforms('GET', '/usage?groupBy=model', '/usage', 200);
    await conforms('GET', '/requests', '/requests', 200);
    await conforms('GET', '/tasks', '/tasks', 200);
    await conforms('GET', '/audit', '/audit', 200);
  });

  it('errors: 400, 404, 409, with their traceId', async () => {
    const bad = (await conforms('POST', '/keys', '/keys', 400, { name: '' })) as { traceId: string };
    expect(bad.traceId).toMatch(/\w+/);
    await conforms('GET', '/keys/key_nope', '/keys/{id}', 404);
    await conforms('PATCH', '/keys/config-key', '/keys/{id}', 409, { name: 'x' });
    await conforms('GET', '/keys?bogus=1', '/keys', 400);
  });

  it('an empty PATCH changes nothing: same record, no audit entry', async () => {
    const created = (await conforms('POST', '/keys', '/keys', 201, { name: 'untouched' })) as { id: string; updatedAt: string };
    const audited = async (): Promise<number> => ((await (await call('GET', `/audit?targetId=${created.id}`)).json()) as { data: unknown[] }).data.length;
    const before = await audited();
    await new Promise((r) => setTimeout(r, 5));
    const same = (await conforms('PATCH', `/keys/${created.id}`, '/keys/{id}', 200, {})) as { updatedAt: string };
    expect(same.updatedAt).toBe(created.updatedAt);
    expect(await audited()).toBe(before);
  });

  it('an unknown body field is a 400 naming it (also nested)', async () => {
    const top = (await conforms('POST', '/keys', '/keys', 400, { name: 'x', bogus: 1 })) as { error: { param: string; message: string } };
    expect(top.error.param).toBe('bogus');
    expect(top.error.message).toContain('bogus');
    const nested = (await conforms('POST', '/keys', '/keys', 400, { name: 'x', limits: { requestsPerMinute: 5, nope: 2 } })) as { error: { param: string } };
    expect(nested.error.param).toBe('limits.nope');
  });
});
