/**
 * modelgate overhead benchmark (`npm run bench`). Starts a fast mock upstream, a bare undici
 * proxy (the floor) and modelgate, each in its own node process on 127.0.0.1, drives them in
 * turn with the same closed-loop load, and prints modelgate/floor ratios.
 * Knobs: BENCH_DURATION_MS, BENCH_WARMUP_MS, BENCH_PREWARM_MS, BENCH_CONNECTIONS, BENCH_LATENCY_MS, BENCH_REPS,
 * BENCH_MAX_REQUESTS, BENCH_SCENARIOS=id,id, BENCH_PROFILE=1|DIR (CPU profile of the gateway),
 * BENCH_WRITE=0 (do not write bench/results.json and bench/RESULTS.md), BENCH_CHILD_RUNTIME=tsx
 * (run the children from the TypeScript sources instead of compiled JS), BENCH_SOURCE_ROOT=DIR
 * (take src/ and adapters/ from DIR, e.g. a `git archive` snapshot of another revision).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChildren } from './build-children.js';
import { startChild, type BenchChild } from './children.js';
import { probe, runLoad, type LoadResult } from './load.js';
import { formatSummary, summarizeProfile } from './profile-summary.js';
import { markdownTable, summarizeScenario, writeReports, type Repetition, type TargetRun } from './report.js';
import { SCENARIOS, type RequestSpec, type Scenario } from './scenarios.js';
import { readSettings } from './settings.js';

const settings = readSettings();
const benchDir = fileURLToPath(new URL('.', import.meta.url));
const repoRoot = join(benchDir, '..');

function git(args: string[]): string {
  try {
    return execFileSync('git', args, { cwd: benchDir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

const load1 = () => loadavg().map((x) => x.toFixed(2)).join(' ');
const fmtRun = (r: LoadResult) =>
  `${r.rps.toFixed(0).padStart(6)} req/s  p50 ${r.latency.p50.toFixed(2)} ms  p99 ${r.latency.p99.toFixed(2)} ms  cpu/req ${(r.cpuPerRequestUs.proxy ?? NaN).toFixed(0)} us  chunks/resp ${r.chunksPerResponse.toFixed(1)}` +
  `${r.errors ? `  ERRORS ${r.errors}: ${r.firstError}` : ''}`;

const parentCpu = () => {
  const { user, system } = process.cpuUsage();
  return Promise.resolve(user + system);
};

async function measure(target: BenchChild, upstream: BenchChild, spec: RequestSpec, s: Scenario): Promise<TargetRun> {
  const origin = target.url;
  const loaded = await runLoad({
    origin,
    spec,
    cpuMeters: { proxy: target.cpuMicros, upstream: upstream.cpuMicros, loadgen: parentCpu },
    connections: settings.connections,
    warmupMs: settings.warmupMs,
    durationMs: settings.durationMs,
    maxRequests: settings.maxRequests,
    complete: s.complete,
  });
  if (settings.latencyMs === 0) return { loaded };
  const single = await runLoad({
    origin,
    spec,
    connections: 1,
    warmupMs: Math.min(500, settings.latencyMs / 4),
    durationMs: settings.latencyMs,
    maxRequests: settings.maxRequests,
    complete: s.complete,
  });
  return { loaded, single };
}

async function main(): Promise<void> {
  const environment: Record<string, unknown> = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAvgStart: load1(),
    commit: `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'src', 'adapters']) ? ' + uncommitted changes in src/adapters' : ''}`,
  };
  const children: BenchChild[] = [];
  const stopAll = async () => {
    // The gateway first: with BENCH_PROFILE it writes its CPU profile on the way out.
    for (const c of [...children].reverse()) await c.stop();
    children.length = 0;
  };
  process.once('SIGINT', () => {
    void stopAll().then(() => process.exit(130));
  });
  // Children run compiled JS on plain node (as `npm start` does) unless BENCH_CHILD_RUNTIME=tsx.
  const buildDir = join(tmpdir(), `modelgate-bench-${process.pid}`);
  const useTsx = process.env.BENCH_CHILD_RUNTIME === 'tsx';
  const sourceRoot = process.env.BENCH_SOURCE_ROOT ?? repoRoot;
  if (useTsx && sourceRoot !== repoRoot) throw new Error('BENCH_SOURCE_ROOT needs the compiled children (unset BENCH_CHILD_RUNTIME)');
  if (!useTsx) console.log(`compiled ${buildChildren(repoRoot, buildDir, sourceRoot)} files from ${sourceRoot} to ${buildDir}`);
  if (sourceRoot !== repoRoot) environment.commit = `src/adapters from ${sourceRoot}`;
  const entry = (name: string) => (useTsx ? join(benchDir, `${name}.ts`) : join(buildDir, 'bench', `${name}.js`));
  environment.childRuntime = useTsx ? 'tsx (TypeScript sources)' : 'plain node (compiled JS)';
  try {
    const upstream = await startChild('mock-upstream', entry('mock-upstream'), {});
    children.push(upstream);
    const floor = await startChild('floor-proxy', entry('floor-proxy'), { BENCH_UPSTREAM: upstream.url });
    children.push(floor);
    const profileArgs = settings.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`, '--cpu-prof-interval=250'] : [];
    if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
    const gateway = await startChild('modelgate', entry('gateway-server'), { BENCH_UPSTREAM: upstream.url }, profileArgs);
    children.push(gateway);
    console.log(`mock upstream ${upstream.url} (pid ${upstream.pid}), floor ${floor.url} (pid ${floor.pid}), modelgate ${gateway.url} (pid ${gateway.pid})`);
    console.log(
      `${environment.cpus} CPUs, node ${environment.node}, load avg ${environment.loadAvgStart}; ${settings.connections} connections, ` +
        `${settings.warmupMs}+${settings.durationMs} ms per run, ${settings.latencyMs} ms at 1 connection, ${settings.reps} repetitions`,
    );

    const wanted = settings.scenarios.length ? SCENARIOS.filter((s) => settings.scenarios.includes(s.id)) : SCENARIOS;
    const unknown = settings.scenarios.filter((id) => !SCENARIOS.some((s) => s.id === id));
    if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
    const runnable: Scenario[] = [];
    const skipped: Array<{ id: string; reason: string }> = [];
    for (const s of wanted) {
      const f = await probe(floor.url, s.floor, s.complete);
      if (!f.ok) throw new Error(`the floor fails ${s.id}: ${f.detail}`);
      const g = await probe(gateway.url, s.gateway, s.complete);
      if (g.ok) runnable.push(s);
      else if (s.kind === 'translated') {
        const reason = `not available yet on this build (probe: ${g.detail.replace(/\s+/g, ' ')})`;
        console.log(`scenario ${s.id}: ${reason}`);
        skipped.push({ id: s.id, reason });
      } else throw new Error(`modelgate fails the pass-through scenario ${s.id}: ${g.detail}`);
    }

    // JIT warmup of every code path in every process before anything is measured.
    if (settings.prewarmMs > 0) {
      for (const s of runnable) {
        for (const [target, spec] of [[floor, s.floor], [gateway, s.gateway]] as const) {
          await runLoad({ origin: target.url, spec, connections: settings.connections, warmupMs: 0, durationMs: settings.prewarmMs, maxRequests: settings.maxRequests, complete: s.complete });
        }
      }
      console.log(`prewarmed ${runnable.length} scenario(s) for ${settings.prewarmMs} ms each on both targets`);
    }
    const reps = new Map<string, Repetition[]>(runnable.map((s) => [s.id, []]));
    for (let rep = 0; rep < settings.reps; rep++) {
      for (const s of runnable) {
        const order: Array<'floor' | 'gateway'> = rep % 2 === 0 ? ['floor', 'gateway'] : ['gateway', 'floor'];
        const runs: Partial<Repetition> = {};
        for (const who of order) {
          const run = who === 'floor' ? await measure(floor, upstream, s.floor, s) : await measure(gateway, upstream, s.gateway, s);
          runs[who] = run;
          console.log(`[rep ${rep + 1}/${settings.reps}] ${s.id.padEnd(28)} ${who.padEnd(8)} ${fmtRun(run.loaded)}${run.single ? `  | 1 conn p50 ${run.single.latency.p50.toFixed(3)} ms p99 ${run.single.latency.p99.toFixed(3)} ms` : ''}`);
        }
        reps.get(s.id)?.push(runs as Repetition);
      }
    }
    environment.loadAvgEnd = load1();
    await stopAll();

    const summaries = runnable.map((s) => summarizeScenario(s, reps.get(s.id) ?? []));
    console.log(`\n${markdownTable(summaries, settings)}\n`);
    for (const s of skipped) console.log(`not run: ${s.id}: ${s.reason}`);
    if (settings.writeResults) {
      const report = { date: new Date().toISOString(), environment, settings, scenarios: summaries, skipped, repetitions: Object.fromEntries(reps) };
      writeReports(report, join(benchDir, 'results.json'), join(benchDir, 'RESULTS.md'));
      console.log('wrote bench/results.json and bench/RESULTS.md');
    }
    if (settings.profileDir) printNewestProfile(settings.profileDir, gateway.pid);
  } finally {
    await stopAll();
    rmSync(buildDir, { recursive: true, force: true });
  }
}

function printNewestProfile(dir: string, pid: number): void {
  const files = readdirSync(dir)
    .filter((f) => f.endsWith('.cpuprofile') && f.includes(`.${pid}.0.`))
    .map((f) => join(dir, f))
    .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  const file = files[0];
  if (!file) {
    console.log(`no CPU profile for pid ${pid} in ${dir}`);
    return;
  }
  console.log(`\nCPU profile of the gateway: ${file}\n`);
  console.log(formatSummary(summarizeProfile(JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof summarizeProfile>[0])));
}

main().catch((err: unknown) => {
  console.error(`bench failed: ${(err as Error).stack ?? String(err)}`);
  process.exitCode = 1;
});
