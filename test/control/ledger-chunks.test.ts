/** The ledger's INSERT sizes: 100 rows, then powers of two, so a few prepared statements serve every batch. */
import { describe, expect, it } from 'vitest';
import { chunkSize } from '../../src/control/ledger/sql-ledger-store.js';

function chunks(n: number): number[] {
  const sizes: number[] = [];
  for (let left = n; left > 0; left -= sizes[sizes.length - 1] as number) sizes.push(chunkSize(left));
  return sizes;
}

describe('ledger insert chunks', () => {
  it('splits a batch into 100-row chunks and powers of two, covering every row once', () => {
    expect(chunks(500)).toEqual([100, 100, 100, 100, 100]);
    expect(chunks(237)).toEqual([100, 100, 32, 4, 1]);
    expect(chunks(1)).toEqual([1]);
    expect(chunks(99)).toEqual([64, 32, 2, 1]);
    const shapes = new Set<number>();
    for (let n = 1; n <= 1000; n++) {
      const c = chunks(n);
      expect(c.reduce((a, b) => a + b, 0)).toBe(n);
      for (const size of c) shapes.add(size);
    }
    expect([...shapes].sort((a, b) => a - b)).toEqual([1, 2, 4, 8, 16, 32, 64, 100]);
  });
});
