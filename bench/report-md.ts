/** The printed tables and bench/RESULTS.md + bench/results.json. */
import { writeFileSync } from 'node:fs';
import type { MemoryReport } from './memory.js';
import type { BenchReport, Check, RoleFigures, ScenarioSummary } from './report.js';
import { TARGETS, type BenchSettings } from './settings.js';
import type { SweepPoint } from './sweep.js';

const n0 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(0) : '-');
const n1 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(1) : '-');
const n2 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(2) : '-');
const signed = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${x >= 0 ? '+' : ''}${x.toFixed(2)}` : '-');
const pct = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${(x * 100).toFixed(0)}%` : '-');
const ratio = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? `${x.toFixed(2)}x` : '-');

function failed(c: Check): string {
  const isRatio = c.name.startsWith('throughput') || c.name.startsWith('npm start');
  const isShare = c.name.includes('share');
  const v = isRatio ? ratio(c.value) : isShare ? pct(c.value) : n2(c.value);
  const t = isRatio ? `${c.target}x` : isShare ? pct(c.target) : String(c.target);
  return `${c.name} ${v} ${c.bound === 'min' ? '<' : '>'} ${t}`;
}

function verdict(r: ScenarioSummary): string {
  if (r.errors) return `ERRORS (${r.errors})`;
  const misses = r.checks.filter((c) => !c.ok);
  return misses.length ? `misses: ${misses.map(failed).join('; ')}` : 'meets targets';
}

/** "floor / peer / modelgate" of one figure. */
function trio(r: ScenarioSummary, pick: (f: RoleFigures) => number | undefined, fmt: (x: number | undefined) => string): string {
  const get = (role: 'floor' | 'peer' | 'gateway') => {
    const f = r.roles[role];
    return f ? fmt(pick(f)) : '-';
  };
  return `${get('floor')} / ${get('peer')} / **${get('gateway')}**`;
}

export function mainTable(rows: ScenarioSummary[], settings: BenchSettings): string {
  const lines = [
    `| scenario | floor req/s | peer req/s | modelgate req/s | modelgate/floor (target) | modelgate/peer (target ${TARGETS.peerRatio}x) | host or control plane / node bridge with config keys | CPU us/req floor / peer / mg | added p50 ms @1 floor / peer / mg (target ${TARGETS.addedP50Ms}) | added p99 ms @1 (target ${TARGETS.addedP99Ms}) | added TTFB ms @1, SSE (target ${TARGETS.addedTtfbMs}) | verdict |`,
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
  ];
  for (const r of rows) {
    const bridge = r.roles.bridge ? `${ratio(r.ratioBridge)} (${n0(r.roles.bridge.rps)} req/s)` : '-';
    lines.push(
      `| ${r.id} | ${n0(r.roles.floor?.rps)} | ${n0(r.roles.peer?.rps)} | ${n0(r.roles.gateway?.rps)} | **${ratio(r.ratioFloor)}** (${r.targetRatio}x) | ${r.ratioPeer !== undefined ? `**${ratio(r.ratioPeer)}**` : '-'} | ${bridge} | ` +
        `${trio(r, (f) => f.cpuUs, n0)} | ${trio(r, (f) => f.added?.p50, signed)} | ${trio(r, (f) => f.added?.p99, signed)} | ${r.stream ? trio(r, (f) => f.added?.ttfbP50, signed) : '-'} | ${verdict(r)} |`,
    );
  }
  return `Throughput at ${settings.connections} connections; latency at 1 connection, minus calling the mock directly.\n\n${lines.join('\n')}`;
}

/** The server as `npm start` runs it beside the in-process child and the floor (issue 21). */
export function shippedTable(rows: ScenarioSummary[]): string {
  const withShipped = rows.filter((r) => r.shipped);
  if (!withShipped.length) return '';
  const lines = [
    '| scenario | CPU us/req floor / in-process / npm start / npm start --quiet | npm start CPU/floor (target) | npm start / in-process CPU | --quiet CPU/floor | access log share of CPU (target 5%) | req/s floor / npm start | npm start/floor req/s |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const r of withShipped) {
    const x = r.shipped;
    if (!x) continue;
    const cpu = (role: 'floor' | 'gateway' | 'shipped' | 'quiet') => n0(r.roles[role]?.cpuUs);
    lines.push(
      `| ${r.id} | ${cpu('floor')} / ${cpu('gateway')} / **${cpu('shipped')}** / ${cpu('quiet')} | **${ratio(x.cpuToFloor)}**${x.cpuTarget !== undefined ? ` (<= ${x.cpuTarget}x)` : ''} | ${ratio(x.cpuToInProcess)} | ${ratio(x.quietCpuToFloor)} | ${pct(x.accessLogShare)} | ` +
        `${n0(r.roles.floor?.rps)} / ${n0(r.roles.shipped?.rps)} | ${ratio(x.rpsToFloor)} |`,
    );
  }
  return [
    'The server as it ships: `npm start -- --config FILE` (npm, its shell and node: CPU of the whole process group), the access log written to a file, the embedded SQLite control plane (usage ledger) on; "in-process" is the bench child (createGateway + serve(), no access log, no control plane). Ratios are medians of per-repetition ratios.',
    '',
    ...lines,
  ].join('\n');
}

/** The control-plane rows in words: both servers' figures and their ratio (issue 23 asks for both). */
export function controlLines(rows: ScenarioSummary[]): string {
  return rows
    .filter((r) => r.kind === 'control')
    .map((r) => {
      const on = r.roles.gateway;
      const off = r.roles.bridge;
      return (
        `${r.id}: config keys ${n0(off?.rps)} req/s (${n0(off?.cpuUs)} us CPU/req), control plane on ${n0(on?.rps)} req/s (${n0(on?.cpuUs)} us CPU/req); ` +
        `control/config ${ratio(r.ratioBridge)} (target >= ${TARGETS.controlRatio}x)`
      );
    })
    .join('\n');
}

export function conditionsTable(rows: ScenarioSummary[]): string {
  const lines = [
    '| scenario | floor: its core / load core | peer: its core / load core | modelgate: its core / load core | mock direct @1 p50 / p99 / TTFB ms |',
    '|---|---:|---:|---:|---:|',
  ];
  const cell = (f: RoleFigures | undefined) => (f ? `${pct(f.coreBusy)} / ${pct(f.loadCoreBusy)}` : '-');
  for (const r of rows) {
    lines.push(`| ${r.id} | ${cell(r.roles.floor)} | ${cell(r.roles.peer)} | ${cell(r.roles.gateway)} | ${n2(r.direct?.p50)} / ${n2(r.direct?.p99)} / ${n2(r.direct?.ttfbP50)} |`);
  }
  return lines.join('\n');
}

export function sweepTable(points: SweepPoint[]): string {
  const connections = [...new Set(points.map((p) => p.connections))].sort((a, b) => a - b);
  const at = (role: SweepPoint['role'], c: number) => points.find((p) => p.role === role && p.connections === c);
  const lines = [
    '| connections | floor req/s | peer req/s | modelgate req/s | modelgate/floor | modelgate/peer | p99 ms floor / peer / mg | CPU us/req floor / peer / mg |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const c of connections) {
    const f = at('floor', c);
    const p = at('peer', c);
    const g = at('gateway', c);
    const div = (a?: SweepPoint, b?: SweepPoint) => (a && b && b.rps > 0 ? a.rps / b.rps : undefined);
    lines.push(
      `| ${c} | ${n0(f?.rps)} | ${n0(p?.rps)} | ${n0(g?.rps)} | ${ratio(div(g, f))} | ${ratio(div(g, p))} | ${n2(f?.p99)} / ${n2(p?.p99)} / ${n2(g?.p99)} | ${n0(f?.cpuUs)} / ${n0(p?.cpuUs)} / ${n0(g?.cpuUs)} |`,
    );
  }
  return lines.join('\n');
}

export function memoryTable(m: MemoryReport): string {
  const lines = [
    `Open streams (upstream sends a chunk every ${m.paceMs} ms for ${(m.holdMs / 1000).toFixed(0)} s; fresh process per target):`,
    '',
    `| target | streams open | RSS idle MB | RSS with streams open MB | above idle MB (modelgate target ${TARGETS.streamsMemoryMb}) | completed / errors |`,
    '|---|---:|---:|---:|---:|---|',
  ];
  const label = { floor: 'floor', peer: 'peer (Portkey)', gateway: 'modelgate' } as const;
  for (const s of m.streams) {
    const open = `${s.opened} / ${s.streams}${s.launched < s.streams ? ` (only ${s.launched} launched: the ramp ran out of time)` : ''}`;
    lines.push(`| ${label[s.role]} | ${open} | ${n1(s.idleMb)} | ${n1(s.openMb)} | ${s.role === 'gateway' ? `**${n1(s.addedMb)}**` : n1(s.addedMb)} | ${s.completed} / ${s.errors}${s.firstError ? ` (${s.firstError.slice(0, 80)})` : ''} |`);
  }
  if (m.soak) {
    const s = m.soak;
    lines.push(
      '',
      `Soak (modelgate, ${(s.durationMs / 1000).toFixed(0)} s of closed-loop load over ${s.scenarios.join(", ")} at ${s.connections} connections in all, first ${(s.warmupMs / 1000).toFixed(0)} s warm-up): ` +
        `${s.requests} requests, ${s.errors} errors; RSS ${n1(s.startMb)} MB at the start, ${n1(s.endMb)} MB at the end (**${signed(s.driftPct)}%**, target within ±${TARGETS.soakDriftPct}%), peak ${n1(s.peakMb)} MB.`,
    );
  } else lines.push('', 'Soak: not run (BENCH_SOAK_MS=0).');
  for (const c of m.checks) lines.push(`- ${c.name}: ${n1(c.value)} (target ${c.bound === 'max' ? '<=' : '>='} ${c.target}): ${c.ok ? 'meets target' : 'MISSES target'}`);
  return lines.join('\n');
}

function settingsLine(s: BenchSettings, env: Record<string, unknown>): string {
  return (
    `Settings: ${s.connections} connections, ${s.warmupMs} ms warm-up + ${s.durationMs} ms measured per run, then ${s.latencyMs} ms at 1 connection (and the same straight to the mock); ` +
    `${s.reps} repetition(s), targets interleaved (order rotating, the two npm start copies swapped every other repetition); medians across repetitions; every scenario prewarmed ${s.prewarmMs} ms per target first. Children: ${String(env.childRuntime)}.`
  );
}

export function writeReports(report: BenchReport, jsonPath: string, mdPath: string): void {
  writeFileSync(jsonPath, `${JSON.stringify(report, null, 2)}\n`);
  const s = report.settings;
  const env = report.environment;
  const md = [
    '# modelgate benchmark — last results',
    '',
    `Written by \`npm run bench\` on ${report.date} (commit ${String(env.commit)}). Raw numbers: \`bench/results.json\`.`,
    '',
    `Machine: ${String(env.cpus)} x ${String(env.cpuModel)}, node ${String(env.node)}, load average at start ${String(env.loadAvgStart)} / end ${String(env.loadAvgEnd)}.`,
    `**${String(env.pinning)}**.`,
    `Peer: ${String(env.peer)}.`,
    settingsLine(s, env),
    '',
    mainTable(report.scenarios, s),
    ...(report.scenarios.some((r) => r.kind === 'control') ? ['', controlLines(report.scenarios)] : []),
    '',
    ...(report.scenarios.some((r) => r.shipped) ? ['## The server as `npm start` runs it', '', shippedTable(report.scenarios), ''] : []),
    ...(report.skipped.length ? ['Not run:', '', ...report.skipped.map((k) => `- ${k.id}: ${k.reason}`), ''] : []),
    ...(report.peerSkipped.length ? ['The peer does not run:', '', ...report.peerSkipped.map((k) => `- ${k.id}: ${k.reason}`), ''] : []),
    ...(report.sweep?.length
      ? [`## Connection sweep (openai-sync, ${s.sweepMs} ms per point, ${s.sweepReps} repetition(s), medians)`, '', '![throughput and p99 against connections](plot.png)', '', sweepTable(report.sweep), '']
      : []),
    ...(report.memory ? ['## Memory', '', memoryTable(report.memory), ''] : []),
    '## Run conditions (share of one core used in the measured window)',
    '',
    conditionsTable(report.scenarios),
    '',
    '## How to read it',
    '',
    '- floor = a bare node:http + undici proxy that pipes bytes (for translated scenarios it forwards the client request to the mock endpoint of the client\'s own protocol, so the ratio is the cost of translation plus the gateway); peer = Portkey\'s gateway from npm; modelgate = the standalone server\'s node:http bridge, or in host-* rows the named host (compared with the node bridge in the same repetition), or in control-* rows the server with its control plane on (SQLite store, the key from it, every request a ledger row), compared with the config-keys server in the same repetition (target >= ' + String(TARGETS.controlRatio) + 'x).',
    '- Per core: the proxy under test is pinned to one core, the load generator and the mock to the other. If the load core is near 100% in a run (see Run conditions), that run is limited by the load side, not by the proxy, and its req/s understates the proxy. If neither core is near 100% in a saturated run, other processes were using the cores (a shared machine) and the run is not a valid per-core figure.',
    '- Ratios = medians over repetitions of per-repetition ratios. "added" = latency at 1 connection minus calling the mock directly (same repetition); TTFB = time to the first body byte.',
    '- CPU us/req = CPU time (user+system, all threads) of the process under test per completed request: the least noisy figure on a shared machine.',
    '- Profile the gateway with `BENCH_PROFILE=1 npm run bench` (see bench/README.md).',
    '',
  ].join('\n');
  writeFileSync(mdPath, md);
}
