/**
 * Compiles the child processes (mock upstream, floor, gateway, Bun host) and all of src/, adapters/ and node/ to
 * plain JavaScript, file by file without type checking (like `npm run build` minus the checks,
 * so work in progress elsewhere in the tree cannot block a run). The children then run on plain
 * node, as `npm start` does, without a TypeScript loader in the process being measured.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import ts from 'typescript';

export const CHILD_ENTRIES = ['bench/mock-upstream.ts', 'bench/floor-proxy.ts', 'bench/gateway-server.ts', 'bench/host-bun.ts'];
const CHILD_SUPPORT = ['bench/child-ipc.ts', 'bench/control-store.ts', 'bench/settings.ts', 'bench/scenarios.ts', 'bench/micro.ts', 'bench/floor-variants.ts', 'bench/micro-heap.ts'];

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) return walk(p);
    return p.endsWith('.ts') && !p.endsWith('.d.ts') && !p.endsWith('.test.ts') ? [p] : [];
  });
}

/**
 * Writes `<outDir>/<same relative path>.js` for every source; returns the number of files.
 * `sourceRoot` (default: the repo) supplies src/, adapters/ and node/, e.g. a `git archive` snapshot to
 * measure another revision with the same harness.
 */
export function buildChildren(root: string, outDir: string, sourceRoot = root): number {
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const sources = ['src', 'adapters', 'node'].flatMap((dir) => walk(join(sourceRoot, dir))).map((file) => ({ file, base: sourceRoot }));
  const bench = [...CHILD_ENTRIES, ...CHILD_SUPPORT].map((f) => ({ file: join(root, f), base: root }));
  const files = [...sources, ...bench];
  for (const { file, base } of files) {
    const out = ts.transpileModule(readFileSync(file, 'utf8'), {
      fileName: file,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, sourceMap: false, removeComments: false },
    });
    const dest = join(outDir, relative(base, file)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(dest), { recursive: true });
    writeFileSync(dest, out.outputText);
  }
  // ESM like the repo, and its node_modules for undici/zod/eventsource-parser.
  writeFileSync(join(outDir, 'package.json'), '{"type":"module"}\n');
  symlinkSync(join(root, 'node_modules'), join(outDir, 'node_modules'), 'dir');
  return files.length;
}
