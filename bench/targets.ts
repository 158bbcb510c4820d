/** Starts the benchmark's processes: the mock upstream, the floor, modelgate on each host, the peer. */
import { join } from 'node:path';
import { startChild, type BenchChild } from './children.js';
import { startShipped } from './shipped.js';
import { peerChildSpec, type PeerStatus } from './peer.js';
import type { Pinning } from './pinning.js';
import type { HostId } from './scenarios.js';
import type { BenchSettings } from './settings.js';

export interface LaunchContext {
  settings: BenchSettings;
  pinning: Pinning;
  /** Directory of the child entry points: compiled `<build>/bench` (.js) or bench/ itself (.ts, tsx). */
  entryDir: string;
  extension: '.js' | '.ts';
  peer: PeerStatus;
  bun?: string;
  /** The repository, where `npm start` runs. */
  repoRoot: string;
}

export type NodeHost = 'node' | Exclude<HostId, 'bun'>;

export function launcher(ctx: LaunchContext) {
  const { settings, pinning } = ctx;
  const entry = (name: string) => join(ctx.entryDir, `${name}${ctx.extension}`);
  const onTarget = settings.targetCpu;
  return {
    /** On the load core with the load generator; paced streams last `streamHoldMs`. */
    mock: (): Promise<BenchChild> =>
      startChild(
        {
          name: 'mock-upstream',
          file: entry('mock-upstream'),
          env: { BENCH_PACE_MS: String(settings.paceMs), BENCH_PACE_CHUNKS: String(Math.ceil(settings.streamHoldMs / settings.paceMs)) },
          cpu: settings.loadCpu,
        },
        pinning,
      ),
    floor: (upstream: BenchChild, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchChild> =>
      startChild({ name: 'floor', file: entry('floor-proxy'), env: { BENCH_UPSTREAM: upstream.url, ...env }, nodeArgs, cpu: onTarget }, pinning),
    /** modelgate on node: the node:http bridge (`node`), Express or Koa. */
    gateway: (upstream: BenchChild, host: NodeHost, env: Record<string, string> = {}, nodeArgs: string[] = []): Promise<BenchChild> =>
      startChild(
        { name: host === 'node' ? 'modelgate' : `modelgate on ${host}`, file: entry('gateway-server'), env: { BENCH_UPSTREAM: upstream.url, BENCH_HOST: host, ...env }, nodeArgs, cpu: onTarget },
        pinning,
      ),
    /** modelgate on the node:http bridge with its control plane on (SQLite store, keys from it, the ledger written). */
    controlGateway: (upstream: BenchChild): Promise<BenchChild> =>
      startChild(
        {
          name: 'modelgate (control plane on)',
          file: entry('gateway-server'),
          env: { BENCH_UPSTREAM: upstream.url, BENCH_HOST: 'node', BENCH_CONTROL: 'sqlite' },
          // BENCH_PROFILE_CONTROL=DIR: a V8 CPU profile of this child.
          nodeArgs: process.env.BENCH_PROFILE_CONTROL ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_CONTROL}`, '--cpu-prof-interval=250'] : [],
          cpu: onTarget,
        },
        pinning,
      ),
    bun: (upstream: BenchChild): Promise<BenchChild> =>
      startChild({ name: 'modelgate on Bun', file: entry('host-bun'), env: { BENCH_UPSTREAM: upstream.url }, runtime: 'bun', cpu: onTarget }, pinning, ctx.bun),
    /** The server as shipped: `npm start` in the repository (dist/ built), pinned like the others. */
    shipped: (upstream: BenchChild, quiet: boolean): Promise<BenchChild> =>
      // BENCH_NPM_START_ARGS (diagnosis): more flags for both copies, e.g. `--db memory` (no control plane) to see what the ledger adds.
      startShipped(ctx.repoRoot, upstream.url, onTarget, pinning, { quiet, args: (process.env.BENCH_NPM_START_ARGS ?? '').split(' ').filter(Boolean) }),
    peer: (): Promise<BenchChild> => {
      if (!ctx.peer.installed) throw new Error(`peer ${ctx.peer.reason}`);
      return startChild(peerChildSpec(ctx.peer, onTarget), pinning);
    },
  };
}

export type Launcher = ReturnType<typeof launcher>;
