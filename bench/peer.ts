/**
 * The peer gateway: Portkey's open-source gateway (`@portkey-ai/gateway`), installed in bench/peer/
 * by bench/peer/setup.sh so modelgate's own dependencies stay clean. It runs its published start
 * script (build/start-server.js) under node with peer/peer-preload.mjs, which binds it to
 * 127.0.0.1 on an ephemeral port and speaks the bench IPC protocol.
 * Portkey routes by headers: `x-portkey-provider` and `x-portkey-custom-host` (the provider's base
 * URL, here the mock upstream's /v1); the caller sends the provider key itself.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ChildSpec } from './children.js';
import type { PeerRoute, RequestSpec } from './scenarios.js';

export const PEER_VERSION = '1.15.2';
/** Versions the peer needs pinned (its streams break on Node 20 with newer ones). */
const PINNED = { hono: '4.9.7', '@hono/node-server': '1.13.5' } as const;

export type PeerStatus =
  | { installed: true; entry: string; preload: string; versions: Record<string, string>; warnings: string[] }
  | { installed: false; reason: string };

function installedVersion(peerDir: string, pkg: string): string | undefined {
  const file = join(peerDir, 'node_modules', pkg, 'package.json');
  if (!existsSync(file)) return undefined;
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as { version?: unknown };
  return typeof parsed.version === 'string' ? parsed.version : undefined;
}

export function peerStatus(benchDir: string, wanted: boolean): PeerStatus {
  if (!wanted) return { installed: false, reason: 'disabled (BENCH_PEER=0)' };
  const peerDir = join(benchDir, 'peer');
  const entry = join(peerDir, 'node_modules', '@portkey-ai', 'gateway', 'build', 'start-server.js');
  const gatewayVersion = installedVersion(peerDir, '@portkey-ai/gateway');
  if (!gatewayVersion || !existsSync(entry)) return { installed: false, reason: 'not installed: run `npm run bench:setup` (bench/peer/setup.sh) once' };
  const versions: Record<string, string> = { '@portkey-ai/gateway': gatewayVersion };
  const warnings: string[] = [];
  if (gatewayVersion !== PEER_VERSION) warnings.push(`@portkey-ai/gateway is ${gatewayVersion}, the bench is written for ${PEER_VERSION}`);
  for (const [pkg, want] of Object.entries(PINNED)) {
    const have = installedVersion(peerDir, pkg) ?? 'missing';
    versions[pkg] = have;
    if (have !== want) warnings.push(`${pkg} is ${have}, expected ${want} (re-run bench/peer/setup.sh)`);
  }
  return { installed: true, entry, preload: join(peerDir, 'peer-preload.mjs'), versions, warnings };
}

export function peerChildSpec(status: Extract<PeerStatus, { installed: true }>, cpu: number): ChildSpec {
  return {
    name: 'peer (Portkey)',
    file: status.entry,
    args: ['--port=0', '--headless'],
    nodeArgs: ['--import', status.preload],
    // NODE_ENV=production: no log UI routes; Portkey logs request errors on stderr (kept as a tail).
    env: { NODE_ENV: 'production' },
    cpu,
    quiet: true,
  };
}

/** The scenario's request in Portkey's form, pointed at the mock upstream. */
export function peerRequest(route: PeerRoute, upstreamUrl: string): RequestSpec {
  return {
    ...route.spec,
    headers: { ...route.spec.headers, 'x-portkey-provider': route.provider, 'x-portkey-custom-host': `${upstreamUrl}/v1` },
  };
}
