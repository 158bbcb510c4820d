/** Aggregation across repetitions: per-scenario figures, ratios and the targets. */
import type { LoadResult } from './load.js';
import type { MemoryReport } from './memory.js';
import type { Scenario } from './scenarios.js';
import { TARGETS, type BenchSettings } from './settings.js';
import { median } from './stats.js';
import type { SweepPoint } from './sweep.js';

/**
 * Who serves a run: the bare relay, the peer gateway, modelgate (on the node:http bridge, or on
 * the host of a host scenario), and in host scenarios the node:http bridge for comparison.
 */
export type Role = 'floor' | 'peer' | 'gateway' | 'bridge' | 'shipped' | 'quiet';
export const ROLES: Role[] = ['floor', 'peer', 'gateway', 'bridge', 'shipped', 'quiet'];
/** `shipped`: the server as `npm start` runs it (process group, access log to a file); `quiet`: the same with --quiet. */

export interface TargetRun {
  /** Throughput phase at `connections` connections. */
  loaded: LoadResult;
  /** One connection, one request at a time: the latency a single caller sees. */
  single?: LoadResult;
}

export interface Repetition {
  runs: Partial<Record<Role, TargetRun>>;
  /** One connection straight to the mock: the baseline of "added" latency. */
  direct?: LoadResult;
}

export interface SingleFigures {
  p50: number;
  p99: number;
  ttfbP50: number;
}

export interface RoleFigures {
  rps: number;
  /** CPU microseconds per request of the process under test (all threads). */
  cpuUs: number;
  /** Share of one core the process under test used in the window (1 = saturated). */
  coreBusy: number;
  /** Share of one core used by the load generator + mock in the window (near 1: the load side limits the figure). */
  loadCoreBusy: number;
  loadedP50: number;
  loadedP99: number;
  single?: SingleFigures;
  /** Single-connection latency minus calling the mock directly, same repetition (ms). */
  added?: SingleFigures;
  errors: number;
  firstError?: string;
}

export interface Check {
  name: string;
  value: number;
  target: number;
  /** `min`: value must be >= target; `max`: <= target. */
  bound: 'min' | 'max';
  ok: boolean;
}

export interface ScenarioSummary {
  id: string;
  title: string;
  kind: Scenario['kind'];
  stream: boolean;
  targetRatio: number;
  roles: Partial<Record<Role, RoleFigures>>;
  direct?: SingleFigures;
  /** Medians over repetitions of modelgate rps / the other's rps in the same repetition. */
  ratioFloor: number;
  ratioPeer?: number;
  ratioBridge?: number;
  /** The server as shipped against the floor and the in-process child, same repetitions (medians of per-repetition ratios). */
  shipped?: ShippedFigures;
  checks: Check[];
  errors: number;
  pass: boolean;
}

export interface ShippedFigures {
  /** npm start CPU/request over the floor's. */
  cpuToFloor: number;
  /** npm start CPU/request over the in-process child's (the node bridge alone). */
  cpuToInProcess: number;
  /** npm start --quiet CPU/request over the floor's. */
  quietCpuToFloor?: number;
  /** The access log's share of the server's CPU: 1 - quiet/shipped CPU per request. */
  accessLogShare?: number;
  /** npm start req/s over the floor's. */
  rpsToFloor: number;
  cpuTarget?: number;
}

const singleOf = (r: LoadResult): SingleFigures => ({ p50: r.latency.p50, p99: r.latency.p99, ttfbP50: r.ttfb.p50 });

function roleFigures(reps: Repetition[], role: Role): RoleFigures | undefined {
  const runs = reps.flatMap((r) => {
    const run = r.runs[role];
    return run ? [{ run, direct: r.direct }] : [];
  });
  if (runs.length === 0) return undefined;
  const loaded = runs.map((x) => x.run.loaded);
  const busy = (l: LoadResult, keys: string[]) => (keys.reduce((sum, k) => sum + (l.cpuPerRequestUs[k] ?? Number.NaN), 0) * l.rps) / 1e6;
  const singles = runs.flatMap((x) => (x.run.single ? [{ s: x.run.single, d: x.direct }] : []));
  const withDirect = singles.flatMap((x) => (x.d ? [{ s: x.s, d: x.d }] : []));
  const all = runs.flatMap((x) => [x.run.loaded, x.run.single]).filter((x): x is LoadResult => x !== undefined);
  const firstError = all.find((x) => x.firstError)?.firstError;
  return {
    rps: median(loaded.map((l) => l.rps)),
    cpuUs: median(loaded.map((l) => l.cpuPerRequestUs.proxy ?? Number.NaN)),
    coreBusy: median(loaded.map((l) => busy(l, ['proxy']))),
    loadCoreBusy: median(loaded.map((l) => busy(l, ['upstream', 'loadgen']))),
    loadedP50: median(loaded.map((l) => l.latency.p50)),
    loadedP99: median(loaded.map((l) => l.latency.p99)),
    ...(singles.length
      ? { single: { p50: median(singles.map((x) => x.s.latency.p50)), p99: median(singles.map((x) => x.s.latency.p99)), ttfbP50: median(singles.map((x) => x.s.ttfb.p50)) } }
      : {}),
    ...(withDirect.length
      ? {
          added: {
            p50: median(withDirect.map((x) => x.s.latency.p50 - x.d.latency.p50)),
            p99: median(withDirect.map((x) => x.s.latency.p99 - x.d.latency.p99)),
            ttfbP50: median(withDirect.map((x) => x.s.ttfb.p50 - x.d.ttfb.p50)),
          },
        }
      : {}),
    errors: all.reduce((n, x) => n + x.errors, 0),
    ...(firstError ? { firstError } : {}),
  };
}

function ratio(reps: Repetition[], other: Role, of: Role = 'gateway', figure: 'rps' | 'cpu' = 'rps'): number | undefined {
  const pick = (role: Role, r: Repetition) => {
    const loaded = r.runs[role]?.loaded;
    return figure === 'rps' ? loaded?.rps : loaded?.cpuPerRequestUs.proxy;
  };
  const values = reps.flatMap((r) => {
    const g = pick(of, r);
    const o = pick(other, r);
    return g !== undefined && o !== undefined && o > 0 ? [g / o] : [];
  });
  return values.length ? median(values) : undefined;
}

function shippedFigures(s: Scenario, reps: Repetition[]): ShippedFigures | undefined {
  const cpuToFloor = ratio(reps, 'floor', 'shipped', 'cpu');
  if (cpuToFloor === undefined) return undefined;
  const quietToShipped = ratio(reps, 'shipped', 'quiet', 'cpu');
  const quietCpuToFloor = ratio(reps, 'floor', 'quiet', 'cpu');
  return {
    cpuToFloor,
    cpuToInProcess: ratio(reps, 'gateway', 'shipped', 'cpu') ?? Number.NaN,
    ...(quietCpuToFloor !== undefined ? { quietCpuToFloor } : {}),
    ...(quietToShipped !== undefined ? { accessLogShare: 1 - quietToShipped } : {}),
    rpsToFloor: ratio(reps, 'floor', 'shipped') ?? Number.NaN,
    ...(typeof s.shippedCpuTarget === 'number' ? { cpuTarget: s.shippedCpuTarget } : {}),
  };
}

const check = (name: string, value: number, target: number, bound: Check['bound']): Check => ({
  name,
  value,
  target,
  bound,
  ok: Number.isFinite(value) && (bound === 'min' ? value >= target : value <= target),
});

export function summarizeScenario(s: Scenario, reps: Repetition[]): ScenarioSummary {
  const roles: Partial<Record<Role, RoleFigures>> = {};
  for (const role of ROLES) {
    const f = roleFigures(reps, role);
    if (f) roles[role] = f;
  }
  const directs = reps.flatMap((r) => (r.direct ? [r.direct] : []));
  const ratioFloor = ratio(reps, 'floor') ?? Number.NaN;
  const ratioPeer = ratio(reps, 'peer');
  const ratioBridge = ratio(reps, 'bridge');
  const checks = [check('throughput vs floor', ratioFloor, s.targetRatio, 'min')];
  // The control plane on vs the config-keys server of the same run (issue 23: within 5%).
  if (s.kind === 'control') checks.push(check('throughput vs config-keys server', ratioBridge ?? Number.NaN, TARGETS.controlRatio, 'min'));
  if (ratioPeer !== undefined) checks.push(check('throughput vs peer', ratioPeer, TARGETS.peerRatio, 'min'));
  const added = roles.gateway?.added;
  if (added) {
    checks.push(check('added p50 ms @1', added.p50, TARGETS.addedP50Ms, 'max'), check('added p99 ms @1', added.p99, TARGETS.addedP99Ms, 'max'));
    if (s.stream) checks.push(check('added TTFB ms @1', added.ttfbP50, TARGETS.addedTtfbMs, 'max'));
  }
  const shipped = shippedFigures(s, reps);
  if (shipped?.cpuTarget !== undefined) checks.push(check('npm start CPU/req vs floor', shipped.cpuToFloor, shipped.cpuTarget, 'max'));
  if (shipped?.accessLogShare !== undefined) checks.push(check('access log share of npm start CPU', shipped.accessLogShare, TARGETS.accessLogShare, 'max'));
  const errors = Object.values(roles).reduce((n, f) => n + f.errors, 0);
  return {
    id: s.id,
    title: s.title,
    kind: s.kind,
    stream: s.stream,
    targetRatio: s.targetRatio,
    roles,
    ...(directs.length
      ? { direct: { p50: median(directs.map((d) => d.latency.p50)), p99: median(directs.map((d) => d.latency.p99)), ttfbP50: median(directs.map((d) => d.ttfb.p50)) } }
      : {}),
    ratioFloor,
    ...(ratioPeer !== undefined ? { ratioPeer } : {}),
    ...(ratioBridge !== undefined ? { ratioBridge } : {}),
    ...(shipped ? { shipped } : {}),
    checks,
    errors,
    pass: errors === 0 && checks.every((c) => c.ok),
  };
}

export interface BenchReport {
  date: string;
  environment: Record<string, unknown>;
  settings: BenchSettings;
  scenarios: ScenarioSummary[];
  skipped: Array<{ id: string; reason: string }>;
  /** Scenarios the peer could not run, with the reason (probe answer). */
  peerSkipped: Array<{ id: string; reason: string }>;
  sweep?: SweepPoint[];
  memory?: MemoryReport;
  repetitions: Record<string, Repetition[]>;
}
