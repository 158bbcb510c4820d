/**
 * The server as it ships: `npm start -- --config FILE ...` in the repository (npm, its shell and
 * `node dist/node/cli.js`), started in a process group of its own, pinned with taskset like the
 * other targets. Its CPU is that of the whole process group (npm and the shell included: an
 * operator's monitoring sees them), read from /proc. The access log goes to a file (as a
 * deployment keeps it) unless `quiet`; the control plane is the embedded default (a SQLite file
 * with the usage ledger), in a temp directory so the repository stays clean.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ticksPerSecond, type BenchChild } from './children.js';
import type { Pinning } from './pinning.js';
import { gatewayConfig } from './settings.js';

export interface ShippedOptions {
  /** `--quiet`: no access log. */
  quiet: boolean;
  /** Extra CLI flags (after the config). */
  args?: string[];
  name?: string;
}

/** utime + stime of every live process whose process group is `pgid`, in microseconds. */
export function groupCpuMicros(pgid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) !== pgid) continue;
    total += Number(fields[11]) + Number(fields[12]);
  }
  return (total * 1e6) / ticksPerSecond();
}

function groupRssBytes(pgid: number): number {
  let total = 0;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]) !== pgid) continue;
      const line = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'));
      if (line) total += Number(line[1]) * 1024;
    } catch {
      continue;
    }
  }
  return total;
}

/**
 * BENCH_PROFILE_SHIPPED=DIR: V8 CPU profile of the server into DIR/shipped[-quiet]. Node refuses
 * --cpu-prof in NODE_OPTIONS, so then the group runs `node --cpu-prof` with the start script's arguments (what npm
 * start runs, without npm and the shell around it).
 */
function profileArgs(repoRoot: string, quiet: boolean): string[] | undefined {
  const dir = process.env.BENCH_PROFILE_SHIPPED;
  if (!dir) return undefined;
  return ['--cpu-prof', `--cpu-prof-dir=${join(dir, quiet ? 'shipped-quiet' : 'shipped')}`, '--cpu-prof-interval=250', ...startScriptArgs(repoRoot)];
}

/** What `npm start` runs after `node`: package.json's start script (its V8 flags, then the CLI), the script's relative path made absolute. */
function startScriptArgs(repoRoot: string): string[] {
  const pkg = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`package.json's start script does not run node: ${pkg.scripts.start}`);
  return args.map((a) => (a.startsWith('-') ? a : join(repoRoot, a)));
}

export async function startShipped(repoRoot: string, upstreamUrl: string, cpu: number, pinning: Pinning, o: ShippedOptions): Promise<BenchChild> {
  const name = o.name ?? (o.quiet ? 'npm start --quiet' : 'npm start');
  const dir = mkdtempSync(join(tmpdir(), 'modelgate-bench-shipped-'));
  const config = join(dir, 'config.json');
  writeFileSync(config, JSON.stringify(gatewayConfig(upstreamUrl), null, 2));
  const cliArgs = ['--config', config, '--port', '0', '--host', '127.0.0.1', '--db', join(dir, 'modelgate.db'), ...(o.quiet ? ['--quiet'] : ['--access-log', join(dir, 'access.log')]), ...(o.args ?? [])];
  const profiled = profileArgs(repoRoot, o.quiet);
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const run = profiled ? [process.execPath, ...profiled, ...cliArgs] : [npm, 'start', '--silent', '--', ...cliArgs];
  const command = pinning.enabled && pinning.taskset ? pinning.taskset : (run[0] as string);
  const args = pinning.enabled && pinning.taskset ? ['-c', String(cpu), ...run] : run.slice(1);
  // detached: a process group of its own (pgid = this pid), so its CPU and its stop cover npm, sh and node.
  const child: ChildProcess = spawn(command, args, { cwd: repoRoot, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'production' } });
  const pgid = child.pid ?? -1;
  let tail = '';
  const keepTail = (c: Buffer) => {
    tail = (tail + c.toString('utf8')).slice(-2000);
  };
  child.stderr?.on('data', keepTail);
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 60 s: ${tail}`)), 60_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited early with code ${code}: ${tail}`)));
    let out = '';
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString('utf8');
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve(m[1].replace(/\/$/, ''));
      }
    });
  });
  child.removeAllListeners('exit');
  // The server's stdout (startup lines only: the access log is in the file) keeps draining.
  child.stdout?.resume();
  return {
    name,
    url,
    pid: pgid,
    cpuMicros: () => Promise.resolve(groupCpuMicros(pgid)),
    rssBytes: () => Promise.resolve(groupRssBytes(pgid)),
    stop: () =>
      new Promise<void>((resolve) => {
        const done = () => {
          rmSync(dir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const force = setTimeout(() => {
          try {
            process.kill(-pgid, 'SIGKILL');
          } catch {
            /* already gone */
          }
        }, 20_000);
        child.once('exit', () => {
          clearTimeout(force);
          done();
        });
        try {
          process.kill(-pgid, 'SIGTERM');
        } catch {
          done();
        }
      }),
  };
}
