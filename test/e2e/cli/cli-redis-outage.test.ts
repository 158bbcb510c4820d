/**
 * The standalone server when Redis goes away while it runs (issue 12: "Redis down: open serves and
 * logs a warning once per minute"). A TCP relay in front of the real Redis is closed mid-run: the
 * server keeps answering (rateLimitStore.onError "open"), and its log gets one line about the lost
 * connection, not one "[ioredis] Unhandled error event" stack per reconnect attempt.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';
import { startTcpRelay, type TcpRelay } from '../../helpers/tcp-relay.js';
import { startOutageRelay } from '../../helpers/outage-relay.js';

const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('[cli-redis-outage.test] REDIS_URL is not set: skipping (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

const KEY = 'mg-redis-outage-key-0001';
let relay: TcpRelay | undefined;
let child: ChildProcess | undefined;

beforeAll(async () => {
  await ensureCliBuilt();
}, 120_000);
afterAll(async () => {
  if (child) await stopChild(child);
  await relay?.cut();
});

describe.skipIf(!REDIS_URL)('Redis lost while the server runs', () => {
  it('keeps serving (onError "open") and logs the lost connection once, without ioredis stack traces', async () => {
    const target = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
    relay = await startTcpRelay(target, 6379);
    const port = relay.port;

    const dir = mkdtempSync(join(tmpdir(), 'mg-redis-outage-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [{ id: 'mock', type: 'mock' }],
        models: [{ id: 'mock-chat', provider: 'mock' }],
        keys: [{ id: 'outage', key: KEY, limits: { requestsPerMinute: 1000 } }],
        rateLimitStore: { onError: 'open' },
      }),
    );
    const started = await spawnCli(['--config', config], {
      REDIS_URL: `redis://127.0.0.1:${port}`,
      MODELGATE_REDIS_PREFIX: `modelgate:outage:${process.pid}:${Date.now()}:`,
    });
    child = started.child;
    const chat = () =>
      fetch(`${started.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'still there?' }] }),
      });

    const before = await chat();
    expect(before.status).toBe(200);
    expect(before.headers.get('x-ratelimit-limit-requests')).toBe('1000');

    // Redis goes away: the relay stops accepting and cuts the open connection.
    void relay.cut();
    await expect.poll(() => /ECONNREFUSED|ECONNRESET|Connection is closed/.test(started.output()), { timeout: 10_000 }).toBe(true);
    for (let i = 0; i < 5; i++) {
      const res = await chat();
      expect(res.status).toBe(200);
      expect(((await res.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]?.message.content).toContain('still there?');
    }

    const log = started.output();
    expect(log).not.toContain('Unhandled error event');
    expect(log).not.toMatch(/^\s+at /m);
    expect(log.match(/modelgate: lost the connection to Redis/g)?.length).toBe(1);
    expect(log.match(/the rate-limit store failed/g)?.length).toBe(1);
  }, 60_000);

  it('a Redis connection that goes silent (open, no replies) is replaced: budgets answer again once Redis does', async () => {
    const target = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
    const silent = await startOutageRelay(target.hostname, Number(target.port || 6379));
    const dir = mkdtempSync(join(tmpdir(), 'mg-redis-silent-'));
    const config = join(dir, 'config.json');
    writeFileSync(
      config,
      JSON.stringify({
        providers: [{ id: 'mock', type: 'mock' }],
        models: [{ id: 'mock-chat', provider: 'mock', pricing: { inputPerMTok: 1, outputPerMTok: 1 } }],
        keys: [{ id: 'silent', key: KEY, limits: { budget: { usd: 100, period: 'day' } } }],
      }),
    );
    const started = await spawnCli(['--config', config, '--db', 'memory'], { REDIS_URL: `redis://127.0.0.1:${silent.port}`, MODELGATE_REDIS_PREFIX: `modelgate:silent:${process.pid}:${Date.now()}:` });
    const chat = async () =>
      (
        await fetch(`${started.url}/v1/chat/completions`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'mock-chat', messages: [{ role: 'user', content: 'hi' }] }),
        })
      ).status;
    try {
      expect(await chat()).toBe(200);
      silent.freeze();
      // A budget is never skipped: 503 while the store cannot answer.
      expect(await chat()).toBe(503);
      silent.up();
      await expect.poll(chat, { timeout: 15_000, interval: 250 }).toBe(200);
      expect(started.output()).toContain('Redis stopped answering');
    } finally {
      await stopChild(started.child);
      await silent.close();
    }
  }, 60_000);
});
