/** Benchmark knobs (environment) and the fixed identities shared by the parent and its children. */

export interface BenchSettings {
  /** Measured window of the throughput phase per run, in ms (after the warmup). */
  durationMs: number;
  /** Warmup before each throughput phase, in ms (not measured). */
  warmupMs: number;
  /** Unmeasured load per scenario and target before the first repetition (JIT warmup), in ms. */
  prewarmMs: number;
  /** Connections (= requests in flight) of the throughput phase. */
  connections: number;
  /** Measured window of the single-connection latency phase per run, in ms (0 skips it). */
  latencyMs: number;
  /** Repetitions; each repetition runs floor and gateway once per scenario, order alternating. */
  reps: number;
  /** Upper bound of requests per phase, so a run is bounded in count as well as time. */
  maxRequests: number;
  /** Scenario ids to run (empty: all). */
  scenarios: string[];
  /** Write a V8 CPU profile of the gateway child into this directory. */
  profileDir: string | undefined;
  /** Where results.json / RESULTS.md go (empty: do not write). */
  writeResults: boolean;
  /** Pin the proxies to `targetCpu` and the load generator + mock to `loadCpu` with taskset. */
  pin: boolean;
  targetCpu: number;
  loadCpu: number;
  /** Run the peer gateway (Portkey, from bench/peer/) when it is installed. */
  peer: boolean;
  /** Connection counts of the sweep on the pass-through JSON scenario (empty: no sweep, no plot). */
  sweepConnections: number[];
  /** Measured window per sweep point, in ms (after `warmupMs`). */
  sweepMs: number;
  /** Repetitions of the sweep (medians per point). */
  sweepReps: number;
  /** Run the memory scenarios (open streams, soak). */
  memory: boolean;
  /** Concurrent open streams of the memory scenario. */
  streams: number;
  /** Interval between two chunks of a paced upstream stream, in ms. */
  paceMs: number;
  /** How long a paced stream lasts (chunks = holdMs / paceMs), in ms. */
  streamHoldMs: number;
  /** Length of the soak (0 skips it); its first 10% is warm-up. */
  soakMs: number;
  /** Connections of the soak load, spread over the protocol scenarios. */
  soakConnections: number;
  /** Measure the server as it ships (`npm start` with a config file, access log to a file) beside the in-process child. */
  npmStart: boolean;
  /** Also `npm start --quiet` (no access log): what the access log costs. */
  npmStartQuiet: boolean;
}

function intEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${raw}`);
  return n;
}

export function readSettings(): BenchSettings {
  const profile = process.env.BENCH_PROFILE;
  return {
    durationMs: intEnv('BENCH_DURATION_MS', 6000, 500),
    warmupMs: intEnv('BENCH_WARMUP_MS', 1500, 0),
    prewarmMs: intEnv('BENCH_PREWARM_MS', 1000, 0),
    connections: intEnv('BENCH_CONNECTIONS', 64, 1),
    latencyMs: intEnv('BENCH_LATENCY_MS', 2500, 0),
    reps: intEnv('BENCH_REPS', 3, 1),
    maxRequests: intEnv('BENCH_MAX_REQUESTS', 2_000_000, 100),
    scenarios: (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    profileDir: profile ? (profile === '1' ? '/tmp/modelgate-bench-profiles' : profile) : undefined,
    writeResults: process.env.BENCH_WRITE !== '0',
    pin: process.env.BENCH_PIN !== '0',
    targetCpu: intEnv('BENCH_TARGET_CPU', 0, 0),
    loadCpu: intEnv('BENCH_LOAD_CPU', 1, 0),
    peer: process.env.BENCH_PEER !== '0',
    sweepConnections: listEnv('BENCH_SWEEP', [1, 4, 16, 64, 256]),
    sweepMs: intEnv('BENCH_SWEEP_MS', 3000, 500),
    sweepReps: intEnv('BENCH_SWEEP_REPS', intEnv('BENCH_REPS', 3, 1), 1),
    memory: process.env.BENCH_MEMORY !== '0',
    streams: intEnv('BENCH_STREAMS', 1000, 1),
    paceMs: intEnv('BENCH_PACE_MS', 500, 1),
    streamHoldMs: intEnv('BENCH_STREAM_HOLD_MS', 30_000, 1000),
    soakMs: intEnv('BENCH_SOAK_MS', 600_000, 0),
    soakConnections: intEnv('BENCH_SOAK_CONNECTIONS', 24, 1),
    npmStart: process.env.BENCH_NPM_START !== '0',
    npmStartQuiet: process.env.BENCH_NPM_START_QUIET !== '0',
  };
}

/** Comma-separated positive integers; `0`/`off` = none. */
function listEnv(name: string, fallback: number[]): number[] {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  if (raw.trim() === '0' || raw.trim() === 'off') return [];
  const values = raw.split(',').map((x) => Number(x.trim()));
  if (values.some((n) => !Number.isInteger(n) || n < 1)) throw new Error(`${name} must be comma-separated integers >= 1 (or 0/off), got ${raw}`);
  return values;
}

/**
 * What the issue asks of modelgate, per core, medians of interleaved repetitions.
 * Latency figures are "added" = through the proxy minus calling the mock directly, at 1 connection.
 */
export const TARGETS = {
  passthroughRatio: 0.7,
  translatedRatio: 0.5,
  peerRatio: 10,
  addedP50Ms: 0.2,
  addedP99Ms: 1,
  addedTtfbMs: 0.3,
  /** The control plane on (SQLite ledger, a store key) against the config-keys server, same run (issue 23: within 5%). */
  controlRatio: 0.95,
  streamsMemoryMb: 50,
  soakDriftPct: 10,
  /** The access log's share of `npm start`'s CPU (issue 21). */
  accessLogShare: 0.05,
} as const;

/** The platform key the load generator presents to modelgate. */
export const PLATFORM_KEY = 'sk-bench-platform-key-0123456789';
/** The key the mock upstream requires (both protocols). */
export const UPSTREAM_KEY = 'upstream-secret-bench-0123456789';
/** Public model ids configured in the gateway under test. */
export const MODEL_VIA_OPENAI = 'bench-openai';
export const MODEL_VIA_ANTHROPIC = 'bench-anthropic';
/** The OpenAI upstream's model with the response cache on: after the first call, every call is a hit. */
export const MODEL_CACHED = 'bench-cached';
/** The OpenAI upstream's model whose JSON answers come chunked (no Content-Length), as most vendors send them. */
export const MODEL_CHUNKED = 'bench-chunked';
/** Model whose upstream stream is paced (a chunk every BENCH_PACE_MS): the memory scenario. */
export const MODEL_PACED = 'bench-paced';
/** Upstream model names; the mock paces streams of models ending in `-paced`. */
export const UPSTREAM_OPENAI_MODEL = 'gpt-bench';
export const UPSTREAM_ANTHROPIC_MODEL = 'claude-bench';
export const UPSTREAM_PACED_MODEL = 'gpt-bench-paced';
/** The mock answers models ending in `-chunked` with chunked transfer encoding and no Content-Length. */
export const UPSTREAM_CHUNKED_MODEL = 'gpt-bench-chunked';
/** The reply text of the mock upstream; streams send one chunk per word. */
export const REPLY_WORDS = ['The', ' quick', ' brown', ' fox', ' jumps', ' over', ' the', ' lazy', ' dog.'];

/** Gateway config: one openai-type and one anthropic-type provider, both on the mock upstream. */
export function gatewayConfig(upstreamOrigin: string): Record<string, unknown> {
  return {
    providers: [
      { id: 'up-openai', type: 'openai', baseURL: `${upstreamOrigin}/v1`, apiKey: UPSTREAM_KEY },
      { id: 'up-anthropic', type: 'anthropic', baseURL: upstreamOrigin, apiKey: UPSTREAM_KEY },
    ],
    models: [
      { id: MODEL_VIA_OPENAI, provider: 'up-openai', upstreamModel: UPSTREAM_OPENAI_MODEL },
      { id: MODEL_VIA_ANTHROPIC, provider: 'up-anthropic', upstreamModel: UPSTREAM_ANTHROPIC_MODEL },
      { id: MODEL_PACED, provider: 'up-openai', upstreamModel: UPSTREAM_PACED_MODEL },
      { id: MODEL_CHUNKED, provider: 'up-openai', upstreamModel: UPSTREAM_CHUNKED_MODEL },
      { id: MODEL_CACHED, provider: 'up-openai', upstreamModel: UPSTREAM_OPENAI_MODEL, cache: { ttlSeconds: 3600 } },
    ],
    keys: [{ id: 'bench', key: PLATFORM_KEY }],
  };
}
