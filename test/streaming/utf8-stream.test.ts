/**
 * The pump's UTF-8 decoder decodes whole chunks where it can; however the bytes are cut, it must give
 * what the WHATWG Encoding spec says a streaming decoder gives: the same text as decoding all the
 * bytes at once (one leading byte-order mark dropped, a cut end as U+FFFD). The reference is that
 * one-shot decode, not the platform's streaming TextDecoder: on Node 24 and 26 that one drops a
 * second BOM when the first arrives cut across chunks (`EF BB | BF EF BB BF` gives '' instead of
 * U+FEFF), so it disagrees with the spec and with Node 20.
 */
import { describe, expect, it } from 'vitest';
import { utf8Stream } from '../../src/wire/utf8-stream.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** The spec's answer: every byte decoded at once (streaming must not change the text). */
function reference(chunks: Uint8Array[]): string {
  const all = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return new TextDecoder().decode(all);
}

function ours(chunks: Uint8Array[]): string {
  const d = utf8Stream();
  return chunks.map((c) => d.decode(c)).join('') + d.end();
}

const random = seededRandom;

const PIECES = ['data: ', 'héllo', ' 😀', '\n\n', '\uFEFF', '→', 'a', '€uro', '\n'];

describe('utf8Stream', () => {
  it('matches a one-shot decode on random text cut at random bytes (BOMs, cut characters, a cut end)', () => {
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

  it('keeps a second BOM when the first is cut across chunks (one BOM dropped, as the spec says, on every Node)', () => {
    const three = new TextEncoder().encode('\uFEFF\uFEFF\uFEFFa');
    for (const cut of [1, 2, 3, 4, 5]) {
      expect(ours([three.slice(0, cut), three.slice(cut)]), `cut at ${cut}`).toBe('\uFEFF\uFEFFa');
    }
    expect(ours([...three].map((b) => Uint8Array.of(b)))).toBe('\uFEFF\uFEFFa');
    expect(new TextDecoder().decode(three)).toBe('\uFEFF\uFEFFa');
  });
});
