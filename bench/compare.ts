/**
 * Compares two results.json files (e.g. before and after a change):
 * node --import tsx bench/compare.ts OLD.json NEW.json
 */
import { readFileSync } from 'node:fs';
import type { BenchReport, ScenarioSummary } from './report.js';

const [oldFile, newFile] = process.argv.slice(2);
if (!oldFile || !newFile) {
  console.error('usage: node --import tsx bench/compare.ts OLD.json NEW.json');
  process.exit(2);
}
const load = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as BenchReport;
const before = load(oldFile);
const after = load(newFile);
const byId = new Map<string, ScenarioSummary>(before.scenarios.map((s) => [s.id, s]));
const f2 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(2) : '-');
const f0 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(0) : '-');

console.log(`before: ${before.date} (${String(before.environment.commit)}); after: ${after.date} (${String(after.environment.commit)})\n`);
console.log('| scenario | modelgate/floor before | after | target | CPU us/req modelgate before / after (floor after) | added p50 ms @1 before / after |');
console.log('|---|---:|---:|---:|---:|---:|');
for (const s of after.scenarios) {
  const b = byId.get(s.id);
  console.log(
    `| ${s.id} | ${f2(b?.ratio)}x | **${f2(s.ratio)}x** | ${s.targetRatio}x | ${f0(b?.cpu.gatewayUs)} / ${f0(s.cpu.gatewayUs)} (${f0(s.cpu.floorUs)}) | ${f2(b?.single?.addedP50)} / ${f2(s.single?.addedP50)} |`,
  );
}
