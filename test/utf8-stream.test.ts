/** The pump's UTF-8 decoder decodes whole chunks where it can; it must give what one streaming TextDecoder gives, however the bytes are cut. */
import { describe, expect, it } from 'vitest';
import { utf8Stream } from '../src/http/utf8-stream.js';
import { seededRandom } from './helpers/seeded-random.js';

function reference(chunks: Uint8Array[]): string {
  const d = new TextDecoder();
  return chunks.map((c) => d.decode(c, { stream: true })).join('') + d.decode();
}

function ours(chunks: Uint8Array[]): string {
  const d = utf8Stream();
  return chunks.map((c) => d.decode(c)).join('') + d.end();
}

const random = seededRandom;

const PIECES = ['data: ', 'héllo', ' 😀', '\n\n', '\uFEFF', '→', 'a', '€uro', '\n'];

describe('utf8Stream', () => {
  it('matches a streaming TextDecoder on random text cut at random bytes (BOM, cut characters, a cut end)', () => {
    const rnd = random(3);
    for (let round = 0; round < 500; round++) {
      let text = rnd() < 0.3 ? '\uFEFF' : '';
      for (let i = 0, n = 1 + Math.floor(rnd() * 30); i < n; i++) text += PIECES[Math.floor(rnd() * PIECES.length)] as string;
      let bytes = new TextEncoder().encode(text);
      if (rnd() < 0.2) bytes = bytes.slice(0, bytes.length - 1); // may end inside a character
      const chunks: Uint8Array[] = [];
      for (let i = 0; i < bytes.length; ) {
        const n = Math.floor(rnd() * 9); // empty chunks too
        chunks.push(bytes.slice(i, i + n));
        i += n;
      }
      expect(ours(chunks), JSON.stringify(text)).toBe(reference(chunks));
    }
  });

  it('drops a byte-order mark only at the start, also when it arrives in pieces', () => {
    const bom = new TextEncoder().encode('\uFEFF');
    expect(ours([bom.slice(0, 2), bom.slice(2), new TextEncoder().encode('a\n'), bom, new TextEncoder().encode('\n')])).toBe('a\n\uFEFF\n');
  });
});
