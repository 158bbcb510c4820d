/**
 * A database restart under load, through the shipped server on PostgreSQL (DATABASE_URL): the
 * server reaches the database through a relay that goes down and comes back. While it is down,
 * requests are answered as fast as before (the ledger only queues); once it is back, every queued
 * row is written; rows beyond the queue's bound are dropped, and the count is exact (in the
 * `modelgate_ledger_dropped_rows_total` metric and the warning). And a database that stops
 * answering without closing anything (its open connections silently dead, as after a failover):
 * the hanging write is given up after the write timeout and retried on a new connection, so the
 * rows queued meanwhile are written once the database answers again. Runs when DATABASE_URL is
 * set, and then fails if PostgreSQL cannot be reached.
 */
import OpenAI from 'openai';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { openTestDatabase, type TestDatabase } from '../helpers/control-db.js';
import { startOutageRelay, type OutageRelay } from '../helpers/outage-relay.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';

const DATABASE_URL = process.env.DATABASE_URL;
const KEY = 'mg-outage-key-00000001';
const BOUND = 25;

if (!DATABASE_URL) console.warn('[cli-ledger-outage.test] DATABASE_URL is not set: skipping the database-restart test (the failing-sink case is in ledger-queue.test.ts).');

describe.skipIf(!DATABASE_URL)('a database restart under load (PostgreSQL through a relay)', () => {
  let mock: MockOpenAI;
  let t: TestDatabase;
  let relay: OutageRelay;
  let configFile: string;

  beforeAll(async () => {
    await ensureCliBuilt();
    mock = await startMockOpenAI();
    t = await openTestDatabase('postgres', 'ledger_outage');
    const url = new URL(t.target);
    relay = await startOutageRelay(url.hostname, Number(url.port || 5432));
    const dir = mkdtempSync(join(tmpdir(), 'mg-outage-'));
    configFile = join(dir, 'config.json');
    writeFileSync(configFile, JSON.stringify({ providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }], models: [{ id: 'gpt-4o-mini', provider: 'openai' }], keys: [{ id: 'team-o', key: KEY }] }));
  }, 360_000);
  afterAll(async () => {
    await relay?.close();
    await t?.close();
    await mock?.close();
  });

  it('queued rows are written after the database is back; beyond the bound, the dropped count is exact', async () => {
    const viaRelay = new URL(t.target);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    const server = await spawnCli(['--config', configFile, '--db', viaRelay.toString(), '--quiet', '--metrics-port', '0'], { MODELGATE_LEDGER_FLUSH_MS: '50', MODELGATE_LEDGER_QUEUE_ROWS: String(BOUND) });
    const metricsUrl = /metrics at (http\S+)/.exec(server.output())?.[1] as string;
    const store = new SqlLedgerStore(t.db);
    const stored = async () => (await store.rows({ keyId: 'team-o' }, { limit: 1000 })).rows.length;
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const call = async (): Promise<{ trace: string; ms: number }> => {
      const started = performance.now();
      const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      return { trace: r.response.headers.get('x-trace-id') as string, ms: performance.now() - started };
    };
    const waitFor = async (cond: () => Promise<boolean>, ms = 20_000) => {
      const end = Date.now() + ms;
      while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out; server output:\n${server.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      const before: Array<{ trace: string; ms: number }> = [];
      for (let i = 0; i < 10; i++) before.push(await call());
      await waitFor(async () => (await stored()) === 10);

      relay.down();
      const during: Array<{ trace: string; ms: number }> = [];
      for (let i = 0; i < 40; i++) during.push(await call());
      // The database being away never slows a request: the ledger only queues.
      const worst = Math.max(...during.map((d) => d.ms));
      expect(worst).toBeLessThan(1000);
      await new Promise((r) => setTimeout(r, 500));
      const scrape = async () => Number(/^modelgate_ledger_dropped_rows_total(?:\{[^}]*\})? (\d+)/m.exec(await (await fetch(metricsUrl)).text())?.[1] ?? 'NaN');
      expect(await scrape()).toBe(40 - BOUND);
      expect(server.output()).toMatch(/queue full \(25 rows/);
      expect(await stored()).toBe(10);

      relay.up();
      await waitFor(async () => (await stored()) === 10 + BOUND);
      const rows = (await store.rows({ keyId: 'team-o' }, { limit: 1000 })).rows.map((r) => r.traceId);
      // The first BOUND rows of the outage were queued and written; the rest were the dropped ones.
      expect(new Set(rows)).toEqual(new Set([...before, ...during.slice(0, BOUND)].map((d) => d.trace)));
      expect(await scrape()).toBe(40 - BOUND);

      // After the restart, everything flows again.
      const after = await call();
      await waitFor(async () => (await stored()) === 11 + BOUND);
      expect((await store.rows({ keyId: 'team-o' }, { limit: 1 })).rows[0]?.traceId).toBe(after.trace);
    } finally {
      await stopChild(server.child);
    }
  }, 120_000);

  it('a database that stops answering (connections silently dead): hanging writes are given up and retried; every queued row is written after; their reset later ends nothing', async () => {
    const viaRelay = new URL(t.target);
    viaRelay.hostname = '127.0.0.1';
    viaRelay.port = String(relay.port);
    relay.up();
    const server = await spawnCli(['--config', configFile, '--db', viaRelay.toString(), '--quiet', '--metrics-port', '0'], { MODELGATE_LEDGER_FLUSH_MS: '50', MODELGATE_LEDGER_WRITE_TIMEOUT_MS: '1000' });
    const metricsUrl = /metrics at (http\S+)/.exec(server.output())?.[1] as string;
    const store = new SqlLedgerStore(t.db);
    const mine = new Set<string>();
    const stored = async () => (await store.rows({ keyId: 'team-o' }, { limit: 1000 })).rows.filter((r) => mine.has(r.traceId)).length;
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const call = async (): Promise<void> => {
      const r = await client.chat.completions.create({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }).withResponse();
      mine.add(r.response.headers.get('x-trace-id') as string);
    };
    const waitFor = async (cond: () => Promise<boolean>, ms = 30_000) => {
      const end = Date.now() + ms;
      while (!(await cond())) {
        if (Date.now() > end) throw new Error(`timed out; server output:\n${server.output()}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    try {
      for (let i = 0; i < 5; i++) await call();
      await waitFor(async () => (await stored()) === 5);

      relay.freeze();
      for (let i = 0; i < 15; i++) await call();
      // The write on a dead connection is given up (not waited on for ever) and retried.
      await waitFor(async () => /the database did not answer within 1000 ms/.test(server.output()));
      expect(await stored()).toBe(5);

      relay.up();
      await waitFor(async () => (await stored()) === 20);
      const scrape = async () => Number(/^modelgate_ledger_dropped_rows_total(?:\{[^}]*\})? (\d+)/m.exec(await (await fetch(metricsUrl)).text())?.[1] ?? '0');
      expect(await scrape()).toBe(0);
      // Each row once, however many times its batch was tried.
      const traces = (await store.rows({ keyId: 'team-o' }, { limit: 1000 })).rows.map((r) => r.traceId).filter((id) => mine.has(id));
      expect(new Set(traces).size).toBe(traces.length);
      expect(new Set(traces)).toEqual(mine);

      // The connections given up while frozen are reset at last (a restart of the database): the
      // clients still holding them fail; the process goes on and writes through new ones.
      relay.down();
      await new Promise((r) => setTimeout(r, 500));
      relay.up();
      expect(server.child.exitCode).toBe(null);
      await call();
      await waitFor(async () => (await stored()) === 21);
    } finally {
      await stopChild(server.child);
    }
  }, 120_000);
});
