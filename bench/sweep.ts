/**
 * Connection sweep on the pass-through JSON scenario: throughput and p99 at 1, 4, 16, 64, 256
 * connections for the floor, the peer and modelgate, interleaved per repetition, medians per point.
 */
import type { BenchChild } from './children.js';
import { fmtRun, loadPhase } from './measure.js';
import type { RequestSpec } from './scenarios.js';
import type { BenchSettings } from './settings.js';
import { median } from './stats.js';

export type SweepRole = 'floor' | 'peer' | 'gateway';

export interface SweepPoint {
  role: SweepRole;
  connections: number;
  rps: number;
  p50: number;
  p99: number;
  cpuUs: number;
  errors: number;
}

export interface SweepTarget {
  role: SweepRole;
  child: BenchChild;
  spec: RequestSpec;
}

export async function runSweep(targets: SweepTarget[], upstream: BenchChild, complete: (t: string) => boolean, settings: BenchSettings): Promise<SweepPoint[]> {
  const samples = new Map<string, Array<{ rps: number; p50: number; p99: number; cpuUs: number; errors: number }>>();
  for (let rep = 0; rep < settings.sweepReps; rep++) {
    for (const connections of settings.sweepConnections) {
      // Rotate who goes first, so no target always runs on a freshly idle machine.
      const order = targets.map((_, i) => targets[(i + rep + connections) % targets.length] as SweepTarget);
      for (const t of order) {
        const r = await loadPhase(t.child, upstream, t.spec, complete, { connections, warmupMs: settings.warmupMs, durationMs: settings.sweepMs }, settings.maxRequests);
        const key = `${t.role}@${connections}`;
        samples.set(key, [...(samples.get(key) ?? []), { rps: r.rps, p50: r.latency.p50, p99: r.latency.p99, cpuUs: r.cpuPerRequestUs.proxy ?? Number.NaN, errors: r.errors }]);
        console.log(`[sweep ${rep + 1}/${settings.sweepReps}] ${String(connections).padStart(3)} conn ${t.role.padEnd(8)} ${fmtRun(r)}`);
      }
    }
  }
  return targets.flatMap((t) =>
    settings.sweepConnections.map((connections) => {
      const s = samples.get(`${t.role}@${connections}`) ?? [];
      return {
        role: t.role,
        connections,
        rps: median(s.map((x) => x.rps)),
        p50: median(s.map((x) => x.p50)),
        p99: median(s.map((x) => x.p99)),
        cpuUs: median(s.map((x) => x.cpuUs)),
        errors: s.reduce((n, x) => n + x.errors, 0),
      };
    }),
  );
}
