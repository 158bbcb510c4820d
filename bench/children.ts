/**
 * Parent side: starts a bench server as its own process (node or bun, optionally pinned to a core
 * with taskset) and waits for its URL over IPC.
 */
import { execFileSync, fork, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { join } from 'node:path';
import type { Pinning } from './pinning.js';

export interface BenchChild {
  name: string;
  url: string;
  /** A platform key the child made for itself (the control-plane server's store key), when it did. */
  platformKey?: string;
  pid: number;
  /** CPU time (user + system, all threads) the child has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** Resident set size now, in bytes. */
  rssBytes(): Promise<number>;
  stop(): Promise<void>;
}

export interface ChildSpec {
  name: string;
  /** Entry: a compiled .js/.mjs (plain node or bun) or a .ts (run through tsx on node). */
  file: string;
  args?: string[];
  env?: Record<string, string>;
  /** Runtime flags (node's execArgv). */
  nodeArgs?: string[];
  runtime?: 'node' | 'bun';
  /** Core to pin the child to (ignored when pinning is off). */
  cpu?: number;
  /** Discard stdout and keep only the tail of stderr (shown if the child dies): chatty third-party servers. */
  quiet?: boolean;
}

let clockTicks: number | undefined;
export function ticksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

/** utime + stime of a process from /proc (all threads, any runtime), or undefined off Linux. */
function procCpuMicros(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesized command name (which may contain spaces).
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(fields[11]) + Number(fields[12]);
    return Number.isFinite(ticks) ? (ticks * 1e6) / ticksPerSecond() : undefined;
  } catch {
    return undefined;
  }
}

function procRssBytes(pid: number): number | undefined {
  try {
    const line = /^VmRSS:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return line ? Number(line[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** The bun binary of the repo's `bun` dev dependency (node_modules/.bin/bun), or undefined. */
export function bunBinary(repoRoot: string): string | undefined {
  const bin = join(repoRoot, 'node_modules', '.bin', 'bun');
  return existsSync(bin) ? realpathSync(bin) : undefined;
}

/** BENCH_NODE_FLAGS: V8/node flags given to every node child alike (floor, peer, gateway, hosts, mock). */
export function nodeFlags(): string[] {
  return (process.env.BENCH_NODE_FLAGS ?? '').split(/\s+/).filter(Boolean);
}

export async function startChild(spec: ChildSpec, pinning: Pinning, bun?: string): Promise<BenchChild> {
  const { name, file } = spec;
  const runtimeArgs = spec.runtime === 'bun' ? [] : [...nodeFlags(), ...(file.endsWith('.ts') ? ['--import', 'tsx'] : []), ...(spec.nodeArgs ?? [])];
  const runtime = spec.runtime === 'bun' ? bun : process.execPath;
  if (!runtime) throw new Error(`${name}: no bun binary (node_modules/.bin/bun)`);
  const pinned = pinning.enabled && pinning.taskset && spec.cpu !== undefined;
  // fork() runs `execPath ...execArgv file ...args` with an IPC channel; taskset execs the runtime in
  // place (same pid), so the channel and the pid survive.
  const child: ChildProcess = fork(file, spec.args ?? [], {
    execPath: pinned ? pinning.taskset : runtime,
    execArgv: pinned ? ['-c', String(spec.cpu), runtime, ...runtimeArgs] : runtimeArgs,
    env: { ...process.env, ...spec.env },
    stdio: spec.quiet ? ['ignore', 'ignore', 'pipe', 'ipc'] : ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let stderrTail = '';
  child.stderr?.on('data', (c: Buffer) => {
    stderrTail = (stderrTail + c.toString('utf8')).slice(-2000);
  });
  let platformKey: string | undefined;
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within 30 s`)), 30_000);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${name} exited early with code ${code}${stderrTail ? `: ${stderrTail}` : ''}`)));
    child.on('message', (msg: unknown) => {
      const m = msg as { type?: string; url?: string; platformKey?: string };
      if (m.type === 'ready' && m.url) {
        clearTimeout(timer);
        if (typeof m.platformKey === 'string') platformKey = m.platformKey;
        resolve(m.url);
      }
    });
  });
  child.removeAllListeners('exit');
  const pid = child.pid ?? -1;
  const waiters: Record<'cpu' | 'mem', Array<(value: number) => void>> = { cpu: [], mem: [] };
  child.on('message', (msg: unknown) => {
    const m = msg as { type?: string; micros?: number; rss?: number };
    if (m.type === 'cpu' && typeof m.micros === 'number') waiters.cpu.shift()?.(m.micros);
    if (m.type === 'mem' && typeof m.rss === 'number') waiters.mem.shift()?.(m.rss);
  });
  const ask = (type: 'cpu' | 'mem') =>
    new Promise<number>((resolve) => {
      waiters[type].push(resolve);
      child.send({ type });
    });
  return {
    name,
    url,
    ...(platformKey !== undefined ? { platformKey } : {}),
    pid,
    cpuMicros: () => {
      const fromProc = procCpuMicros(pid);
      return fromProc !== undefined ? Promise.resolve(fromProc) : ask('cpu');
    },
    rssBytes: () => {
      const fromProc = procRssBytes(pid);
      return fromProc !== undefined ? Promise.resolve(fromProc) : ask('mem');
    },
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        // Generous grace period: a child writing a CPU profile needs a moment.
        const force = setTimeout(() => child.kill('SIGKILL'), 20_000);
        child.once('exit', () => {
          clearTimeout(force);
          resolve();
        });
        if (child.connected) child.send({ type: 'stop' });
        else child.kill('SIGTERM');
      }),
  };
}
