/**
 * The task center end to end through the shipped server on a real SQLite file and on PostgreSQL:
 * video tasks of two keys (the built-in mock video vendor) listed for all keys and per key with
 * status, progress, model, prompt summary, times and cost; an operator cancels one (its owner then
 * sees it cancelled) and downloads the finished video of the other (the bytes its owner gets).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';

const ADMIN = 'mg-admin-tasks-test-00001';
const READER = 'mg-admin-tasks-reader-0001';
const KEY_A = 'mg-tasks-key-a-000000001';
const KEY_B = 'mg-tasks-key-b-000000002';
const LONG_PROMPT = `a red ball rolling over green hills at sunset, ${'slowly and gently, '.repeat(20)}end`;

let configFile: string;

beforeAll(async () => {
  await ensureCliBuilt();
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-tasks-'));
  configFile = join(dir, 'config.json');
  writeFileSync(
    configFile,
    JSON.stringify({
      providers: [{ id: 'mock', type: 'mock' }],
      models: [{ id: 'mock-video', provider: 'mock', capabilities: ['video'], pricing: { perVideoSecond: 0.05 } }],
      keys: [
        { id: 'team-a', key: KEY_A, models: ['*'] },
        { id: 'team-b', key: KEY_B, models: ['*'] },
      ],
      admin: { keys: [{ id: 'ops', key: ADMIN, access: 'write' }, { id: 'auditor', key: READER, access: 'read' }] },
    }),
  );
}, 360_000);

describe.each(testDatabaseKinds())('task center through the shipped server on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'cli_tasks');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('lists every key\'s tasks, cancels one, downloads the finished video of another', async () => {
    const server = await spawnCli(['--config', configFile, '--db', t.target, '--quiet'], { MODELGATE_LEDGER_FLUSH_MS: '50' });
    const admin = { authorization: `Bearer ${ADMIN}` };
    const submit = async (key: string, prompt: string): Promise<string> => {
      const r = await fetch(`${server.url}/v1/video/generations`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock-video', prompt }) });
      expect(r.status).toBe(202);
      return ((await r.json()) as { task_id: string }).task_id;
    };
    try {
      const taskA = await submit(KEY_A, LONG_PROMPT);
      const taskB = await submit(KEY_B, 'a blue cube');

      const all = (await (await fetch(`${server.url}/admin/v1/tasks`, { headers: admin })).json()) as { object: string; data: Array<Record<string, unknown>>; hasMore: boolean };
      expect(all.object).toBe('list');
      expect(all.data.map((x) => x.id)).toEqual([taskB, taskA]);
      const a = all.data[1] as Record<string, unknown>;
      expect(a).toMatchObject({ object: 'task', kind: 'video', keyId: 'team-a', model: 'mock-video', provider: 'mock', completedAt: null, error: null });
      expect(['queued', 'in_progress', 'accepted']).toContain(a.status);
      expect(a.promptSummary).toHaveLength(200);
      expect(LONG_PROMPT.startsWith((a.promptSummary as string).slice(0, 199))).toBe(true);
      expect(Date.parse(a.createdAt as string)).toBeGreaterThan(Date.now() - 60_000);
      expect(a.costUsd).toBeCloseTo(0.05 * 4, 9);
      const perKey = (await (await fetch(`${server.url}/admin/v1/tasks?keyId=team-b`, { headers: admin })).json()) as { data: Array<{ id: string }> };
      expect(perKey.data.map((x) => x.id)).toEqual([taskB]);
      const paged = (await (await fetch(`${server.url}/admin/v1/tasks?limit=1`, { headers: admin })).json()) as { data: Array<{ id: string }>; nextCursor: string; hasMore: boolean };
      expect(paged).toMatchObject({ hasMore: true, data: [{ id: taskB }] });
      const next = (await (await fetch(`${server.url}/admin/v1/tasks?limit=1&after=${encodeURIComponent(paged.nextCursor)}`, { headers: admin })).json()) as { data: Array<{ id: string }>; hasMore: boolean };
      expect(next).toMatchObject({ hasMore: false, data: [{ id: taskA }] });
      const bogus = await fetch(`${server.url}/admin/v1/tasks?status=bogus`, { headers: admin });
      expect(bogus.status).toBe(400);
      expect(((await bogus.json()) as { error: { param: string } }).error.param).toBe('status');

      // A read-only admin key can look but not cancel.
      expect((await fetch(`${server.url}/admin/v1/tasks/${taskB}`, { headers: { authorization: `Bearer ${READER}` } })).status).toBe(200);
      expect((await fetch(`${server.url}/admin/v1/tasks/${taskB}/cancel`, { method: 'POST', headers: { authorization: `Bearer ${READER}` } })).status).toBe(403);
      const cancelled = await fetch(`${server.url}/admin/v1/tasks/${taskB}/cancel`, { method: 'POST', headers: admin });
      expect(cancelled.status).toBe(200);
      expect(await cancelled.json()).toMatchObject({ id: taskB, keyId: 'team-b', status: 'cancelled' });
      const ownerView = (await (await fetch(`${server.url}/v1/video/generations/${taskB}`, { headers: { authorization: `Bearer ${KEY_B}` } })).json()) as { status: string };
      expect(ownerView.status).toBe('cancelled');
      expect(((await (await fetch(`${server.url}/admin/v1/tasks?status=cancelled`, { headers: admin })).json()) as { data: Array<{ id: string }> }).data.map((x) => x.id)).toEqual([taskB]);
      const audit = (await (await fetch(`${server.url}/admin/v1/audit`, { headers: admin })).json()) as { data: Array<Record<string, unknown>> };
      expect(audit.data.find((e) => e.targetId === taskB)).toMatchObject({ actor: 'ops', action: 'task.cancel', targetType: 'task', after: { status: 'cancelled', keyId: 'team-b' } });
      expect(JSON.stringify(audit)).not.toContain('a blue cube');
      const early = await fetch(`${server.url}/admin/v1/tasks/${taskB}/content`, { headers: admin });
      expect(early.status).toBe(409);

      let status = '';
      let detail: Record<string, unknown> = {};
      for (let i = 0; i < 100 && status !== 'succeeded'; i++) {
        detail = (await (await fetch(`${server.url}/admin/v1/tasks/${taskA}`, { headers: admin })).json()) as Record<string, unknown>;
        status = detail.status as string;
        if (status !== 'succeeded') await new Promise((r) => setTimeout(r, 200));
      }
      expect(detail).toMatchObject({ status: 'succeeded', progress: 100, prompt: LONG_PROMPT, outputs: [{ index: 0, contentType: 'video/mp4', url: `/admin/v1/tasks/${taskA}/content` }] });
      expect(detail.completedAt).toEqual(expect.any(String));
      const operatorBytes = await fetch(`${server.url}/admin/v1/tasks/${taskA}/content`, { headers: admin });
      expect(operatorBytes.status).toBe(200);
      expect(operatorBytes.headers.get('content-type')).toBe('video/mp4');
      const ownerBytes = await fetch(`${server.url}/v1/video/generations/${taskA}/content`, { headers: { authorization: `Bearer ${KEY_A}` } });
      const [x, y] = [Buffer.from(await operatorBytes.arrayBuffer()), Buffer.from(await ownerBytes.arrayBuffer())];
      expect(x.length).toBeGreaterThan(8);
      expect(x.equals(y)).toBe(true);

      // The ledger rows of the submissions carry the seconds of video and their cost.
      const rows = (await (await fetch(`${server.url}/admin/v1/requests?keyId=team-a`, { headers: admin })).json()) as { data: Array<Record<string, unknown>> };
      const submitRow = rows.data.find((r) => r.route === '/v1/video/generations');
      expect(submitRow).toMatchObject({ status: 202, model: 'mock-video', videoSeconds: 4 });
      expect(submitRow?.costUsd).toBeCloseTo(0.2, 9);

      // A failed task's list line says why (the task center shows it).
      const taskC = await submit(KEY_A, '[fail] this one fails');
      let failed: Record<string, unknown> | undefined;
      for (let i = 0; i < 150 && failed?.status !== 'failed'; i++) {
        await fetch(`${server.url}/admin/v1/tasks/${taskC}`, { headers: admin }); // refreshed from the upstream when stale
        failed = ((await (await fetch(`${server.url}/admin/v1/tasks?keyId=team-a`, { headers: admin })).json()) as { data: Array<Record<string, unknown>> }).data.find((x) => x.id === taskC);
        if (failed?.status !== 'failed') await new Promise((r) => setTimeout(r, 200));
      }
      expect(failed).toMatchObject({ status: 'failed', error: { code: 'mock_failure', message: 'The mock video model was asked to fail.' } });

      expect((await fetch(`${server.url}/admin/v1/tasks/vtask_nope`, { headers: admin })).status).toBe(404);
      const bad = await fetch(`${server.url}/admin/v1/tasks?color=red`, { headers: admin });
      expect(bad.status).toBe(400);
    } finally {
      await stopChild(server.child);
    }
  }, 90_000);
});
