/**
 * Compares two results.json files (e.g. before and after a change):
 * node --import tsx bench/compare.ts OLD.json NEW.json
 * Files written before the per-core harness (fields `ratio`, `cpu`, `single`) are read too.
 */
import { readFileSync } from 'node:fs';

/** The fields compare reads, in the current and the previous results.json layout. */
interface ComparableScenario {
  id: string;
  targetRatio?: number;
  ratioFloor?: number;
  ratioPeer?: number;
  roles?: { gateway?: { cpuUs?: number; added?: { p50?: number } }; floor?: { cpuUs?: number } };
  ratio?: number;
  cpu?: { gatewayUs?: number; floorUs?: number };
  single?: { addedP50?: number };
}
interface ComparableReport {
  date: string;
  environment: { commit?: unknown };
  scenarios: ComparableScenario[];
}

const [oldFile, newFile] = process.argv.slice(2);
if (!oldFile || !newFile) {
  console.error('usage: node --import tsx bench/compare.ts OLD.json NEW.json');
  process.exit(2);
}
const load = (f: string) => JSON.parse(readFileSync(f, 'utf8')) as ComparableReport;
const before = load(oldFile);
const after = load(newFile);
const byId = new Map<string, ComparableScenario>(before.scenarios.map((s) => [s.id, s]));
const f2 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(2) : '-');
const f0 = (x: number | undefined) => (x !== undefined && Number.isFinite(x) ? x.toFixed(0) : '-');
const floorRatio = (s?: ComparableScenario) => s?.ratioFloor ?? s?.ratio;
const gatewayCpu = (s?: ComparableScenario) => s?.roles?.gateway?.cpuUs ?? s?.cpu?.gatewayUs;
const floorCpu = (s?: ComparableScenario) => s?.roles?.floor?.cpuUs ?? s?.cpu?.floorUs;
const addedP50 = (s?: ComparableScenario) => s?.roles?.gateway?.added?.p50 ?? s?.single?.addedP50;

console.log(`before: ${before.date} (${String(before.environment.commit)}); after: ${after.date} (${String(after.environment.commit)})\n`);
console.log('| scenario | modelgate/floor before | after | target | modelgate/peer before / after | CPU us/req modelgate before / after (floor after) | added p50 ms @1 before / after |');
console.log('|---|---:|---:|---:|---:|---:|---:|');
for (const s of after.scenarios) {
  const b = byId.get(s.id);
  console.log(
    `| ${s.id} | ${f2(floorRatio(b))}x | **${f2(floorRatio(s))}x** | ${s.targetRatio ?? '-'}x | ${f2(b?.ratioPeer)} / ${f2(s.ratioPeer)} | ${f0(gatewayCpu(b))} / ${f0(gatewayCpu(s))} (${f0(floorCpu(s))}) | ${f2(addedP50(b))} / ${f2(addedP50(s))} |`,
  );
}
