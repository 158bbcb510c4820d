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
    connections: intEnv('BENCH_CONNECTIONS', 32, 1),
    latencyMs: intEnv('BENCH_LATENCY_MS', 2500, 0),
    reps: intEnv('BENCH_REPS', 3, 1),
    maxRequests: intEnv('BENCH_MAX_REQUESTS', 2_000_000, 100),
    scenarios: (process.env.BENCH_SCENARIOS ?? '').split(',').map((s) => s.trim()).filter(Boolean),
    profileDir: profile ? (profile === '1' ? '/tmp/modelgate-bench-profiles' : profile) : undefined,
    writeResults: process.env.BENCH_WRITE !== '0',
  };
}

/** The platform key the load generator presents to modelgate. */
export const PLATFORM_KEY = 'sk-bench-platform-key-0123456789';
/** The key the mock upstream requires (both protocols). */
export const UPSTREAM_KEY = 'upstream-secret-bench-0123456789';
/** Public model ids configured in the gateway under test. */
export const MODEL_VIA_OPENAI = 'bench-openai';
export const MODEL_VIA_ANTHROPIC = 'bench-anthropic';
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
      { id: MODEL_VIA_OPENAI, provider: 'up-openai', upstreamModel: 'gpt-bench' },
      { id: MODEL_VIA_ANTHROPIC, provider: 'up-anthropic', upstreamModel: 'claude-bench' },
    ],
    keys: [{ id: 'bench', key: PLATFORM_KEY }],
  };
}
