/**
 * `modelgate usage` on the database the server uses (a SQLite file, and PostgreSQL when
 * DATABASE_URL is set): by day, key or model over a date range, as a table and as --json; bad
 * flags are exit code 2 naming the flag; `modelgate usage purge` exports old rows to a CSV file and
 * deletes them.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, ensureCliBuilt, spawnCli } from '../helpers/cli-process.js';
import { stopChild } from '../helpers/hosts.js';
import { readdirSync } from 'node:fs';
import { openTestDatabase, testDatabaseKinds, type TestDatabase } from '../helpers/control-db.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';

const DAY = 86_400_000;
const today = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), new Date().getUTCDate()) + 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString().slice(0, 10);

function row(n: number, over: Partial<LedgerRow>): LedgerRow {
  return {
    traceId: `cli-usage-${n}`, requestId: null, time: today, keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
    model: 'gpt-4o', requestedModel: 'gpt-4o', resolvedModel: 'gpt-4o-2024-08-06', provider: 'openai', deployment: 'gpt-4o', status: 200, errorCode: null, attempts: 1, fallbacks: 0,
    inputTokens: 100, outputTokens: 10, cachedTokens: 0, reasoningTokens: 0, images: null, videoSeconds: null, costUsd: 0.25, price: null,
    latencyMs: 30, ttftMs: null, stream: false, byok: false, cacheHit: false, ...over,
  };
}

async function usage(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [CLI, 'usage', ...args], { env: cleanEnv(), timeout: 60_000 });
    return { code: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof e.code === 'number' ? e.code : 1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

beforeAll(async () => {
  await ensureCliBuilt();
}, 360_000);

describe.each(testDatabaseKinds())('modelgate usage on %s', (kind) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await openTestDatabase(kind, 'cli_usage');
    await new SqlLedgerStore(t.db).write([
      row(1, {}),
      row(2, { keyId: 'key_b', model: 'fast', provider: 'local', costUsd: 1.5, inputTokens: 40, outputTokens: 4 }),
      row(3, { status: 429, errorCode: 'rate_limited', costUsd: null, inputTokens: null, outputTokens: null }),
      row(4, { time: today - DAY, costUsd: 0.5 }),
      row(5, { time: today - 120 * DAY, keyId: 'key_old', costUsd: 2 }),
    ]);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('by key over a date range: a table with a total line', { timeout: 120_000 }, async () => {
    const r = await usage(['--db', t.target, '--by', 'key', '--from', iso(today - DAY), '--to', iso(today)]);
    expect(r.code).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^KEY\s+REQUESTS\s+ERRORS\s+INPUT\s+OUTPUT\s+CACHED\s+COST_USD$/);
    expect(lines.slice(1).map((l) => l.split(/\s+/))).toEqual([
      ['key_a', '3', '1', '200', '20', '0', '0.750000'],
      ['key_b', '1', '0', '40', '4', '0', '1.500000'],
      ['TOTAL', '4', '1', '240', '24', '0', '2.250000'],
    ]);
  });

  it('by day and by model as --json', { timeout: 120_000 }, async () => {
    const byDay = await usage(['--db', t.target, '--json', '--from', iso(today - DAY)]);
    expect(byDay.code).toBe(0);
    expect(JSON.parse(byDay.stdout)).toMatchObject({ object: 'list', groupBy: 'day', data: [{ bucket: iso(today - DAY), requests: 1, costUsd: 0.5 }, { bucket: iso(today), requests: 3, errors: 1, costUsd: 1.75 }] });
    const byModel = await usage(['--db', t.target, '--json', '--by', 'model', '--key', 'key_a']);
    expect(JSON.parse(byModel.stdout).data).toEqual([expect.objectContaining({ bucket: 'gpt-4o', requests: 3, costUsd: 0.75 })]);
  });

  it('bad flags: exit code 2, the flag named', { timeout: 120_000 }, async () => {
    const bad = await usage(['--db', t.target, '--by', 'color']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--by must be one of day, key, model, provider');
    const badDate = await usage(['--db', t.target, '--from', 'yesterday-ish']);
    expect(badDate.code).toBe(2);
    expect(badDate.stderr).toContain('--from must be an ISO 8601 date');
  });

  it('purge: rows older than --days exported to the CSV file, then deleted', { timeout: 120_000 }, async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'mg-purge-')), 'export.csv');
    const r = await usage(['purge', '--db', t.target, '--days', '90', '--export', file, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ rowsDeleted: 1, rollupsDeleted: 0, exportedTo: file });
    const csv = readFileSync(file, 'utf8').trimEnd().split('\r\n');
    expect(csv).toHaveLength(2);
    expect(csv[1]).toMatch(/^cli-usage-5,,[^,]+,key_old,/);
    const left = await new SqlLedgerStore(t.db).rows({}, { limit: 100 });
    expect(left.rows.map((x) => x.traceId).sort()).toEqual(['cli-usage-1', 'cli-usage-2', 'cli-usage-3', 'cli-usage-4']);
    // The summary still has the purged row's day (rollups are kept longer).
    const all = JSON.parse((await usage(['--db', t.target, '--json', '--by', 'key'])).stdout) as { data: Array<{ bucket: string }> };
    expect(all.data.map((b) => b.bucket)).toContain('key_old');
  });

  it('the server purges on its own schedule: old rows exported to MODELGATE_LEDGER_EXPORT_DIR, then deleted', async () => {
    const store = new SqlLedgerStore(t.db);
    await store.write([row(50, { time: today - 40 * DAY, keyId: 'key_stale' })]);
    const exportDir = mkdtempSync(join(tmpdir(), 'mg-retention-'));
    const server = await spawnCli(['--db', t.target, '--quiet'], { MODELGATE_LEDGER_RETENTION_DAYS: '30', MODELGATE_LEDGER_PURGE_INTERVAL_MS: '1000', MODELGATE_LEDGER_EXPORT_DIR: exportDir });
    try {
      for (let i = 0; i < 100 && (await store.rows({ keyId: 'key_stale' }, { limit: 1 })).rows.length; i++) await new Promise((r) => setTimeout(r, 100));
      expect((await store.rows({ keyId: 'key_stale' }, { limit: 1 })).rows).toHaveLength(0);
      const files = readdirSync(exportDir);
      expect(files).toHaveLength(1);
      expect(files[0]).toMatch(/^modelgate-ledger-before-\d{4}-\d{2}-\d{2}-\d+\.csv$/);
      const csv = readFileSync(join(exportDir, files[0] as string), 'utf8');
      expect(csv).toMatch(/^traceId,/);
      expect(csv).toContain('cli-usage-50,');
      // Rows inside the retention stay.
      expect((await store.rows({ keyId: 'key_a' }, { limit: 10 })).rows.length).toBeGreaterThan(0);
      // Said after the rows are gone (and written through an asynchronous pipe): waited for.
      await expect.poll(() => server.output(), { timeout: 10_000 }).toContain('ledger retention: 1 rows before');
    } finally {
      await stopChild(server.child);
    }
  }, 120_000);
});
