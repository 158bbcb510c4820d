/**
 * The console stays small: every file it ships (the page, the bundle of Preact, uPlot and the pages,
 * the stylesheet, the icon), gzip-compressed as the core serves them, adds up to under 200 KB.
 */
import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ASSETS } from '../../src/console/assets.generated.js';

const BUDGET = 200 * 1024;

describe('console size', () => {
  it(`ships under ${BUDGET / 1024} KB compressed`, () => {
    const sizes = CONSOLE_ASSETS.map((a) => ({ path: a.path || 'index.html', raw: Buffer.byteLength(a.body), gzip: gzipSync(a.body, { level: 6 }).length }));
    const total = sizes.reduce((s, a) => s + a.gzip, 0);
    console.log(`console assets: ${sizes.map((s) => `${s.path} ${s.raw} B (${s.gzip} B gzip)`).join(', ')}; total ${total} B gzip`);
    expect(sizes.map((s) => s.path.replace(/-[0-9a-f]{12}\./, '-HASH.')).sort()).toEqual(['assets/app-HASH.css', 'assets/app-HASH.js', 'assets/icon.svg', 'index.html']);
    expect(sizes.every((s) => s.gzip > 0)).toBe(true);
    expect(total).toBeLessThan(BUDGET);
  });
});
