/**
 * The standalone server as `npm start` runs it (`node dist/node/cli.js`), for the CLI suites: a
 * build of dist/ when it is missing or older than the sources (`npm test` does not rebuild; `npm ci`
 * builds through `prepare`), shared by suites that run in parallel, and a child started on port 0.
 */
import { execFile, execFileSync, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT, spawnListening } from './hosts.js';

export const CLI = join(ROOT, 'dist/node/cli.js');

/** `node scripts/build-console.mjs` (a no-op when its output is newer than console/). */
export function buildConsoleAssets(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts/build-console.mjs')], { cwd: ROOT, stdio: 'pipe' });
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(p));
    else if (entry.name.endsWith('.ts')) newest = Math.max(newest, statSync(p).mtimeMs);
  }
  return newest;
}

const isFresh = () => existsSync(CLI) && statSync(CLI).mtimeMs >= Math.max(newestMtime(join(ROOT, 'src')), newestMtime(join(ROOT, 'adapters')), newestMtime(join(ROOT, 'node')));

/**
 * Builds dist/ unless it is fresh. A lock directory keeps two suites from building at once (one
 * builds, the other waits for it and then finds dist fresh).
 */
export async function ensureCliBuilt(): Promise<void> {
  // The console's assets module (src/console/assets.generated.ts) first: rewritten only when console/ changed.
  buildConsoleAssets();
  if (isFresh()) return;
  const lock = join(tmpdir(), `modelgate-build-${createHash('sha256').update(ROOT).digest('hex').slice(0, 12)}.lock`);
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed run (a build takes well under 5 minutes) is taken over.
      if (existsSync(lock) && Date.now() - statSync(lock).mtimeMs > 5 * 60_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((r) => setTimeout(r, 250));
      if (!existsSync(lock) && isFresh()) return;
    }
  }
  try {
    if (!isFresh()) {
      await promisify(execFile)(join(ROOT, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json'], { cwd: ROOT }).catch(() => {
        // type errors elsewhere in the tree still emit JavaScript; the suites tell whether the CLI works
      });
    }
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/**
 * The machine's env without vendor keys, Redis, modelgate settings or the port (and, with
 * `dropDatabaseUrl`, a database URL), plus `extra`.
 */
export function envWithoutSettings(extra: Record<string, string> = {}, dropDatabaseUrl = false): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v === undefined || /^(OPENAI|ANTHROPIC|GEMINI|GOOGLE)_API_KEY$|^MODELGATE_|^PORT$|^REDIS_URL$/.test(k)) continue;
    if (dropDatabaseUrl && k === 'DATABASE_URL') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

/**
 * Env without vendor keys, Redis, a database URL or modelgate settings, so only what a test passes
 * applies; the store is in memory unless the test names one (no modelgate.db left in the repo).
 */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  return envWithoutSettings({ MODELGATE_DB: 'memory', ...extra }, true);
}

/** `node dist/node/cli.js --port 0 --host 127.0.0.1 ...args`, resolved once it prints its URL. */
export function spawnCli(args: string[], env: Record<string, string>): Promise<{ child: ChildProcess; url: string; output: () => string }> {
  return spawnListening(process.execPath, [CLI, '--port', '0', '--host', '127.0.0.1', ...args], cleanEnv(env), false);
}
