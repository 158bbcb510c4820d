/**
 * The standalone server's flags and environment variables for timeouts and the connection cap
 * (`node dist/node/cli.js`, built when stale as in cli.test.ts).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnListening, stopChild } from '../../helpers/hosts.js';
import { head, parseResponse, rawConnect } from '../../helpers/raw-http.js';
import { CLI, ensureCliBuilt, envWithoutSettings } from '../../helpers/cli-process.js';

const KEY = 'mg-edge-cli-key-0001';
const children: ChildProcess[] = [];

/**
 * Env without vendor keys, MODELGATE_* settings, Redis or a database URL of the machine, plus
 * `extra`; the store in memory. (The server used to inherit DATABASE_URL and migrate the shared
 * test database's public schema while other suites created and dropped schemas in it: Kysely's
 * check for its bookkeeping table lists every schema, and failed on one dropped meanwhile.)
 */
const cleanEnv = (extra: Record<string, string> = {}): Record<string, string> => envWithoutSettings({ MODELGATE_API_KEY: KEY, MODELGATE_DB: 'memory', ...extra }, true);

async function start(args: string[], env: Record<string, string> = {}): Promise<number> {
  const { child, url } = await spawnListening(process.execPath, [CLI, '--port', '0', ...args], cleanEnv(env), false);
  children.push(child);
  return Number(new URL(url).port);
}

beforeAll(async () => {
  await ensureCliBuilt();
  expect(existsSync(CLI)).toBe(true);
}, 300_000);
afterAll(async () => {
  for (const c of children) await stopChild(c);
});

describe('CLI server limits', () => {
  it('--body-idle-timeout-ms cuts a stalled body (408, connection closed)', async () => {
    const port = await start(['--body-idle-timeout-ms', '200', '--request-timeout-ms', '60000', '--headers-timeout-ms', '10000', '--keep-alive-timeout-ms', '5000']);
    const conn = await rawConnect(port);
    conn.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': 500 }) + '{"model":');
    const { data } = await conn.closed;
    expect(parseResponse(data)?.status).toBe(408);
  });

  it('reads MODELGATE_MAX_CONNECTIONS and MODELGATE_BODY_IDLE_TIMEOUT_MS from the environment', async () => {
    const port = await start([], { MODELGATE_MAX_CONNECTIONS: '1', MODELGATE_BODY_IDLE_TIMEOUT_MS: '200' });
    const first = await rawConnect(port);
    first.socket.write(head('GET /v1/models HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY}` }));
    expect((await first.response()).status).toBe(200);
    const second = await rawConnect(port);
    second.socket.write(head('GET /v1/models HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY}` }));
    expect((await second.closed).data).toBe('');
    first.socket.write(head('POST /v1/chat/completions HTTP/1.1', { host: 'localhost', authorization: `Bearer ${KEY}`, 'content-type': 'application/json', 'content-length': 500 }) + '{');
    const { data } = await first.closed;
    expect(data).toMatch(/HTTP\/1\.1 408/);
  });

  it('refuses a bad value with a message naming the flag', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--request-timeout-ms', 'soon'], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let err = '';
    child.stderr?.on('data', (c: Buffer) => (err += c.toString()));
    const [code] = (await once(child, 'exit')) as [number];
    expect(code).toBe(1);
    expect(err).toContain('--request-timeout-ms');
    const fromEnv = spawn(process.execPath, [CLI, '--port', '0'], { env: cleanEnv({ MODELGATE_MAX_CONNECTIONS: '0' }), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(fromEnv);
    let envErr = '';
    fromEnv.stderr?.on('data', (c: Buffer) => (envErr += c.toString()));
    const [envCode] = (await once(fromEnv, 'exit')) as [number];
    expect(envCode).toBe(1);
    expect(envErr).toContain('MODELGATE_MAX_CONNECTIONS');
  });
});
