/**
 * The admin API as part of the library: createGateway(config, { control }) with a store opened by
 * node/db, mounted under a prefix by each in-process host (node, Express with and without a body
 * parser, Koa). The admin routes do not exist (404) without an admin credential; the host's own
 * authorizeAdmin(request) hook lets its operators in with read or write access.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import type { GatewayConfigInput } from '../../src/index.js';
import { openDatabase, type OpenedDatabase } from '../../node/db/open-database.js';
import { IN_PROCESS_HOSTS, startHost } from '../helpers/hosts.js';

const ADMIN = 'mg-library-admin-key-000000001';
const config = (admin: boolean): GatewayConfigInput => ({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock' }],
  keys: [{ id: 'cfg', key: 'mg-library-platform-key-01' }],
  ...(admin ? { admin: { keys: [{ id: 'ops', key: ADMIN, access: 'write' as const }] } } : {}),
});

let database: OpenedDatabase;
let control: ControlPlane;

beforeAll(async () => {
  database = await openDatabase({ kind: 'memory' });
  control = await createControlPlane({ db: database.db, dialect: database.dialect });
});
afterAll(async () => {
  await control.close();
  await database.close();
});

describe('admin API mounted by each host under a prefix', () => {
  for (const name of IN_PROCESS_HOSTS) {
    it(`${name}: create a key under /ai/admin/v1, then call a model with it through the openai SDK`, async () => {
      const host = await startHost(name, { config: config(true), prefix: '/ai', options: { control } });
      try {
        const res = await host.http().post(`${host.prefix}/admin/v1/keys`).set('authorization', `Bearer ${ADMIN}`).send({ name: `via-${name}` });
        expect(res.status).toBe(201);
        const created = res.body as { name: string; key: string };
        expect(created.name).toBe(`via-${name}`);
        const client = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: created.key, maxRetries: 0 });
        const answer = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
        expect(answer.choices[0]?.message.role).toBe('assistant');
      } finally {
        await host.stop();
      }
    });
  }

  it("a store key's limits apply like a config key's: its requests per minute give 429 with Retry-After", async () => {
    const host = await startHost('node', { config: config(true), prefix: '', options: { control } });
    try {
      const res = await fetch(`${host.baseURL}/admin/v1/keys`, { method: 'POST', headers: { authorization: `Bearer ${ADMIN}`, 'content-type': 'application/json' }, body: JSON.stringify({ name: 'limited', limits: { requestsPerMinute: 2 } }) });
      const { key } = await res.json();
      const client = new OpenAI({ baseURL: `${host.baseURL}/v1`, apiKey: key, maxRetries: 0 });
      for (let i = 0; i < 2; i++) await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] });
      const err = await client.chat.completions.create({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OpenAI.RateLimitError);
      expect((err as InstanceType<typeof OpenAI.RateLimitError>).headers?.get('retry-after')).toMatch(/^\d+$/);
      expect((err as Error).message).toContain('2 requests per minute');
    } finally {
      await host.stop();
    }
  });

  it('without an admin credential the admin routes do not exist (404), even with a store', async () => {
    const host = await startHost('node', { config: config(false), prefix: '', options: { control } });
    try {
      for (const path of ['/admin/v1/keys', '/admin/v1/openapi.json', '/admin/v1/audit']) {
        const res = await fetch(`${host.baseURL}${path}`, { headers: { authorization: `Bearer ${ADMIN}` } });
        expect(res.status, path).toBe(404);
        expect((await res.json()).error.code).toBe('unknown_route');
      }
    } finally {
      await host.stop();
    }
  });

  it("the host's authorizeAdmin hook lets its operators in; read access cannot write", async () => {
    const host = await startHost('node', {
      config: config(false),
      prefix: '',
      options: {
        control,
        authorizeAdmin: (request) => {
          const who = request.headers.get('x-operator');
          if (who === 'root') return { id: 'host:root', access: 'write' };
          if (who === 'viewer') return { id: 'host:viewer', access: 'read' };
          return null;
        },
      },
    });
    try {
      const created = await fetch(`${host.baseURL}/admin/v1/keys`, { method: 'POST', headers: { 'x-operator': 'root', 'content-type': 'application/json' }, body: JSON.stringify({ name: 'by-host' }) });
      expect(created.status).toBe(201);
      const id = (await created.json()).id;
      const read = await fetch(`${host.baseURL}/admin/v1/keys/${id}`, { headers: { 'x-operator': 'viewer' } });
      expect(read.status).toBe(200);
      const write = await fetch(`${host.baseURL}/admin/v1/keys/${id}/disable`, { method: 'POST', headers: { 'x-operator': 'viewer' } });
      expect(write.status).toBe(403);
      const nobody = await fetch(`${host.baseURL}/admin/v1/keys`);
      expect(nobody.status).toBe(401);
      const audit = await (await fetch(`${host.baseURL}/admin/v1/audit?targetId=${id}`, { headers: { 'x-operator': 'viewer' } })).json();
      expect(audit.data[0]).toMatchObject({ action: 'key.create', actor: 'host:root' });
    } finally {
      await host.stop();
    }
  });
});
