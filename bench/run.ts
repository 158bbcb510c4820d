/**
 * modelgate benchmark (`npm run bench`), per core. Starts a fast mock upstream, a bare undici proxy
 * (the floor), the peer gateway (Portkey, when bench/peer/ is installed), modelgate on the node:http
 * bridge and on Express, Koa and Bun.serve, each in its own process on 127.0.0.1, the proxies pinned
 * to one core and the load generator (this process) + mock to another. It drives them in turn with
 * the same closed-loop load (interleaved repetitions, medians), runs a connection sweep (plot.png)
 * and the memory scenarios, and prints one table of ratios against the floor and the peer.
 * Knobs: see bench/README.md (BENCH_* environment variables, read in settings.ts).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildChildren } from './build-children.js';
import { bunBinary, nodeFlags, type BenchChild } from './children.js';
import { probe, runLoad } from './load.js';
import { fmtRun, measureTarget, singlePhase } from './measure.js';
import { runMemory, type MemoryReport, type MemoryTarget } from './memory.js';
import { peerRequest, peerStatus } from './peer.js';
import { describePinning, detectPinning, pinSelf } from './pinning.js';
import { writeSweepPlot } from './plot.js';
import { formatSummary, summarizeProfile } from './profile-summary.js';
import { summarizeScenario, type BenchReport, type Repetition, type Role } from './report.js';
import { controlLines, mainTable, memoryTable, shippedTable, sweepTable, writeReports } from './report-md.js';
import { OPENAI_HEADERS, openAIBody, openAIStreamDone, SCENARIOS, type RequestSpec, type Scenario } from './scenarios.js';
import { MODEL_PACED, readSettings, UPSTREAM_PACED_MODEL } from './settings.js';
import { runSweep, type SweepPoint, type SweepTarget } from './sweep.js';
import { launcher, type Launcher } from './targets.js';

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

/** One scenario ready to run: which process and request serve each role. */
interface Plan {
  scenario: Scenario;
  roles: Array<{ role: Role; child: BenchChild; spec: RequestSpec }>;
}

async function planScenarios(
  wanted: Scenario[],
  c: { upstream: BenchChild; floor: BenchChild; gateway: BenchChild; control?: BenchChild; peer?: BenchChild; shipped?: BenchChild; quiet?: BenchChild; hosts: Partial<Record<string, BenchChild>> },
  skipped: BenchReport['skipped'],
  peerSkipped: BenchReport['peerSkipped'],
): Promise<Plan[]> {
  const plans: Plan[] = [];
  for (const s of wanted) {
    const d = await probe(c.upstream.url, s.direct, s.complete);
    if (!d.ok) throw new Error(`the mock fails ${s.id} called directly: ${d.detail}`);
    const f = await probe(c.floor.url, s.floor, s.complete);
    if (!f.ok) throw new Error(`the floor fails ${s.id}: ${f.detail}`);
    const roles: Plan['roles'] = [{ role: 'floor', child: c.floor, spec: s.floor }];
    if (s.host) {
      const host = c.hosts[s.host];
      if (!host) {
        skipped.push({ id: s.id, reason: s.host === 'bun' ? 'no bun binary (node_modules/.bin/bun)' : `host ${s.host} did not start` });
        continue;
      }
      const h = await probe(host.url, s.gateway, s.complete);
      if (!h.ok) throw new Error(`modelgate on ${s.host} fails ${s.id}: ${h.detail}`);
      roles.push({ role: 'gateway', child: host, spec: s.gateway }, { role: 'bridge', child: c.gateway, spec: s.gateway });
    } else if (s.kind === 'control') {
      // The same request with the store key's secret, against the config-keys server ("bridge" in the report) with the config key.
      const control = c.control;
      if (!control?.platformKey) {
        skipped.push({ id: s.id, reason: 'the control-plane server did not start' });
        continue;
      }
      const spec: RequestSpec = { ...s.gateway, headers: { ...s.gateway.headers, authorization: `Bearer ${control.platformKey}` } };
      const g = await probe(control.url, spec, s.complete);
      if (!g.ok) throw new Error(`modelgate with its control plane fails ${s.id}: ${g.detail}`);
      roles.push({ role: 'gateway', child: control, spec }, { role: 'bridge', child: c.gateway, spec: s.gateway });
    } else {
      const g = await probe(c.gateway.url, s.gateway, s.complete);
      if (!g.ok && s.kind === 'passthrough') throw new Error(`modelgate fails the pass-through scenario ${s.id}: ${g.detail}`);
      if (!g.ok) {
        skipped.push({ id: s.id, reason: `modelgate cannot run it on this build (probe: ${g.detail.replace(/\s+/g, ' ')})` });
        continue;
      }
      roles.push({ role: 'gateway', child: c.gateway, spec: s.gateway });
      if (s.shippedCpuTarget !== false) {
        for (const [role, child] of [['shipped', c.shipped], ['quiet', c.quiet]] as const) {
          if (!child) continue;
          const r = await probe(child.url, s.gateway, s.complete);
          if (!r.ok) throw new Error(`${child.name} fails ${s.id}: ${r.detail}`);
          roles.push({ role, child, spec: s.gateway });
        }
      }
    }
    if (s.peer && c.peer) {
      const spec = peerRequest(s.peer, c.upstream.url);
      const p = await probe(c.peer.url, spec, s.complete);
      if (p.ok) roles.push({ role: 'peer', child: c.peer, spec });
      else peerSkipped.push({ id: s.id, reason: p.detail.replace(/\s+/g, ' ').slice(0, 200) });
    }
    plans.push({ scenario: s, roles });
  }
  return plans;
}

/** Swaps the places of two roles in `order` (when both are there). */
function swapRoles(order: Array<Plan['roles'][number]>, a: string, b: string): void {
  const i = order.findIndex((r) => r.role === a);
  const j = order.findIndex((r) => r.role === b);
  if (i < 0 || j < 0) return;
  [order[i], order[j]] = [order[j] as Plan['roles'][number], order[i] as Plan['roles'][number]];
}

async function repetitions(plans: Plan[], upstream: BenchChild): Promise<Map<string, Repetition[]>> {
  if (settings.prewarmMs > 0) {
    for (const { scenario, roles } of plans) {
      for (const r of roles) await runLoad({ origin: r.child.url, spec: r.spec, connections: settings.connections, warmupMs: 0, durationMs: settings.prewarmMs, maxRequests: settings.maxRequests, complete: scenario.complete });
    }
    console.log(`prewarmed ${plans.length} scenario(s) for ${settings.prewarmMs} ms per target`);
  }
  const reps = new Map<string, Repetition[]>(plans.map((p) => [p.scenario.id, []]));
  for (let rep = 0; rep < settings.reps; rep++) {
    for (const { scenario: s, roles } of plans) {
      const rep1: Repetition = { runs: {} };
      // Rotate the order per repetition so no target always runs first (or last).
      const order = roles.map((_, i) => roles[(i + rep) % roles.length] as Plan['roles'][number]);
      // The two npm start copies sit next to each other in every rotation; one of them always ran
      // first, and two identical copies (both --quiet) then measured 8% apart. Every other
      // repetition swaps them, so the access log's share is not that order's.
      if (rep % 2 === 1) swapRoles(order, 'shipped', 'quiet');
      for (const r of order) {
        const run = await measureTarget(r.child, upstream, r.spec, s.complete, settings);
        rep1.runs[r.role] = run;
        console.log(`[rep ${rep + 1}/${settings.reps}] ${s.id.padEnd(27)} ${r.role.padEnd(7)} ${fmtRun(run.loaded)}${run.single ? `  | 1 conn p50 ${run.single.latency.p50.toFixed(3)} ms ttfb ${run.single.ttfb.p50.toFixed(3)} ms` : ''}`);
      }
      if (settings.latencyMs > 0) rep1.direct = await singlePhase(upstream.url, s.direct, s.complete, settings);
      reps.get(s.id)?.push(rep1);
    }
  }
  return reps;
}

async function memoryPhase(launch: Launcher, upstream: BenchChild, withPeer: boolean): Promise<MemoryReport> {
  const path = '/v1/chat/completions';
  const paced = (model: string, headers: Record<string, string>): RequestSpec => ({ path, headers, body: openAIBody(model, true) });
  const streaming = SCENARIOS.find((s) => s.id === 'openai-stream') as Scenario;
  const big = { BENCH_UPSTREAM_CONNECTIONS: String(settings.streams + 64) };
  const targets: MemoryTarget[] = [
    { role: 'floor', start: () => launch.floor(upstream, big), paced: paced(UPSTREAM_PACED_MODEL, OPENAI_HEADERS), warm: streaming.floor, warmComplete: openAIStreamDone },
    { role: 'gateway', start: () => launch.gateway(upstream, 'node', big), paced: paced(MODEL_PACED, OPENAI_HEADERS), warm: streaming.gateway, warmComplete: openAIStreamDone },
  ];
  if (withPeer && streaming.peer) {
    const peerPaced = peerRequest({ provider: 'openai', spec: { ...streaming.peer.spec, body: openAIBody(UPSTREAM_PACED_MODEL, true) } }, upstream.url);
    targets.splice(1, 0, { role: 'peer', start: () => launch.peer(), paced: peerPaced, warm: peerRequest(streaming.peer, upstream.url), warmComplete: openAIStreamDone });
  }
  // Every protocol scenario modelgate can run (memory.ts probes them on the soak's own process).
  const soakLoads = SCENARIOS.filter((s) => s.kind !== 'host' && s.kind !== 'control').map((s) => ({ id: s.id, spec: s.gateway, complete: s.complete }));
  return runMemory(targets, () => launch.gateway(upstream, 'node', big), soakLoads, openAIStreamDone, settings);
}

async function main(): Promise<void> {
  const pinning = detectPinning(settings);
  pinSelf(pinning);
  const peer = peerStatus(benchDir, settings.peer);
  const environment: Record<string, unknown> = {
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model ?? 'unknown',
    loadAvgStart: load1(),
    commit: `${git(['rev-parse', '--short', 'HEAD'])}${git(['status', '--porcelain', '--', 'src', 'adapters']) ? ' + uncommitted changes in src/adapters' : ''}`,
    pinning: describePinning(pinning),
    peer: peer.installed
      ? `Portkey gateway ${Object.entries(peer.versions).map(([k, v]) => `${k} ${v}`).join(', ')}${peer.warnings.length ? ` (WARNING: ${peer.warnings.join('; ')})` : ''}`
      : `not run: ${peer.reason}`,
  };
  console.log(String(environment.pinning));
  console.log(`peer: ${String(environment.peer)}`);
  const children: BenchChild[] = [];
  const stopAll = async (keep: BenchChild[] = []) => {
    // The gateway first: with BENCH_PROFILE it writes its CPU profile on the way out.
    for (const c of [...children].reverse()) if (!keep.includes(c)) await c.stop();
    children.splice(0, children.length, ...keep);
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
  environment.childRuntime = `${useTsx ? 'tsx (TypeScript sources)' : 'plain node (compiled JS)'}${nodeFlags().length ? `, every node child with ${nodeFlags().join(' ')}` : ''}`;
  const launch = launcher({ settings, pinning, peer, repoRoot, entryDir: useTsx ? benchDir : join(buildDir, 'bench'), extension: useTsx ? '.ts' : '.js', bun: bunBinary(repoRoot) });
  const started = async (c: Promise<BenchChild>) => {
    const child = await c;
    children.push(child);
    return child;
  };
  try {
    // BENCH_SCENARIOS=none: only the sweep and/or the memory scenarios.
    const wanted = settings.scenarios.length ? SCENARIOS.filter((s) => settings.scenarios.includes(s.id)) : SCENARIOS;
    const unknown = settings.scenarios.filter((id) => id !== 'none' && !SCENARIOS.some((s) => s.id === id));
    if (unknown.length) throw new Error(`unknown scenario(s) ${unknown.join(', ')}; known: ${SCENARIOS.map((s) => s.id).join(', ')}`);
    const upstream = await started(launch.mock());
    const profileArgs = settings.profileDir ? ['--cpu-prof', `--cpu-prof-dir=${settings.profileDir}`, '--cpu-prof-interval=250'] : [];
    const floor = await started(launch.floor(upstream, {}, process.env.BENCH_PROFILE_FLOOR ? profileArgs : []));
    if (settings.profileDir) mkdirSync(settings.profileDir, { recursive: true });
    const gateway = await started(launch.gateway(upstream, 'node', {}, profileArgs));
    // The server as shipped runs from dist/, built as `npm ci` (prepare) builds it.
    let shipped: BenchChild | undefined;
    let quiet: BenchChild | undefined;
    if (settings.npmStart && wanted.some((s) => s.shippedCpuTarget !== false)) {
      execFileSync('npm', ['run', '--silent', 'build'], { cwd: repoRoot, stdio: 'inherit' });
      shipped = await started(launch.shipped(upstream, false));
      if (settings.npmStartQuiet) quiet = await started(launch.shipped(upstream, true));
      environment.shipped = `npm start (commit ${git(['rev-parse', '--short', 'HEAD'])} built with npm run build), access log to a file${quiet ? '; and npm start --quiet' : ''}`;
    }
    const wantsPeer = peer.installed && (wanted.some((s) => s.peer) || settings.sweepConnections.length > 0);
    const peerChild = wantsPeer ? await started(launch.peer()) : undefined;
    const control = wanted.some((s) => s.kind === 'control') ? await started(launch.controlGateway(upstream)) : undefined;
    const hosts: Partial<Record<string, BenchChild>> = {};
    for (const s of wanted) {
      if (s.host === 'express' || s.host === 'koa') hosts[s.host] = await started(launch.gateway(upstream, s.host));
      else if (s.host === 'bun' && bunBinary(repoRoot)) hosts.bun = await started(launch.bun(upstream));
    }
    console.log(children.map((c) => `${c.name} ${c.url} (pid ${c.pid})`).join(', '));
    console.log(
      `${String(environment.cpus)} CPUs, node ${process.version}, load avg ${String(environment.loadAvgStart)}; ${settings.connections} connections, ` +
        `${settings.warmupMs}+${settings.durationMs} ms per run, ${settings.latencyMs} ms at 1 connection, ${settings.reps} repetitions`,
    );

    const skipped: BenchReport['skipped'] = [];
    const peerSkipped: BenchReport['peerSkipped'] = [];
    const plans = await planScenarios(
      wanted,
      { upstream, floor, gateway, ...(control ? { control } : {}), ...(peerChild ? { peer: peerChild } : {}), ...(shipped ? { shipped } : {}), ...(quiet ? { quiet } : {}), hosts },
      skipped,
      peerSkipped,
    );
    for (const s of [...skipped, ...peerSkipped.map((p) => ({ ...p, id: `${p.id} (peer)` }))]) console.log(`not run: ${s.id}: ${s.reason}`);
    const reps = await repetitions(plans, upstream);

    let sweep: SweepPoint[] | undefined;
    const passthrough = SCENARIOS.find((s) => s.id === 'openai-sync') as Scenario;
    if (settings.sweepConnections.length) {
      const targets: SweepTarget[] = [{ role: 'floor', child: floor, spec: passthrough.floor }, { role: 'gateway', child: gateway, spec: passthrough.gateway }];
      if (peerChild && passthrough.peer) targets.splice(1, 0, { role: 'peer', child: peerChild, spec: peerRequest(passthrough.peer, upstream.url) });
      sweep = await runSweep(targets, upstream, passthrough.complete, settings);
    }
    // Memory runs on fresh processes: stop everything but the mock first.
    await stopAll([upstream]);
    const memory = settings.memory ? await memoryPhase(launch, upstream, peer.installed) : undefined;
    environment.loadAvgEnd = load1();
    await stopAll();

    const summaries = plans.map((p) => summarizeScenario(p.scenario, reps.get(p.scenario.id) ?? []));
    console.log(`\n${mainTable(summaries, settings)}\n`);
    const shippedRows = shippedTable(summaries);
    if (shippedRows) console.log(`${shippedRows}\n`);
    if (summaries.some((r) => r.kind === 'control')) console.log(`${controlLines(summaries)}\n`);
    if (sweep) console.log(`Connection sweep (openai-sync):\n\n${sweepTable(sweep)}\n`);
    if (memory) console.log(`Memory:\n\n${memoryTable(memory)}\n`);
    if (settings.writeResults) {
      const report: BenchReport = {
        date: new Date().toISOString(),
        environment,
        settings,
        scenarios: summaries,
        skipped,
        peerSkipped,
        ...(sweep ? { sweep } : {}),
        ...(memory ? { memory } : {}),
        repetitions: Object.fromEntries(reps),
      };
      writeReports(report, join(benchDir, 'results.json'), join(benchDir, 'RESULTS.md'));
      if (sweep) {
        const how = `${pinning.enabled ? `per core (proxy on CPU ${pinning.targetCpu}, load + mock on CPU ${pinning.loadCpu})` : 'NOT PINNED'}; ${settings.sweepReps} rep(s), medians; node ${process.version}; ${report.date.slice(0, 10)}`;
        writeSweepPlot(sweep, join(benchDir, 'plot.png'), 'Connection sweep: OpenAI chat pass-through, JSON', how);
      }
      console.log(`wrote bench/results.json and bench/RESULTS.md${sweep ? ' and bench/plot.png' : ''}`);
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
