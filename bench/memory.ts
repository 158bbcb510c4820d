/**
 * Memory scenarios, each on a freshly started (pinned) target process:
 * - open streams: after a short warm-up the idle RSS is sampled, then BENCH_STREAMS streams are
 *   opened at once against a paced upstream (a chunk every BENCH_PACE_MS) and the RSS is sampled
 *   while all of them are open: the cost of holding them (target for modelgate: <= 50 MB);
 * - soak (modelgate only): BENCH_SOAK_MS of closed-loop load over the protocol scenarios; the
 *   first 10% (at least 5 s) is warm-up, then the RSS at the end must be within 10% of the RSS at the start.
 */
import { Pool } from 'undici';
import type { BenchChild } from './children.js';
import { probe, runLoad } from './load.js';
import type { Check } from './report.js';
import type { RequestSpec } from './scenarios.js';
import { TARGETS, type BenchSettings } from './settings.js';
import { median } from './stats.js';

export type MemoryRole = 'floor' | 'peer' | 'gateway';

export interface StreamsResult {
  role: MemoryRole;
  streams: number;
  /** Streams started (the ramp stops at half the hold time). */
  launched: number;
  /** Streams that had delivered their first byte when the RSS was sampled. */
  opened: number;
  completed: number;
  errors: number;
  firstError?: string;
  idleMb: number;
  openMb: number;
  peakMb: number;
  /** openMb - idleMb: what holding the streams costs. */
  addedMb: number;
}

export interface SoakResult {
  /** Scenario ids in the load mix. */
  scenarios: string[];
  durationMs: number;
  warmupMs: number;
  connections: number;
  requests: number;
  errors: number;
  firstError?: string;
  startMb: number;
  endMb: number;
  peakMb: number;
  /** (end - start) / start, in percent. */
  driftPct: number;
  /** [ms since the soak started, RSS MB] every sampling interval. */
  samples: Array<[number, number]>;
}

export interface MemoryReport {
  paceMs: number;
  holdMs: number;
  streams: StreamsResult[];
  soak?: SoakResult;
  checks: Check[];
}

export interface MemoryTarget {
  role: MemoryRole;
  /** Starts a fresh process of this target (the caller stops it). */
  start(): Promise<BenchChild>;
  /** A paced stream request (held open by the upstream). */
  paced: RequestSpec;
  /** A fast stream request for the warm-up. */
  warm: RequestSpec;
  warmComplete: (t: string) => boolean;
}

export interface SoakLoad {
  id: string;
  spec: RequestSpec;
  complete: (t: string) => boolean;
}

const MB = 1024 * 1024;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function sampleRss(child: BenchChild, count: number, everyMs: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    out.push((await child.rssBytes()) / MB);
    if (i < count - 1) await sleep(everyMs);
  }
  return out;
}

/**
 * Holds up to `n` streams; `launch(k)` opens k more, `opened()` counts first bytes so far and
 * `done()` resolves when every launched stream has ended.
 */
function streamPool(origin: string, spec: RequestSpec, n: number, complete: (t: string) => boolean) {
  const pool = new Pool(origin, { connections: n, pipelining: 1, keepAliveTimeout: 30_000 });
  let opened = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | undefined;
  const one = async () => {
    try {
      const res = await pool.request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body });
      const chunks: Buffer[] = [];
      for await (const chunk of res.body as AsyncIterable<Buffer>) {
        if (chunks.length === 0) opened++;
        chunks.push(chunk);
      }
      const text = Buffer.concat(chunks).toString('utf8');
      if (res.statusCode === 200 && complete(text)) completed++;
      else {
        errors++;
        firstError ??= `HTTP ${res.statusCode}: ${text.slice(0, 300)}`;
      }
    } catch (err) {
      errors++;
      firstError ??= (err as Error).message;
    }
  };
  const running: Array<Promise<void>> = [];
  return {
    launch: (k: number) => {
      for (let i = 0; i < k; i++) running.push(one());
    },
    done: () => Promise.all(running).then(() => pool.close()),
    opened: () => opened,
    result: () => ({ completed, errors, ...(firstError ? { firstError } : {}) }),
  };
}

/**
 * Opens the streams in batches below node's default listen backlog (511): a burst of 1,000
 * connects overflows the accept queue, which stalls connects for seconds or resets them.
 */
const RAMP_BATCH = 100;

async function streamsScenario(t: MemoryTarget, settings: BenchSettings, complete: (t: string) => boolean): Promise<StreamsResult> {
  const child = await t.start();
  try {
    // Warm-up (JIT, pools), then let it settle before the idle sample.
    await runLoad({ origin: child.url, spec: t.warm, connections: 16, warmupMs: 0, durationMs: 1500, maxRequests: settings.maxRequests, complete: t.warmComplete });
    await sleep(1000);
    const idleMb = median(await sampleRss(child, 5, 200));
    const peaks: number[] = [];
    const run = streamPool(child.url, t.paced, settings.streams, complete);
    // Ramp up until every stream delivered its first chunk (or half the hold time passed: the
    // first streams must still be open when the RSS is sampled).
    const deadline = performance.now() + settings.streamHoldMs / 2;
    let launched = 0;
    while (run.opened() < settings.streams && performance.now() < deadline) {
      if (run.opened() + run.result().errors >= launched && launched < settings.streams) {
        const batch = Math.min(RAMP_BATCH, settings.streams - launched);
        run.launch(batch);
        launched += batch;
      }
      peaks.push((await child.rssBytes()) / MB);
      await sleep(20);
    }
    const opened = run.opened();
    const open = await sampleRss(child, 8, 250);
    peaks.push(...open);
    await run.done();
    const result = run.result();
    const openMb = median(open);
    console.log(
      `[memory] ${t.role.padEnd(8)} ${opened}/${settings.streams} streams open: RSS idle ${idleMb.toFixed(1)} MB, open ${openMb.toFixed(1)} MB (+${(openMb - idleMb).toFixed(1)} MB), ` +
        `${result.completed} completed${result.errors ? `, ERRORS ${result.errors}: ${result.firstError}` : ''}`,
    );
    return { role: t.role, streams: settings.streams, launched, opened, ...result, idleMb, openMb, peakMb: Math.max(...peaks), addedMb: openMb - idleMb };
  } finally {
    await child.stop();
  }
}

async function soakScenario(start: () => Promise<BenchChild>, candidates: SoakLoad[], settings: BenchSettings): Promise<SoakResult> {
  const child = await start();
  // Only what this build can serve (a translation not written yet would be all errors).
  const loads: SoakLoad[] = [];
  for (const l of candidates) if ((await probe(child.url, l.spec, l.complete)).ok) loads.push(l);
  if (loads.length === 0) {
    await child.stop();
    throw new Error('soak: modelgate serves none of the protocol scenarios');
  }
  const durationMs = settings.soakMs;
  const warmupMs = Math.max(5000, Math.round(durationMs * 0.1));
  const perLoad = Math.max(1, Math.round(settings.soakConnections / loads.length));
  const samples: Array<[number, number]> = [];
  const t0 = performance.now();
  const everyMs = Math.max(250, Math.min(5000, Math.round(durationMs / 400)));
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      samples.push([Math.round(performance.now() - t0), (await child.rssBytes()) / MB]);
      await sleep(everyMs);
    }
  })();
  try {
    const results = await Promise.all(
      loads.map((l) => runLoad({ origin: child.url, spec: l.spec, complete: l.complete, connections: perLoad, warmupMs: 0, durationMs, maxRequests: settings.maxRequests })),
    );
    sampling = false;
    await sampler;
    const after = samples.filter(([t]) => t >= warmupMs);
    const window = Math.max(3, Math.ceil(after.length * 0.05));
    const startMb = median(after.slice(0, window).map(([, mb]) => mb));
    const endMb = median(after.slice(-window).map(([, mb]) => mb));
    const errors = results.reduce((n, r) => n + r.errors, 0);
    const firstError = results.find((r) => r.firstError)?.firstError;
    const soak: SoakResult = {
      scenarios: loads.map((l) => l.id),
      durationMs,
      warmupMs,
      connections: perLoad * loads.length,
      requests: results.reduce((n, r) => n + r.count, 0),
      errors,
      ...(firstError ? { firstError } : {}),
      startMb,
      endMb,
      peakMb: Math.max(...after.map(([, mb]) => mb)),
      driftPct: ((endMb - startMb) / startMb) * 100,
      samples,
    };
    console.log(
      `[soak] ${(durationMs / 1000).toFixed(0)} s, ${soak.requests} requests over ${soak.connections} connections: RSS ${startMb.toFixed(1)} -> ${endMb.toFixed(1)} MB ` +
        `(${soak.driftPct >= 0 ? '+' : ''}${soak.driftPct.toFixed(1)}%), peak ${soak.peakMb.toFixed(1)} MB${errors ? `, ERRORS ${errors}: ${firstError}` : ''}`,
    );
    return soak;
  } finally {
    sampling = false;
    await child.stop();
  }
}

export async function runMemory(targets: MemoryTarget[], soakStart: () => Promise<BenchChild>, soakLoads: SoakLoad[], complete: (t: string) => boolean, settings: BenchSettings): Promise<MemoryReport> {
  const streams: StreamsResult[] = [];
  for (const t of targets) streams.push(await streamsScenario(t, settings, complete));
  const soak = settings.soakMs > 0 ? await soakScenario(soakStart, soakLoads, settings) : undefined;
  const checks: Check[] = [];
  const gw = streams.find((s) => s.role === 'gateway');
  if (gw) {
    const ok = gw.errors === 0 && gw.opened === gw.streams && gw.addedMb <= TARGETS.streamsMemoryMb;
    checks.push({ name: `RSS MB above idle, ${gw.streams} open streams`, value: gw.addedMb, target: TARGETS.streamsMemoryMb, bound: 'max', ok });
  }
  if (soak) {
    const ok = soak.errors === 0 && Math.abs(soak.driftPct) <= TARGETS.soakDriftPct;
    checks.push({ name: 'soak RSS change % (end vs start)', value: soak.driftPct, target: TARGETS.soakDriftPct, bound: 'max', ok });
  }
  return { paceMs: settings.paceMs, holdMs: settings.streamHoldMs, streams, ...(soak ? { soak } : {}), checks };
}
