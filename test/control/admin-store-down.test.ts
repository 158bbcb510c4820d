/**
 * The admin API when its database fails under it (the SQLite file overwritten while the shipped
 * server runs): a 503 naming the store, with Retry-After, in the API's error shape, not a bare
 * "internal error" (the console shows that message); chat traffic is still served.
 */
import { mkdtempSync, openSync, writeSync, closeSync, statSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';

const ADMIN = 'mg-admin-store-down-00001';
const KEY = 'mg-store-down-chat-key-01';

beforeAll(async () => {
  await ensureCliBuilt();
}, 360_000);

describe('the admin API over a failing database', () => {
  it('answers 503 store_unavailable with Retry-After; chat goes on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'mg-store-down-'));
    const config = join(dir, 'config.json');
    writeFileSync(config, JSON.stringify({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], keys: [{ id: 'chat', key: KEY }] }));
    const db = join(dir, 'store.db');
    const server = await spawnCli(['--config', config, '--db', db, '--quiet'], { MODELGATE_ADMIN_KEY: ADMIN });
    try {
      expect((await adminCall(server.url, '/keys', { key: ADMIN })).status).toBe(200);
      // The file's bytes become noise under the open connection (a disk failure, a bad restore).
      for (const file of [db, `${db}-wal`, `${db}-shm`]) {
        let size = 0;
        try {
          size = statSync(file).size;
        } catch {
          continue;
        }
        const fd = openSync(file, 'r+');
        writeSync(fd, randomBytes(Math.max(size, 4096)), 0, Math.max(size, 4096), 0);
        closeSync(fd);
      }
      const res = await fetch(`${server.url}/admin/v1/usage?groupBy=model`, { headers: { authorization: `Bearer ${ADMIN}` } });
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('1');
      expect(body.error.code).toBe('store_unavailable');
      expect(body.error.message).toContain('store (database)');
      const chat = await fetch(`${server.url}/v1/chat/completions`, { method: 'POST', headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }) });
      expect(chat.status).toBe(200);
    } finally {
      await stopChild(server.child);
    }
  }, 60_000);
});
