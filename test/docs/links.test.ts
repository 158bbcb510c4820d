/**
 * Every relative link in README.md and docs/ resolves: the file (or folder) exists, and an
 * `#anchor` names a heading of the target page by GitHub's slug rules (github-slugger, counting
 * repeated headings as -1, -2, ...). Links are read with marked's lexer, so code blocks and inline
 * code never count as links.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import GithubSlugger from 'github-slugger';
import { marked, type Token, type Tokens } from 'marked';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** What the checker reads: page text by repository-relative path, and whether a path exists. */
export interface DocTree {
  read(path: string): string | undefined;
  exists(path: string): boolean;
}

function plainText(tokens: Token[] | undefined): string {
  return (tokens ?? [])
    .map((t) => {
      const nested = (t as { tokens?: Token[] }).tokens;
      if (nested && nested.length > 0) return plainText(nested);
      return 'text' in t && typeof t.text === 'string' ? t.text : '';
    })
    .join('');
}

/** The slugs of a page's headings, as GitHub writes the anchors. */
export function headingSlugs(markdown: string): Set<string> {
  const slugger = new GithubSlugger();
  const slugs = new Set<string>();
  marked.walkTokens(marked.lexer(markdown), (t) => {
    if (t.type === 'heading') slugs.add(slugger.slug(plainText((t as Tokens.Heading).tokens)));
  });
  return slugs;
}

/** Every link target of a page (links and images), code excluded. */
export function linkTargets(markdown: string): string[] {
  const out: string[] = [];
  marked.walkTokens(marked.lexer(markdown), (t) => {
    if (t.type === 'link' || t.type === 'image') out.push((t as Tokens.Link).href);
  });
  return out;
}

/** The relative links of `pages` that do not resolve, as `page: target (why)`. */
export function brokenLinks(pages: string[], tree: DocTree): string[] {
  const broken: string[] = [];
  for (const page of pages) {
    const text = tree.read(page);
    if (text === undefined) {
      broken.push(`${page}: page not found`);
      continue;
    }
    for (const href of linkTargets(text)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(href) || href.startsWith('//')) continue; // http:, mailto:, ...
      const [rawPath = '', anchor] = href.split('#', 2);
      const path = rawPath === '' ? page : normalize(join(dirname(page), decodeURIComponent(rawPath))).split('\\').join('/');
      if (path.startsWith('..') || !tree.exists(path)) {
        broken.push(`${page}: ${href} (no file ${path})`);
        continue;
      }
      if (anchor === undefined) continue;
      const target = path.endsWith('.md') ? tree.read(path) : undefined;
      if (target === undefined) broken.push(`${page}: ${href} (an anchor into ${path}, which is not a markdown page)`);
      else if (!headingSlugs(target).has(anchor)) broken.push(`${page}: ${href} (no heading #${anchor} in ${path})`);
    }
  }
  return broken;
}

function markdownFiles(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const p = `${dir}/${e.name}`;
    if (e.isDirectory()) return markdownFiles(p);
    return e.name.endsWith('.md') ? [p] : [];
  });
}

const repoTree: DocTree = {
  read: (path) => (existsSync(join(ROOT, path)) ? readFileSync(join(ROOT, path), 'utf8') : undefined),
  exists: (path) => existsSync(join(ROOT, path)),
};

function memoryTree(pages: Record<string, string>, otherFiles: string[] = []): DocTree {
  return {
    read: (path) => pages[path],
    exists: (path) => path in pages || otherFiles.includes(path) || Object.keys(pages).some((p) => p.startsWith(`${path}/`)),
  };
}

describe('documentation links', () => {
  it('every relative link and anchor in README.md and docs/ resolves', () => {
    const pages = ['README.md', ...markdownFiles('docs')];
    expect(pages).toContain('docs/README.md');
    expect(pages.length).toBeGreaterThan(10);
    expect(brokenLinks(pages, repoTree)).toEqual([]);
  });

  it('slugs headings the way GitHub does', () => {
    const slugs = headingSlugs(
      [
        '# Limits, budgets and cost',
        "## Gemini's OpenAI-compatible routes",
        '## The admin API (`/admin/v1`)',
        '## Notes',
        '## Notes',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    );
    expect([...slugs]).toEqual(['limits-budgets-and-cost', 'geminis-openai-compatible-routes', 'the-admin-api-adminv1', 'notes', 'notes-1']);
  });

  it('reports a planted missing file, a missing anchor and an anchor into a non-page', () => {
    const tree = memoryTree(
      {
        'README.md': [
          '# Top',
          'See [limits](docs/limits.md#cost), [gone](docs/gone.md), [bad anchor](docs/limits.md#nope),',
          '[self](#top), [self bad](#bottom), [code](src/index.ts#L1), [web](https://example.com/x#y).',
          '`[not a link](nowhere.md)` and',
          '```',
          '[also not](nowhere.md)',
          '```',
        ].join('\n'),
        'docs/limits.md': '# Limits\n\n## Cost\n\nBack to the [README](../README.md#top); [outside](../../x.md).',
      },
      ['src/index.ts'],
    );
    expect(brokenLinks(['README.md', 'docs/limits.md'], tree)).toEqual([
      'README.md: docs/gone.md (no file docs/gone.md)',
      'README.md: docs/limits.md#nope (no heading #nope in docs/limits.md)',
      'README.md: #bottom (no heading #bottom in README.md)',
      'README.md: src/index.ts#L1 (an anchor into src/index.ts, which is not a markdown page)',
      'docs/limits.md: ../../x.md (no file ../x.md)',
    ]);
  });
});
