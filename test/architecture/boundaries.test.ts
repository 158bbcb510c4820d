/**
 * The layout's rules, checked on every `npm test`: the core (`src/`) uses Web standards only, so
 * it runs on Node, Bun, Deno and Workers alike. It may not import `node:*` or Node's built-in
 * modules, undici, ioredis, Express or Koa, nor anything from `node/` or `adapters/`. Inside it,
 * a protocol's two sides stay apart (`protocols/<p>/client/` never imports `protocols/<p>/upstream/`
 * and the other way round; what both need lives beside them or in `protocols/shared/`), and no
 * protocol imports an endpoint. Host adapters (`adapters/`) reach the core only through its public
 * exports (`src/index.ts`) and the bridge module (`src/gateway/bridge.ts`), never its internals.
 *
 * Imports point one way: down the layer table (LAYERS, also in docs/architecture.md), never up,
 * and no file reaches itself through its imports (no cycle), in src/, adapters/ and node/.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FORBIDDEN_PACKAGES = new Set(['undici', 'ioredis', 'express', 'koa', ...builtinModules]);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return tsFiles(p);
    return e.name.endsWith('.ts') ? [p] : [];
  });
}

/** Every module specifier of a file: static imports, re-exports, `import type`, dynamic `import()`. */
export function importsOf(source: string): string[] {
  const specs: string[] = [];
  const re = /(?:^|[\s;])(?:import|export)\s[^'";]*?from\s*['"]([^'"]+)['"]|(?:^|[\s;])import\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/gm;
  for (const m of source.matchAll(re)) specs.push((m[1] ?? m[2] ?? m[3]) as string);
  return specs;
}

function coreViolations(file: string): string[] {
  const out: string[] = [];
  for (const spec of importsOf(readFileSync(file, 'utf8'))) {
    const bare = spec.split('/')[0] as string;
    if (spec.startsWith('node:') || (!spec.startsWith('.') && FORBIDDEN_PACKAGES.has(bare))) {
      out.push(`${relative(ROOT, file)} imports ${spec}`);
      continue;
    }
    if (spec.startsWith('.')) {
      const target = relative(join(ROOT, 'src'), resolve(dirname(file), spec));
      if (target.startsWith('..')) out.push(`${relative(ROOT, file)} imports ${spec} (outside src/)`);
    }
  }
  return out;
}

/** The core modules an adapter may import. */
const ADAPTER_CORE_ENTRIES = new Set(['src/index.ts', 'src/gateway/bridge.ts']);

function adapterViolations(file: string, source = readFileSync(file, 'utf8')): string[] {
  const out: string[] = [];
  for (const spec of importsOf(source)) {
    if (!spec.startsWith('.')) continue;
    const target = relative(ROOT, resolve(dirname(file), spec)).replace(/\.js$/, '.ts');
    if (target.startsWith('src/') && !ADAPTER_CORE_ENTRIES.has(target)) out.push(`${relative(ROOT, file)} imports ${spec} (a core internal; use src/index.ts or src/gateway/bridge.ts)`);
  }
  return out;
}

/** Imports of one src/protocols file that cross its protocol's sides or reach into endpoints/. */
export function protocolViolations(fromSrc: string, specs: string[]): string[] {
  const out: string[] = [];
  const side = /^protocols\/([^/]+)\/(client|upstream)\//.exec(fromSrc);
  for (const spec of specs) {
    if (!spec.startsWith('.')) continue;
    const target = join(dirname(fromSrc), spec).split('\\').join('/');
    if (target.startsWith('endpoints/')) out.push(`${fromSrc} imports ${spec} (protocols never import endpoints)`);
    if (side) {
      const other = side[2] === 'client' ? 'upstream' : 'client';
      if (target.startsWith(`protocols/${side[1]}/${other}/`)) out.push(`${fromSrc} imports ${spec} (${side[2]}/ never imports ${other}/)`);
    }
  }
  return out;
}

describe('layout boundaries', () => {
  it('the import scanner sees every kind of import', () => {
    const sample = `import a from 'node:fs';\nimport type { B } from "undici";\nexport { c } from '../adapters/x.js';\nimport './side.js';\nconst d = await import('ioredis');`;
    expect(importsOf(sample)).toEqual(['node:fs', 'undici', '../adapters/x.js', './side.js', 'ioredis']);
  });

  it('src/ imports no Node built-in, undici, ioredis, Express, Koa, node/ or adapters/', () => {
    const files = tsFiles(join(ROOT, 'src'));
    expect(files.length).toBeGreaterThan(50);
    expect(files.flatMap(coreViolations)).toEqual([]);
  });

  it('adapters/ import the core only through src/index.ts and src/gateway/bridge.ts', () => {
    const files = tsFiles(join(ROOT, 'adapters'));
    expect(files.length).toBeGreaterThan(3);
    expect(files.flatMap((f) => adapterViolations(f))).toEqual([]);
  });

  it('the adapter rule catches an internal import and lets the entries, node/ and packages through', () => {
    const sample = `import { createGateway } from '../src/index.js';\nimport { Reply } from '../src/gateway/bridge.js';\nimport { tooLarge } from '../src/request/body.js';\nimport { createUndiciFetch } from '../node/upstream-fetch.js';\nimport { createServer } from 'node:http';`;
    expect(adapterViolations(join(ROOT, 'adapters', 'sample.ts'), sample)).toEqual([
      'adapters/sample.ts imports ../src/request/body.js (a core internal; use src/index.ts or src/gateway/bridge.ts)',
    ]);
  });

  it('the protocol rule sees a crossed side and an endpoint import', () => {
    expect(protocolViolations('protocols/gemini/client/encode-response.ts', ['../upstream/usage.js', '../gemini-api.js', '../../shared/zod-error.js'])).toEqual([
      'protocols/gemini/client/encode-response.ts imports ../upstream/usage.js (client/ never imports upstream/)',
    ]);
    expect(protocolViolations('protocols/openai-chat/upstream/x.ts', ['../client/y.js', '../../gemini/client/z.js'])).toEqual([
      'protocols/openai-chat/upstream/x.ts imports ../client/y.js (upstream/ never imports client/)',
    ]);
    expect(protocolViolations('protocols/images/passthrough.ts', ['../../endpoints/common.js'])).toEqual([
      'protocols/images/passthrough.ts imports ../../endpoints/common.js (protocols never import endpoints)',
    ]);
  });

  it("a protocol's client/ and upstream/ never import each other, and protocols never import endpoints/", () => {
    const src = join(ROOT, 'src');
    const files = tsFiles(join(src, 'protocols'));
    expect(files.some((f) => f.includes('/client/'))).toBe(true);
    const found = files.flatMap((f) => protocolViolations(relative(src, f).split('\\').join('/'), importsOf(readFileSync(f, 'utf8'))));
    expect(found).toEqual([]);
  });
});

/**
 * The layers, top to bottom (docs/architecture.md, "Layers"). A module imports modules of its own
 * row or of rows below it, never of a row above; a path belongs to the row of its longest prefix.
 */
export const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: 'node programs', paths: ['node/'] }, // the CLI, the `modelgate/node` entry, undici, Redis, databases
  { name: 'host bridges', paths: ['adapters/'] }, // native req/res <-> Request/Response
  { name: 'gateway', paths: ['src/index.ts', 'src/gateway/'] }, // the public API, createGateway, the bridge interface
  { name: 'endpoints', paths: ['src/endpoints/', 'src/control/admin/', 'src/console/'] }, // one thin file per entry point, the pipelines, the admin API, the console's routes
  { name: 'state', paths: ['src/control/', 'src/conversations/', 'src/tasks/', 'src/cache/'] }, // what outlives a request
  { name: 'request', paths: ['src/request/', 'src/routing/', 'src/limits/', 'src/auth/'] }, // the request, which upstream, whether allowed
  { name: 'vendors', paths: ['src/providers/'] }, // one folder per vendor: URLs, credentials, capabilities, its video API
  { name: 'upstream', paths: ['src/upstream/', 'src/observability/'] }, // calling and watching an upstream
  { name: 'formats', paths: ['src/protocols/'] }, // wire formats: one folder per protocol
  { name: 'base', paths: ['src/ir/', 'src/wire/', 'src/reply/', 'src/config/', 'src/core/'] }, // types and plain functions
];

/** The row of a repository path (0 = top), or undefined when no row holds it. */
export function layerOf(path: string, layers = LAYERS): number | undefined {
  let best: { row: number; len: number } | undefined;
  layers.forEach((l, row) => {
    for (const p of l.paths) if ((path === p || (p.endsWith('/') && path.startsWith(p))) && p.length > (best?.len ?? -1)) best = { row, len: p.length };
  });
  return best?.row;
}

/** Module graph: repository path -> the repository paths it imports (relative imports only, `.js` read as `.ts`). */
export type ImportGraph = ReadonlyMap<string, readonly string[]>;

export function importGraph(dirs: readonly string[]): ImportGraph {
  const graph = new Map<string, string[]>();
  for (const file of dirs.flatMap((d) => tsFiles(join(ROOT, d)))) {
    const targets = importsOf(readFileSync(file, 'utf8'))
      .filter((s) => s.startsWith('.'))
      .map((s) => relative(ROOT, resolve(dirname(file), s)).split('\\').join('/').replace(/\.js$/, '.ts'));
    graph.set(relative(ROOT, file).split('\\').join('/'), [...new Set(targets)]);
  }
  return graph;
}

/** Every upward import (a module importing one of a row above its own), and every module no row holds. */
export function upwardImports(graph: ImportGraph, layers = LAYERS): string[] {
  const out: string[] = [];
  for (const [from, targets] of graph) {
    const fromRow = layerOf(from, layers);
    if (fromRow === undefined) {
      out.push(`${from} is in no layer`);
      continue;
    }
    for (const to of targets) {
      const toRow = layerOf(to, layers);
      if (toRow === undefined) out.push(`${from} imports ${to}, which is in no layer`);
      else if (toRow < fromRow) out.push(`${from} (${layers[fromRow]?.name}) imports ${to} (${layers[toRow]?.name}, above it)`);
    }
  }
  return out;
}

/** Every import cycle, as the files of each strongly connected component (Tarjan), sorted. */
export function importCycles(graph: ImportGraph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

describe('one direction of imports', () => {
  const graph = importGraph(['src', 'adapters', 'node']);

  it('the checker sees a planted upward import, a module outside the table and a cycle', () => {
    const planted: ImportGraph = new Map([
      ['src/core/errors.ts', ['src/endpoints/common.ts']],
      ['src/endpoints/common.ts', ['src/core/errors.ts', 'src/upstream/call.ts']],
      ['src/upstream/call.ts', ['src/providers/types.ts']],
      ['src/providers/types.ts', ['src/upstream/call.ts']],
      ['src/loose.ts', []],
      ['node/cli.ts', ['adapters/node.ts']],
      ['adapters/node.ts', ['src/index.ts']],
      ['src/index.ts', []],
    ]);
    expect(upwardImports(planted)).toEqual([
      'src/core/errors.ts (base) imports src/endpoints/common.ts (endpoints, above it)',
      'src/upstream/call.ts (upstream) imports src/providers/types.ts (vendors, above it)',
      'src/loose.ts is in no layer',
    ]);
    expect(importCycles(planted)).toEqual([['src/providers/types.ts', 'src/upstream/call.ts'], ['src/core/errors.ts', 'src/endpoints/common.ts']]);
    expect(layerOf('src/gateway/gateway.ts')).toBe(2);
    expect(layerOf('src/protocols/openai-chat/client/x.ts')).toBe(8);
    expect(layerOf('src/control/admin/keys-routes.ts')).toBe(3);
    expect(layerOf('src/control/keys/key-service.ts')).toBe(4);
  });

  it('the graph covers src/, adapters/ and node/', () => {
    expect(graph.size).toBeGreaterThan(300);
    expect(graph.get('node/cli.ts')).toContain('adapters/node-serve.ts');
  });

  it('no module imports from a layer above its own', () => {
    expect(upwardImports(graph)).toEqual([]);
  });

  it('no import cycle in src/, adapters/ or node/', () => {
    expect(importCycles(graph)).toEqual([]);
  });
});
