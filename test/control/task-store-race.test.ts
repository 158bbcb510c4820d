/**
 * Two gateway instances on one database (a SQLite file; the PostgreSQL server at DATABASE_URL),
 * each with a connection of its own, receive the same idempotent video request (one key, one
 * Request-Id) at the same moment: exactly one upstream job and one task record result, and every
 * caller is answered with that task. Below that, the store itself: many creators of one
 * idempotency key on two connections, exactly one of them creates.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from 'kysely';
import { serve, type RunningServer } from '../../node/index.js';
import type { GatewayConfigInput, TaskRecord } from '../../src/index.js';
import { SqlTaskStore } from '../../src/control/tasks/sql-task-store.js';
import { openDatabase, type OpenedDatabase } from '../../node/db/open-database.js';
import { parseDatabaseTarget } from '../../node/db/database-target.js';
import { startMockMediaOpenAI, type MockMediaOpenAI } from '../helpers/mock-media-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const KEY = 'mg-task-race-key-000000001';
const CALLERS = 8;

let openai: MockMediaOpenAI;
beforeAll(async () => {
  openai = await startMockMediaOpenAI();
});
afterAll(async () => {
  await openai?.close();
});

describe.each(testDatabaseKinds())('idempotent task creation from two instances on %s', (kind) => {
  let t: TestDatabase;
  let second: OpenedDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'task_race');
    // The second instance's own connection (pool) to the same database.
    second = await openDatabase(parseDatabaseTarget(t.target));
  });
  afterAll(async () => {
    await second?.close();
    await t?.close();
  });

  const record = (id: string, now: number): TaskRecord => ({ id, kind: 'test', ownerId: 'owner-1', version: 0, dueAt: null, expiresAt: now + 60_000, data: { id } });

  it("a caller's prompt holding NUL is stored (its summary with NUL replaced) and read back whole", async () => {
    const now = Date.now();
    const store = new SqlTaskStore(t.db);
    const prompt = `a cat\u0000 on a ${'very '.repeat(60)}long road`;
    const task: TaskRecord = { id: `t-nul-${now}`, kind: 'video', ownerId: 'owner-nul', version: 0, dueAt: null, expiresAt: now + 60_000, data: { job: { prompt }, status: 'queued', createdAt: now, updatedAt: now } };
    expect((await store.create(task)).created).toBe(true);
    expect(((await store.get(task.id))?.data.job as { prompt: string }).prompt).toBe(prompt);
    const listed = (await store.list({ keyId: 'owner-nul' }, { limit: 5 })).tasks;
    expect(listed.map((e) => e.promptSummary)).toEqual([`${prompt.replace('\u0000', '\uFFFD').slice(0, 199)}\u2026`]);
  });

  it('many creators of one idempotency key on two connections: one creates, all get its task', async () => {
    const now = Date.now();
    const stores = [new SqlTaskStore(t.db), new SqlTaskStore(second.db)];
    for (let round = 0; round < 5; round++) {
      const key = `race-${round}`;
      const results = await Promise.all(Array.from({ length: CALLERS }, (_, i) => (stores[i % 2] as SqlTaskStore).create(record(`t-${round}-${i}`, now), key)));
      const created = results.filter((r) => r.created);
      expect(created).toHaveLength(1);
      const winner = (created[0] as { task: TaskRecord }).task.id;
      expect(results.map((r) => r.task.id)).toEqual(Array.from({ length: CALLERS }, () => winner));
      const rows = await t.db.selectFrom('tasks').select('id').where('id', 'like', `t-${round}-%`).execute();
      expect(rows.map((r) => r.id)).toEqual([winner]);
    }
  });

  it('an expired task gives its key up to exactly one new creator', async () => {
    const now = Date.now();
    const stores = [new SqlTaskStore(t.db), new SqlTaskStore(second.db)];
    const old = await (stores[0] as SqlTaskStore).create({ ...record('t-old', now - 120_000), expiresAt: now - 1 }, 'expired-key');
    expect(old.created).toBe(true);
    const results = await Promise.all(Array.from({ length: CALLERS }, (_, i) => (stores[i % 2] as SqlTaskStore).create(record(`t-new-${i}`, now), 'expired-key')));
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const ids = new Set(results.map((r) => r.task.id));
    expect(ids.size).toBe(1);
    expect([...ids][0]).toMatch(/^t-new-/);
    const holders = await t.db.selectFrom('tasks').select('id').where('idempotency_key', '=', 'expired-key').execute();
    expect(holders.map((r) => r.id)).toEqual([...ids]);
  });

  it('two gateways answer one Request-Id sent to both at once with one task and one upstream job', async () => {
    const config: GatewayConfigInput = {
      providers: [{ id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey }],
      models: [{ id: 'sora-2', provider: 'openai' }],
      keys: [{ id: 'team-race', key: KEY, models: ['*'] }],
    };
    const video = { pollerTickMs: false as const };
    const gwA = createShippedGateway(config, { taskStore: new SqlTaskStore(t.db), video });
    const gwB = createShippedGateway(config, { taskStore: new SqlTaskStore(second.db), video });
    const servers: RunningServer[] = [await serve(gwA, { port: 0 }), await serve(gwB, { port: 0 })];
    try {
      for (let round = 0; round < 3; round++) {
        const requestId = `${kind}-race-${round}-${Date.now()}`;
        const jobsBefore = openai.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length;
        const answers = await Promise.all(
          Array.from({ length: CALLERS }, async (_, i) => {
            const res = await fetch(`${(servers[i % 2] as RunningServer).url}/v1/video/generations`, {
              method: 'POST',
              headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'request-id': requestId },
              body: JSON.stringify({ model: 'sora-2', prompt: `a race, round ${round}`, duration: 4 }),
            });
            return { status: res.status, body: (await res.json()) as { task_id?: string } };
          }),
        );
        expect(answers.map((a) => a.status)).toEqual(Array.from({ length: CALLERS }, () => 202));
        const ids = new Set(answers.map((a) => a.body.task_id));
        expect(ids.size).toBe(1);
        const jobs = openai.requests.filter((r) => r.method === 'POST' && r.path === '/v1/videos').length - jobsBefore;
        expect(jobs).toBe(1);
        const prompt = `a race, round ${round}`;
        const rows = await t.db.selectFrom('tasks').select('id').where('owner_id', '=', 'team-race').where(sql<boolean>`prompt_summary = ${prompt}`).execute();
        expect(rows.map((r) => r.id)).toEqual([...ids]);
      }
    } finally {
      for (const s of servers) await s.close();
      await gwA.close();
      await gwB.close();
    }
  });
});
