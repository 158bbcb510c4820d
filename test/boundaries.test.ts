/**
 * The layout's rules, checked on every `npm test`: the core (`src/`) uses Web standards only, so
 * it runs on Node, Bun, Deno and Workers alike. It may not import `node:*` or Node's built-in
 * modules, undici, ioredis, Express or Koa, nor anything from `node/` or `adapters/`. Inside it,
 * a protocol's two sides stay apart (`protocols/<p>/client/` never imports `protocols/<p>/upstream/`
 * and the other way round; what both need lives beside them or in `protocols/shared/`), and no
 * protocol imports an endpoint. Host adapters (`adapters/`) reach the core only through its public
 * exports (`src/index.ts`) and the host-support module (`src/gateway/bridge.ts`), never its internals.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, relative, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
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
