/**
 * A MODELGATE_API_KEY that is too short is refused by the standalone server with a message naming
 * MODELGATE_API_KEY (not the generated config path `keys.0.key`), and the process exits non-zero.
 * The CLI runs from its sources through tsx, so this suite does not depend on a fresh dist/ build.
 */
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { embeddedDefault } from '../../../src/config/defaults.js';
import { ConfigError } from '../../../src/config/load.js';
import { ROOT } from '../../helpers/hosts.js';
import { envWithoutSettings } from '../../helpers/cli-process.js';

/** Env without vendor keys or modelgate settings, plus `extra`. */
const cleanEnv = (extra: Record<string, string>): Record<string, string> => envWithoutSettings({ NO_COLOR: '1', ...extra });

/** Runs the CLI until it exits (it must exit by itself: a listening server is a failure). */
function runCli(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'node/cli.ts', '--port', '0'], { cwd: ROOT, env: cleanEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => {
      stdout += c.toString();
      if (stdout.includes('listening on')) child.kill('SIGKILL');
    });
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.once('error', reject);
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('MODELGATE_API_KEY', () => {
  it('embeddedDefault refuses a key shorter than 8 characters, naming the variable', () => {
    let thrown: unknown;
    try {
      embeddedDefault({ MODELGATE_API_KEY: 'sk-1234' }, ['mock'], () => 'unused-random-key');
    } catch (err) {
      thrown = err;
    }
    expect(thrown).toBeInstanceOf(ConfigError);
    expect((thrown as ConfigError).issues).toEqual([
      'MODELGATE_API_KEY: must be at least 8 characters (it has 7); unset it to get a random key printed at start',
    ]);
  });

  it('embeddedDefault takes a key of 8 characters as the platform key', () => {
    const def = embeddedDefault({ MODELGATE_API_KEY: 'sk-12345' }, ['mock'], () => 'unused-random-key');
    expect(def.config.keys).toEqual([{ id: 'default', key: 'sk-12345', models: ['*'] }]);
    expect(def.generatedKey).toBeUndefined();
  });

  it('the CLI exits non-zero with a message naming MODELGATE_API_KEY, without echoing the key', async () => {
    const { code, stdout, stderr } = await runCli({ MODELGATE_API_KEY: 'abc12' });
    expect(code).toBe(1);
    expect(stdout).not.toContain('listening on');
    expect(stderr).toContain('MODELGATE_API_KEY: must be at least 8 characters (it has 5)');
    expect(stderr).not.toContain('keys.0.key');
    expect(stdout + stderr).not.toContain('abc12');
  }, 60_000);
});
