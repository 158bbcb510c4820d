/**
 * What the operator's CLI prints and changes, through the built CLI on a SQLite file:
 * - `modelgate keys update` changes only what its flags name (the other limits, the budget's amount
 *   or period, the other labels stay; `none` and `KEY=` remove);
 * - text a caller or an admin controls (a requested model id in the ledger, a key's name) reaches
 *   the operator's terminal escaped, never as live control sequences; new key names, owners and
 *   labels with control characters are refused naming the field.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { printable, table } from '../../node/cli-table.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { SqlLedgerStore } from '../../src/control/ledger/sql-ledger-store.js';
import { runKeysCli } from '../helpers/admin-api.js';
import { CLI, cleanEnv, ensureCliBuilt } from '../helpers/cli-process.js';
import { openTestDatabase, type TestDatabase } from '../helpers/control-db.js';

let t: TestDatabase;
const ESC = '\u001b';

beforeAll(async () => {
  await ensureCliBuilt();
  t = await openTestDatabase('sqlite', 'cli_text');
}, 360_000);
afterAll(async () => {
  await t?.close();
});

async function keys(args: string[]) {
  return runKeysCli([...args, '--db', t.target]);
}

describe('modelgate keys update', () => {
  it('changes only the limits and labels its flags name', async () => {
    const created = await keys(['create', '--name', 'merge', '--rpm', '10', '--tpm', '1000', '--concurrency', '2', '--budget-usd', '1.5', '--budget-period', 'week', '--metadata', 'team=a', '--metadata', 'plan=x', '--json']);
    expect(created.code, created.stderr).toBe(0);
    const id = JSON.parse(created.stdout).id as string;
    const update = async (...flags: string[]) => {
      const r = await keys(['update', id, ...flags, '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { limits: Record<string, unknown> | null; metadata: Record<string, string> };
    };
    expect((await update('--budget-usd', '5')).limits).toEqual({ requestsPerMinute: 10, tokensPerMinute: 1000, concurrentRequests: 2, budget: { usd: 5, period: 'week' } });
    expect((await update('--budget-period', 'day')).limits).toEqual({ requestsPerMinute: 10, tokensPerMinute: 1000, concurrentRequests: 2, budget: { usd: 5, period: 'day' } });
    expect((await update('--rpm', 'none', '--tpm', '50')).limits).toEqual({ tokensPerMinute: 50, concurrentRequests: 2, budget: { usd: 5, period: 'day' } });
    expect((await update('--metadata', 'plan=y', '--metadata', 'team=')).metadata).toEqual({ plan: 'y' });
    const cleared = await update('--tpm', 'none', '--concurrency', 'none', '--budget-usd', 'none');
    expect(cleared.limits).toBeNull();
  });

  it('a budget period without an amount on a key without a budget is refused', async () => {
    const created = await keys(['create', '--name', 'no-budget', '--json']);
    const id = JSON.parse(created.stdout).id as string;
    const r = await keys(['update', id, '--budget-period', 'day']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('--budget-usd');
  });
});

describe('control characters', () => {
  it('tables write them as escapes', () => {
    expect(printable(`a${ESC}]0;PWNED\u0007b\r\nc\u202ed`)).toBe('a\\x1b]0;PWNED\\x07b\\x0d\\x0ac\\u202ed');
    const out = table(['NAME'], [[`x${ESC}[2J`]]);
    expect(out).not.toContain(ESC);
    expect(out).toContain('x\\x1b[2J');
  });

  it('a model id a caller sent reaches `modelgate usage` escaped', async () => {
    const hostile = `${ESC}]0;PWNED\u0007${ESC}[2Jx`;
    const row: LedgerRow = {
      traceId: 'cli-text-1', requestId: null, time: Date.now(), keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
      model: hostile, requestedModel: hostile, resolvedModel: null, provider: null, deployment: null, status: 400, errorCode: 'invalid_model_id', attempts: 0, fallbacks: 0,
      inputTokens: null, outputTokens: null, cachedTokens: null, reasoningTokens: null, images: null, videoSeconds: null, costUsd: null, price: null,
      latencyMs: 1, ttftMs: null, stream: false, byok: false, cacheHit: false,
    };
    await new SqlLedgerStore(t.db).write([row]);
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'usage', '--by', 'model', '--db', t.target], { env: cleanEnv(), timeout: 60_000 });
    expect(stdout).not.toContain(ESC);
    expect(stdout).not.toContain('\u0007');
    expect(stdout).toContain('\\x1b]0;PWNED\\x07\\x1b[2Jx');
  });

  it('new names, owners, labels and model patterns with control characters are refused naming the field', async () => {
    for (const [flags, field] of [
      [['--name', `evil${ESC}[2J`], 'name'],
      [['--name', 'ok', '--owner', 'o\r\nwned'], 'owner'],
      [['--name', 'ok', '--metadata', `team=a${ESC}b`], 'metadata'],
      [['--name', 'ok', '--models', `gpt-${ESC}*`], 'models'],
    ] as const) {
      const r = await keys(['create', ...flags]);
      expect(r.code, flags.join(' ')).toBe(1);
      expect(r.stderr).toContain(field);
      expect(r.stderr).toContain('control characters');
      expect(r.stderr).not.toContain(ESC);
    }
  });
});
