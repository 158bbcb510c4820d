/** Aggregation across repetitions, the markdown table, results.json and RESULTS.md. */
import { writeFileSync } from 'node:fs';
import type { LoadResult } from './load.js';
import type { Scenario } from './scenarios.js';
import type { BenchSettings } from './settings.js';
import { median } from './stats.js';

export interface TargetRun {
  /** Throughput phase at `connections` connections. */
  loaded: LoadResult;
  /** One connection, one request at a time: the latency a single caller sees. */
  single?: LoadResult;
}

export interface Repetition {
  floor: TargetRun;
  gateway: TargetRun;
}

export interface ScenarioSummary {
  id: string;
  title: string;
  kind: Scenario['kind'];
  targetRatio: number;
  targetAddedP50Ms?: number;
  floorRps: number;
  gatewayRps: number;
  /** Median over repetitions of gateway rps / floor rps of the same repetition. */
  ratio: number;
  loaded: { floorP50: number; gatewayP50: number; floorP99: number; gatewayP99: number; addedP50: number; addedP99: number };
  single?: { floorP50: number; gatewayP50: number; floorP99: number; gatewayP99: number; addedP50: number; addedP99: number };
  /** CPU microseconds per request of the proxy process under test (floor / gateway), medians. */
  cpu: { floorUs: number; gatewayUs: number; upstreamUs: number; loadgenUs: number };
  errors: number;
  firstError?: string;
  pass: boolean;
}

function latencyBlock(reps: Repetition[], pick: (r: TargetRun) => LoadResult | undefined): ScenarioSummary['loaded'] | undefined {
  const rows = reps.flatMap((r) => {
    const f = pick(r.floor);
    const g = pick(r.gateway);
    return f && g ? [{ f, g }] : [];
  });
  if (rows.length === 0) return undefined;
  return {
    floorP50: median(rows.map((x) => x.f.latency.p50)),
    gatewayP50: median(rows.map((x) => x.g.latency.p50)),
    floorP99: median(rows.map((x) => x.f.latency.p99)),
    gatewayP99: median(rows.map((x) => x.g.latency.p99)),
    addedP50: median(rows.map((x) => x.g.latency.p50 - x.f.latency.p50)),
    addedP99: median(rows.map((x) => x.g.latency.p99 - x.f.latency.p99)),
  };
}

export function summarizeScenario(s: Scenario, reps: Repetition[]): ScenarioSummary {
  const loaded = latencyBlock(reps, (r) => r.loaded) as ScenarioSummary['loaded'];
  const single = latencyBlock(reps, (r) => r.single);
  const all = reps.flatMap((r) => [r.floor.loaded, r.floor.single, r.gateway.loaded, r.gateway.single]).filter((x): x is LoadResult => x !== undefined);
  const errors = all.reduce((n, x) => n + x.errors, 0);
  const firstError = all.find((x) => x.firstError)?.firstError;
  const ratio = median(reps.map((r) => r.gateway.loaded.rps / r.floor.loaded.rps));
  const latencyOk = s.targetAddedP50Ms === undefined || (single ?? loaded).addedP50 < s.targetAddedP50Ms;
  return {
    id: s.id,
    title: s.title,
    kind: s.kind,
    targetRatio: s.targetRatio,
    ...(s.targetAddedP50Ms !== undefined ? { targetAddedP50Ms: s.targetAddedP50Ms } : {}),
    floorRps: median(reps.map((r) => r.floor.loaded.rps)),
    gatewayRps: median(reps.map((r) => r.gateway.loaded.rps)),
    ratio,
    loaded,
    cpu: {
      floorUs: median(reps.map((r) => r.floor.loaded.cpuPerRequestUs.proxy ?? Number.NaN)),
      gatewayUs: median(reps.map((r) => r.gateway.loaded.cpuPerRequestUs.proxy ?? Number.NaN)),
      upstreamUs: median(reps.flatMap((r) => [r.floor.loaded.cpuPerRequestUs.upstream ?? Number.NaN, r.gateway.loaded.cpuPerRequestUs.upstream ?? Number.NaN])),
      loadgenUs: median(reps.flatMap((r) => [r.floor.loaded.cpuPerRequestUs.loadgen ?? Number.NaN, r.gateway.loaded.cpuPerRequestUs.loadgen ?? Number.NaN])),
    },
    ...(single ? { single } : {}),
    errors,
    ...(firstError ? { firstError } : {}),
    pass: errors === 0 && ratio >= s.targetRatio && latencyOk,
  };
}

const ms = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : '-');
const signed = (x: number) => (Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)}` : '-');

export function markdownTable(rows: ScenarioSummary[], settings: BenchSettings): string {
  const c = settings.connections;
  const lines = [
    `| scenario | floor req/s | modelgate req/s | modelgate/floor (target) | p50 ms floor / mg @${c} | p99 ms floor / mg @${c} | added p50 / p99 ms @${c} | added p50 / p99 ms @1 | CPU us/req floor / mg | verdict |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const single = r.single ? `${signed(r.single.addedP50)} / ${signed(r.single.addedP99)}` : '-';
    const target = `${r.targetRatio}x${r.targetAddedP50Ms !== undefined ? `, +p50 < ${r.targetAddedP50Ms} ms` : ''}`;
    lines.push(
      `| ${r.id} | ${r.floorRps.toFixed(0)} | ${r.gatewayRps.toFixed(0)} | **${r.ratio.toFixed(2)}x** (${target}) | ${ms(r.loaded.floorP50)} / ${ms(r.loaded.gatewayP50)} | ${ms(r.loaded.floorP99)} / ${ms(r.loaded.gatewayP99)} | ${signed(r.loaded.addedP50)} / ${signed(r.loaded.addedP99)} | ${single} | ${r.cpu.floorUs.toFixed(0)} / ${r.cpu.gatewayUs.toFixed(0)} | ${r.pass ? 'meets target' : r.errors ? `ERRORS (${r.errors})` : 'below target'} |`,
    );
  }
  return lines.join('\n');
}

export interface BenchReport {
  date: string;
  environment: Record<string, unknown>;
  settings: BenchSettings;
  scenarios: ScenarioSummary[];
  skipped: Array<{ id: string; reason: string }>;
  repetitions: Record<string, Repetition[]>;
}

export function writeReports(report: BenchReport, jsonPath: string, mdPath: string): void {
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  const s = report.settings;
  const env = report.environment;
  const md = [
    '# modelgate overhead benchmark — last results',
    '',
    `Written by \`npm run bench\` on ${report.date} (commit ${String(env.commit)}). Raw numbers: \`bench/results.json\`.`,
    '',
    `Machine: ${String(env.cpus)} x ${String(env.cpuModel)}, node ${String(env.node)}, load average at start ${String(env.loadAvgStart)} / end ${String(env.loadAvgEnd)}.`,
    `Settings: ${s.connections} connections, ${s.warmupMs} ms warmup + ${s.durationMs} ms measured per run, then ${s.latencyMs} ms at 1 connection; ${s.reps} repetitions, floor and modelgate interleaved (order alternating); medians across repetitions; every scenario prewarmed ${s.prewarmMs} ms on both targets first. Children: ${String(env.childRuntime)}.`,
    '',
    markdownTable(report.scenarios, s),
    '',
    ...(report.skipped.length ? ['Not run:', '', ...report.skipped.map((k) => `- ${k.id}: ${k.reason}`), ''] : []),
    'How to read it:',
    '',
    '- Mock upstream, floor proxy and modelgate each run in their own node process on 127.0.0.1; the load comes from the parent (undici Pool, closed loop).',
    '- floor = a bare node:http + undici.request proxy that pipes bytes; for translated scenarios it forwards the same client request to the mock endpoint of the client\'s own protocol, so the ratio is the cost of translation plus the gateway.',
    '- modelgate/floor = median over repetitions of the per-repetition throughput ratio. "added" = modelgate minus floor latency of the same repetition (ms).',
    '- The @1 columns come from a separate phase with a single connection (no queueing): the per-request overhead a lone caller sees; the p50 target applies there.',
    '- CPU us/req = CPU time (user+system) of the proxy process under test per completed request in the measured window; it is the least noisy overhead figure on a shared machine. Per request the mock upstream used about ' +
      `${median(report.scenarios.map((x) => x.cpu.upstreamUs)).toFixed(0)} us and the load generator about ${median(report.scenarios.map((x) => x.cpu.loadgenUs)).toFixed(0)} us (medians over scenarios).`,
    '- The machine has 2 shared cores running the load generator, the mock, the floor and the gateway: absolute numbers are noisy, ratios less so (they still move by about ±0.1 from one run to the next); judge a change by CPU us/req first.',
    '- Profile the gateway with `BENCH_PROFILE=1 npm run bench` (see bench/README.md).',
    '',
  ].join('\n');
  writeFileSync(mdPath, md);
}
