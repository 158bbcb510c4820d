/**
 * `npm start` with no configuration keeps its store in ./modelgate.db, created on first start: a
 * key created through the admin API survives a restart; the secret that encrypts providerKeys is
 * generated beside it (0600). MODELGATE_DB and DATABASE_URL choose
 * another store; `--db memory` keeps nothing.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, ensureCliBuilt } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { adminCall } from '../helpers/admin-api.js';
import { parseDatabaseTarget, resolveDatabaseTarget } from '../../node/db/database-target.js';

const ADMIN = 'mg-default-store-admin-key-01';
const running: ChildProcess[] = [];

/** The CLI started in `cwd` with no --db and no MODELGATE_DB / DATABASE_URL. */
async function startIn(cwd: string, args: string[] = []): Promise<{ child: ChildProcess; url: string; out: () => string }> {
  const env = cleanEnv({ MODELGATE_ADMIN_KEY: ADMIN, MODELGATE_API_KEY: 'mg-default-store-platform-1' });
  delete env.MODELGATE_DB;
  const child = spawn(process.execPath, [CLI, '--port', '0', '--host', '127.0.0.1', ...args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  running.push(child);
  let out = '';
  child.stderr?.on('data', (c: Buffer) => (out += c.toString()));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /listening on (http\S+)/.exec(out);
      if (m) resolve(m[1] as string);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
  });
  return { child, url, out: () => out };
}

beforeAll(async () => {
  await ensureCliBuilt();
}, 180_000);
afterEach(async () => {
  await Promise.all(running.splice(0).map((c) => stopChild(c)));
});

describe('the default store', () => {
  it('is ./modelgate.db, created on first start; keys survive a restart', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-default-db-'));
    const first = await startIn(dir);
    expect(first.out()).toContain('store: SQLite file modelgate.db');
    expect(existsSync(join(dir, 'modelgate.db'))).toBe(true);
    // Its generated providerKeys secret beside it, readable by its owner only.
    expect(first.out()).toContain('providerKeys secret: the file modelgate.db.secret');
    expect(statSync(join(dir, 'modelgate.db.secret')).mode & 0o777).toBe(0o600);
    const created = await adminCall(first.url, '/keys', { method: 'POST', key: ADMIN, body: { name: 'persisted' } });
    expect(created.status).toBe(201);
    await stopChild(first.child);

    const second = await startIn(dir);
    const res = await fetch(`${second.url}/v1/key`, { headers: { authorization: `Bearer ${created.json.key}` } });
    expect(res.status).toBe(200);
    expect((await res.json()).name).toBe('persisted');
  }, 60_000);

  it('--db memory keeps nothing', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-memory-db-'));
    const first = await startIn(dir, ['--db', 'memory']);
    expect(first.out()).toContain('store: SQLite in memory');
    expect(existsSync(join(dir, 'modelgate.db'))).toBe(false);
    expect(existsSync(join(dir, 'modelgate.db.secret'))).toBe(false);
  }, 60_000);

  it('--db, then MODELGATE_DB, then DATABASE_URL, then ./modelgate.db', () => {
    expect(resolveDatabaseTarget('a.db', { MODELGATE_DB: 'b.db', DATABASE_URL: 'postgres://h/db' })).toEqual({ kind: 'sqlite', file: 'a.db' });
    expect(resolveDatabaseTarget(undefined, { MODELGATE_DB: 'b.db', DATABASE_URL: 'postgres://h/db' })).toEqual({ kind: 'sqlite', file: 'b.db' });
    expect(resolveDatabaseTarget(undefined, { DATABASE_URL: 'postgres://u:pw@h:5433/db?schema=tenant_1' })).toEqual({ kind: 'postgres', url: 'postgres://u:pw@h:5433/db', schema: 'tenant_1' });
    expect(resolveDatabaseTarget(undefined, {})).toEqual({ kind: 'sqlite', file: 'modelgate.db' });
    expect(parseDatabaseTarget('sqlite:///var/lib/mg.db')).toEqual({ kind: 'sqlite', file: '/var/lib/mg.db' });
    expect(() => parseDatabaseTarget('postgres://h/db?schema=bad-name;drop')).toThrow('schema');
  });
});
