/** The standalone server fills a config file's `${VAR}` references once, as the library does. */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';

let child: ChildProcess | undefined;

afterAll(async () => {
  if (child) await stopChild(child);
});

describe('config file interpolation in the CLI', () => {
  it('a value that itself contains `${...}` is used as is, not expanded a second time', async () => {
    await ensureCliBuilt();
    const dir = mkdtempSync(join(tmpdir(), 'modelgate-cli-env-'));
    const configPath = join(dir, 'config.json');
    writeFileSync(
      configPath,
      JSON.stringify({ providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-chat', provider: 'mock' }], keys: [{ id: 'k', key: '${PLATFORM_KEY}' }] }),
    );
    const key = 'mg-literal-${NOT_SET_ANYWHERE}-key';
    const started = await spawnCli(['--config', configPath], { PLATFORM_KEY: key });
    child = started.child;
    const res = await fetch(`${started.url}/v1/models`, { headers: { authorization: `Bearer ${key}` } });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { data: Array<{ id: string }> };
    expect(body.data.map((m) => m.id)).toContain('mock-chat');
  }, 120_000);
});
