/**
 * An Idempotency-Key is the actor's own: a retry by the same admin gets the same answer (the same
 * secret), another admin reusing the key makes its own key and never reads the first one's secret.
 * Through the control plane the standalone server opens, on a SQLite file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openControlPlane } from '../../node/control.js';

let opened: Awaited<ReturnType<typeof openControlPlane>>;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'mg-idem-actor-'));
  opened = await openControlPlane(join(dir, 'store.db'), {}, { background: false });
});
afterAll(async () => {
  await opened?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('Idempotency-Key per actor', () => {
  it('replays for the same admin, not across admins', async () => {
    const keys = opened.control.keys;
    const view = { configKeys: [] };
    const first = await keys.create({ name: 'idem' }, 'admin:ops-a', view, 'same-key-123');
    const retry = await keys.create({ name: 'idem' }, 'admin:ops-a', view, 'same-key-123');
    expect(retry.body.id).toBe(first.body.id);
    expect(retry.body.key).toBe(first.body.key);
    const other = await keys.create({ name: 'idem' }, 'admin:ops-b', view, 'same-key-123');
    expect(other.body.id).not.toBe(first.body.id);
    expect(other.body.key).not.toBe(first.body.key);
    const rotated = await keys.rotate(first.body.id, 0, 'admin:ops-a', view, 'rotate-1');
    const elsewhere = await keys.rotate(first.body.id, 0, 'admin:ops-b', view, 'rotate-1');
    expect(elsewhere.body.key).not.toBe(rotated.body.key);
  });
});
