/** readStringLiteral answers as JSON.parse does for any text between two quotes, sliced or parsed. */
import { describe, expect, it } from 'vitest';
import { readStringLiteral } from '../../../src/protocols/shared/json.js';
import { seededRandom } from '../../helpers/seeded-random.js';

function viaParse(literal: string): string | undefined {
  try {
    const v = JSON.parse(literal) as unknown;
    return typeof v === 'string' ? v : undefined;
  } catch {
    return undefined;
  }
}

describe('readStringLiteral', () => {
  it('gives what JSON.parse gives, over random literals', () => {
    const random = seededRandom(4242);
    const pieces = ['a', ' ', '"', '\\', '\\"', '\\n', '\\u00e9', '\\x', '\n', '\u0001', '\u00e9', '\ud83d', '\ude00', '}', 'é'];
    let sliced = 0;
    for (let i = 0; i < 5000; i++) {
      let inner = '';
      const n = Math.floor(random() * 6);
      for (let k = 0; k < n; k++) inner += pieces[Math.floor(random() * (i % 3 === 0 ? 1 : pieces.length))] as string;
      const literal = random() < 0.05 ? inner : `"${inner}"`;
      const text = `xx${literal}yy`;
      const got = readStringLiteral(text, 2, 2 + literal.length);
      expect(got, literal).toBe(viaParse(literal));
      if (got !== undefined && !literal.includes('\\')) sliced++;
    }
    expect(sliced).toBeGreaterThan(1000);
  });

  it('refuses what is no literal', () => {
    expect(readStringLiteral('"a"', 0, 1)).toBeUndefined();
    expect(readStringLiteral('a"b"', 0, 4)).toBeUndefined();
    expect(readStringLiteral('"a"},"x":{"y":"b"', 0, 17)).toBeUndefined();
  });
});
