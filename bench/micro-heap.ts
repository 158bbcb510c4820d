/**
 * Allocation sites of the in-process micro benchmark: runs bench/micro.ts under V8's sampling heap
 * profiler with collected objects included (what the young-generation GC pays for), then prints
 * the bytes allocated per function, own frames first. Usage (compiled, see README):
 *   node /tmp/mgmicro/bench/micro-heap.js sync 3
 */
import { Session } from 'node:inspector/promises';

interface HeapNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: HeapNode[];
}

const session = new Session();
session.connect();
await session.post('HeapProfiler.startSampling', { samplingInterval: 1024, includeObjectsCollectedByMajorGC: process.env.MICRO_HEAP_LIVE !== '1', includeObjectsCollectedByMinorGC: process.env.MICRO_HEAP_LIVE !== '1' });
await import('./micro.js');
const { profile } = (await session.post('HeapProfiler.stopSampling')) as { profile: { head: HeapNode } };
const bySite = new Map<string, number>();
let total = 0;
const walk = (n: HeapNode, stack: string[]) => {
  const f = n.callFrame;
  const url = f.url.replace(/^file:\/\/.*?\/(src|adapters|node|bench)\//, '$1/').replace(/^.*node_modules\//, '');
  const here = `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
  if (n.selfSize) {
    // Charge to the nearest own frame too, so library allocations show under the code that asked.
    const own = [here, ...stack].find((s) => /^\S+ (src|adapters|node)\//.test(s)) ?? '(outside own code)';
    bySite.set(here, (bySite.get(here) ?? 0) + n.selfSize);
    bySite.set(`  charged to ${own}`, (bySite.get(`  charged to ${own}`) ?? 0) + n.selfSize);
    total += n.selfSize;
  }
  for (const c of n.children) walk(c, [here, ...stack]);
};
walk(profile.head, []);
const rows = [...bySite].sort((a, b) => b[1] - a[1]);
console.log(`sampled allocations: ${(total / 1e6).toFixed(1)} MB`);
for (const [site, bytes] of rows.filter(([s]) => !s.startsWith('  ')).slice(0, 40)) console.log(`${((100 * bytes) / total).toFixed(1).padStart(5)}%  ${site}`);
const who = process.env.MICRO_HEAP_WHO;
if (who) {
  const parents = new Map<string, number>();
  const find = (n: HeapNode, stack: string[]) => {
    const f = n.callFrame;
    const here = `${f.functionName || '(anonymous)'} ${f.url.replace(/^.*\/(src|adapters|node|bench|node_modules)\//, '$1/')}:${f.lineNumber + 1}`;
    if (n.selfSize && here.startsWith(who)) {
      const key = stack.slice(0, 3).join(' < ');
      parents.set(key, (parents.get(key) ?? 0) + n.selfSize);
    }
    for (const c of n.children) find(c, [here, ...stack]);
  };
  find(profile.head, []);
  console.log(`\ncallers of ${who}:`);
  for (const [k, b] of [...parents].sort((a, b) => b[1] - a[1]).slice(0, 15)) console.log(`${((100 * b) / total).toFixed(1).padStart(5)}%  ${k}`);
}
console.log('\nby nearest own frame:');
for (const [site, bytes] of rows.filter(([s]) => s.startsWith('  ')).slice(0, 40)) console.log(`${((100 * bytes) / total).toFixed(1).padStart(5)}% ${site}`);
