/**
 * Per-core measurement: the proxy under test (floor, peer, modelgate, a host) runs pinned to one
 * core, the load generator (this process) and the mock upstream to another, with `taskset`.
 * Without taskset (or with one CPU, or BENCH_PIN=0) everything runs unpinned and the report says so.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cpus } from 'node:os';
import type { BenchSettings } from './settings.js';

export interface Pinning {
  enabled: boolean;
  /** Why pinning is off, for the report. */
  reason?: string;
  taskset?: string;
  targetCpu: number;
  loadCpu: number;
}

function findTaskset(): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(':').filter(Boolean)) {
    const candidate = `${dir}/taskset`;
    if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

export function detectPinning(settings: BenchSettings): Pinning {
  const base = { targetCpu: settings.targetCpu, loadCpu: settings.loadCpu };
  if (!settings.pin) return { ...base, enabled: false, reason: 'BENCH_PIN=0' };
  if (process.platform !== 'linux') return { ...base, enabled: false, reason: `taskset is Linux-only (platform ${process.platform})` };
  const taskset = findTaskset();
  if (!taskset) return { ...base, enabled: false, reason: 'taskset not found on PATH (util-linux)' };
  const n = cpus().length;
  if (n < 2) return { ...base, enabled: false, reason: `only ${n} CPU` };
  if (settings.targetCpu === settings.loadCpu) return { ...base, enabled: false, reason: 'BENCH_TARGET_CPU equals BENCH_LOAD_CPU' };
  if (Math.max(settings.targetCpu, settings.loadCpu) >= n) return { ...base, enabled: false, reason: `CPU ${Math.max(settings.targetCpu, settings.loadCpu)} does not exist (${n} CPUs)` };
  return { ...base, enabled: true, taskset };
}

/** Pins every thread of this process (the load generator) to the load core. */
export function pinSelf(p: Pinning): void {
  if (!p.enabled || !p.taskset) return;
  execFileSync(p.taskset, ['-a', '-p', '-c', String(p.loadCpu), String(process.pid)], { stdio: 'ignore' });
}

export function describePinning(p: Pinning): string {
  return p.enabled
    ? `pinned with taskset: proxies under test on CPU ${p.targetCpu}, load generator + mock upstream on CPU ${p.loadCpu}`
    : `NOT PINNED (${p.reason ?? 'unknown'}): every process shares every core, so figures are not per core`;
}
