/**
 * Summarizes a V8 .cpuprofile (node --cpu-prof): self time by area and by function, inclusive
 * time of the hottest functions, and time charged to the nearest modelgate frame (src/, adapters/)
 * so library work (web streams, undici, JSON) shows up under the gateway code that asked for it.
 * Usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top]
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Repo-relative path for the repo and for the bench's compiled copy (…/modelgate-bench-PID/…). */
function shortUrl(url: string): string {
  if (!url) return '';
  const u = url.replace(/^file:\/\//, '');
  const nm = u.lastIndexOf('node_modules/');
  if (nm >= 0) return u.slice(nm + 'node_modules/'.length);
  const m = /\/(?:modelgate-bench-\d+|main)\/((?:src|adapters|bench)\/.*)$/.exec(u);
  return m ? (m[1] as string) : u;
}

/** A coarse area for a frame: which layer the time belongs to. */
export function areaOf(frame: CallFrame): string {
  const url = frame.url;
  const name = frame.functionName;
  if (!url) {
    if (name === '(idle)' || name === '(program)' || name === '(garbage collector)' || name === '(root)') return name;
    return 'V8 builtins (JSON, strings, regexps, ...)';
  }
  const s = shortUrl(url);
  if (s.startsWith('src/') || s.startsWith('adapters/') || s.startsWith('bench/')) return s;
  if (url.includes('node_modules/undici/')) return 'undici npm (upstream client)';
  if (url.includes('node_modules/')) return `npm: ${s.split('/')[0]}`;
  if (url.startsWith('node:internal/deps/undici')) return 'node built-in undici (Request/Response/Headers/body mixin)';
  if (url.startsWith('node:internal/webstreams')) return 'web streams (node:internal/webstreams)';
  if (/^node:(_http|http|internal\/http|net|internal\/net|internal\/stream_base|internal\/streams|stream|internal\/js_stream)/.test(url)) return 'node http/net/streams';
  if (url.startsWith('node:internal/process/task_queues') || url.startsWith('node:internal/timers') || url.startsWith('node:timers')) return 'node timers/microtasks';
  if (url.startsWith('node:internal/abort_controller') || url.startsWith('node:internal/event_target') || url.startsWith('node:events')) return 'node events/abort signals';
  if (url.startsWith('node:internal/crypto') || url.startsWith('node:crypto')) return 'node crypto';
  if (url.startsWith('node:internal/encoding') || url.startsWith('node:buffer') || url.startsWith('node:internal/buffer')) return 'node encoding/buffer';
  if (url.startsWith('node:') ) return `node other (${url.replace(/^node:(internal\/)?/, '').split('/')[0]})`;
  return s;
}

function isOwn(frame: CallFrame): boolean {
  const s = shortUrl(frame.url);
  return s.startsWith('src/') || s.startsWith('adapters/');
}

function fnKey(f: CallFrame): string {
  const where = f.url ? `${shortUrl(f.url)}:${f.lineNumber + 1}` : 'native';
  return `${f.functionName || '(anonymous)'} ${where}`;
}

export interface ProfileSummary {
  totalMs: number;
  busyMs: number;
  byArea: Array<[string, number]>;
  selfByFunction: Array<[string, number]>;
  inclusiveByFunction: Array<[string, number]>;
  chargedToGatewayFunction: Array<[string, number]>;
}

export function summarizeProfile(profile: CpuProfile, top = 25): ProfileSummary {
  const byId = new Map<number, ProfileNode>();
  const parent = new Map<number, number>();
  for (const n of profile.nodes) byId.set(n.id, n);
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const self = new Map<number, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const dt = (profile.timeDeltas[i] ?? 0) / 1000;
    total += dt;
    self.set(id, (self.get(id) ?? 0) + dt);
  });

  const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
  const byArea = new Map<string, number>();
  const selfFn = new Map<string, number>();
  const charged = new Map<string, number>();
  const nearestOwn = new Map<number, string>();
  const ownOf = (id: number): string => {
    const cached = nearestOwn.get(id);
    if (cached !== undefined) return cached;
    const node = byId.get(id);
    let result = '(outside gateway code: node/undici/event loop)';
    if (node && isOwn(node.callFrame)) result = fnKey(node.callFrame);
    else {
      const p = parent.get(id);
      if (p !== undefined) result = ownOf(p);
    }
    nearestOwn.set(id, result);
    return result;
  };
  let idle = 0;
  for (const [id, t] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const area = areaOf(node.callFrame);
    if (area === '(idle)') {
      idle += t;
      continue;
    }
    add(byArea, area, t);
    add(selfFn, fnKey(node.callFrame), t);
    if (area !== '(program)' && area !== '(garbage collector)') add(charged, ownOf(id), t);
  }

  // Inclusive time per function, counting recursion once.
  const inclusive = new Map<string, number>();
  const onStack = new Map<string, number>();
  const rootIds = profile.nodes.filter((n) => !parent.has(n.id)).map((n) => n.id);
  const subtree = (id: number): number => {
    const node = byId.get(id);
    if (!node) return 0;
    const key = fnKey(node.callFrame);
    const depth = onStack.get(key) ?? 0;
    onStack.set(key, depth + 1);
    let sum = self.get(id) ?? 0;
    for (const c of node.children ?? []) sum += subtree(c);
    onStack.set(key, depth);
    if (depth === 0 && node.callFrame.url) add(inclusive, key, sum);
    return sum;
  };
  for (const r of rootIds) subtree(r);

  const sorted = (m: Map<string, number>) => [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top);
  return {
    totalMs: total,
    busyMs: total - idle,
    byArea: sorted(byArea),
    selfByFunction: sorted(selfFn),
    inclusiveByFunction: sorted(inclusive),
    chargedToGatewayFunction: sorted(charged),
  };
}

export function formatSummary(s: ProfileSummary): string {
  const pct = (v: number) => `${((100 * v) / s.busyMs).toFixed(1).padStart(5)}%`;
  const block = (title: string, rows: Array<[string, number]>) =>
    [`${title}`, ...rows.map(([k, v]) => `  ${pct(v)}  ${v.toFixed(0).padStart(7)} ms  ${k}`)].join('\n');
  return [
    `profile: ${s.totalMs.toFixed(0)} ms sampled, ${s.busyMs.toFixed(0)} ms busy (percentages are of busy time)`,
    block('self time by area:', s.byArea),
    block('self time by function:', s.selfByFunction),
    block('inclusive time by function:', s.inclusiveByFunction),
    block('time charged to the nearest gateway frame (src/, adapters/):', s.chargedToGatewayFunction),
  ].join('\n\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node --import tsx bench/profile-summary.ts FILE.cpuprofile [top]');
    process.exit(2);
  }
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  console.log(formatSummary(summarizeProfile(profile, Number(process.argv[3] ?? 25))));
}
