/** One measured phase against one target, with CPU meters on the target, the mock and this process. */
import type { BenchChild } from './children.js';
import { runLoad, type LoadResult } from './load.js';
import type { TargetRun } from './report.js';
import type { RequestSpec } from './scenarios.js';
import type { BenchSettings } from './settings.js';

const loadgenCpu = () => {
  const { user, system } = process.cpuUsage();
  return Promise.resolve(user + system);
};

export interface PhaseOptions {
  connections: number;
  warmupMs: number;
  durationMs: number;
}

export function loadPhase(target: BenchChild, upstream: BenchChild, spec: RequestSpec, complete: (t: string) => boolean, o: PhaseOptions, maxRequests: number): Promise<LoadResult> {
  return runLoad({
    origin: target.url,
    spec,
    cpuMeters: { proxy: target.cpuMicros, upstream: upstream.cpuMicros, loadgen: loadgenCpu },
    connections: o.connections,
    warmupMs: o.warmupMs,
    durationMs: o.durationMs,
    maxRequests,
    complete,
  });
}

/** The single-connection phase (no queueing): the latency a lone caller sees. */
export function singlePhase(origin: string, spec: RequestSpec, complete: (t: string) => boolean, settings: BenchSettings): Promise<LoadResult> {
  return runLoad({
    origin,
    spec,
    connections: 1,
    warmupMs: Math.min(500, settings.latencyMs / 4),
    durationMs: settings.latencyMs,
    maxRequests: settings.maxRequests,
    complete,
  });
}

/** Throughput at `settings.connections`, then (unless BENCH_LATENCY_MS=0) one connection. */
export async function measureTarget(target: BenchChild, upstream: BenchChild, spec: RequestSpec, complete: (t: string) => boolean, settings: BenchSettings): Promise<TargetRun> {
  const loaded = await loadPhase(target, upstream, spec, complete, settings, settings.maxRequests);
  if (settings.latencyMs === 0) return { loaded };
  return { loaded, single: await singlePhase(target.url, spec, complete, settings) };
}

export const fmtRun = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latency.p50.toFixed(2)} ms  p99 ${r.latency.p99.toFixed(2)} ms  cpu/req ${(r.cpuPerRequestUs.proxy ?? NaN).toFixed(0)} us` +
  `${r.errors ? `  ERRORS ${r.errors}: ${r.firstError}` : ''}`;
