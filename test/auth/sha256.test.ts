import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyStore, TokenHasher } from '../../src/auth/key-store.js';
import { Sha256, sha256 } from '../../src/auth/sha256.js';

const hasher = new Sha256();
const sha256Words = (data: Uint8Array, len: number) => hasher.words(data, len);

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const utf8 = (s: string) => new TextEncoder().encode(s);

describe('sha256 (plain JS, used by the key store)', () => {
  it('matches the FIPS 180-4 test vectors', () => {
    expect(hex(sha256(utf8('')))).toBe('e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855');
    expect(hex(sha256(utf8('abc')))).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
    expect(hex(sha256(utf8('abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq')))).toBe(
      '248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1',
    );
    expect(hex(sha256(utf8('a'.repeat(1_000_000))))).toBe('cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0');
  });

  it('matches node:crypto for every length across the padding boundaries', () => {
    for (let n = 0; n <= 200; n++) {
      const data = randomBytes(n);
      expect(hex(sha256(data)), `length ${n}`).toBe(createHash('sha256').update(data).digest('hex'));
    }
  });

  it('hashes a prefix of a buffer into words (as the key store does)', () => {
    const data = randomBytes(300);
    for (const n of [0, 1, 55, 56, 63, 64, 119, 120, 200, 300]) {
      const words = sha256Words(data, n);
      const bytes = Buffer.alloc(32);
      words.forEach((w, i) => bytes.writeInt32BE(w, i * 4));
      expect(bytes.toString('hex'), `length ${n}`).toBe(createHash('sha256').update(data.subarray(0, n)).digest('hex'));
    }
  });

  it('hashes the UTF-8 bytes of non-ASCII keys', () => {
    const key = 'clé-secrète-🔑-0123456789';
    expect(hex(sha256(utf8(key)))).toBe(createHash('sha256').update(key, 'utf8').digest('hex'));
  });

  it('lets the key store find exactly the configured keys', async () => {
    const store = new KeyStore([
      { id: 'a', key: 'sk-one-0123456789', models: ['*'] },
      { id: 'b', key: 'sk-two-0123456789', models: ['gpt-*'] },
      { id: 'c', key: 'sk-off-0123456789', models: ['*'], disabled: true },
    ]);
    expect(await store.lookup('sk-one-0123456789')).toEqual({ id: 'a', models: ['*'] });
    expect(await store.lookup('sk-two-0123456789')).toEqual({ id: 'b', models: ['gpt-*'] });
    expect(await store.lookup('sk-off-0123456789')).toBeUndefined();
    expect(await store.lookup('sk-one-012345678')).toBeUndefined();
    expect(await store.lookup('')).toBeUndefined();
  });

  it('finds non-ASCII, long and back-to-back keys (the reused ASCII buffer leaves nothing behind)', async () => {
    const long = `sk-${'x'.repeat(300)}`;
    const store = new KeyStore([
      { id: 'u', key: 'clé-secrète-🔑-0123456789', models: ['*'] },
      { id: 'l', key: long, models: ['*'] },
      { id: 's', key: 'sk-ab', models: ['*'] },
    ]);
    expect(await store.lookup('clé-secrète-🔑-0123456789')).toEqual({ id: 'u', models: ['*'] });
    expect(await store.lookup(long)).toEqual({ id: 'l', models: ['*'] });
    expect(await store.lookup(long.slice(0, -1))).toBeUndefined();
    // A longer token first, then a prefix of it: the prefix must not be read with the old tail.
    expect(await store.lookup('sk-abcdef')).toBeUndefined();
    expect(await store.lookup('sk-ab')).toEqual({ id: 's', models: ['*'] });
    expect(await store.lookup('sk-a')).toBeUndefined();
  });

  it('tells apart keys whose digests share the bits the store indexes by, and lets a repeated key text resolve to its last entry', async () => {
    // Found by search: the first 30 bits of their SHA-256 digests are equal.
    const [a, b] = ['sk-collide-16658', 'sk-collide-24902'];
    expect(sha256Words(utf8(a), a.length)[0]! & 0x3fffffff).toBe(sha256Words(utf8(b), b.length)[0]! & 0x3fffffff);
    const store = new KeyStore([
      { id: 'a', key: a, models: ['*'] },
      { id: 'b', key: b, models: ['*'] },
      { id: 'b2', key: b, models: ['x'] },
    ]);
    expect(await store.lookup(a)).toEqual({ id: 'a', models: ['*'] });
    expect(await store.lookup(b)).toEqual({ id: 'b2', models: ['x'] });
    expect(await store.lookup('sk-collide-1')).toBeUndefined();
  });

  it('gives each hasher its own buffers: a digest read later is not overwritten by another hasher', () => {
    const [one, two] = [new Sha256(), new Sha256()];
    const a = one.words(utf8('sk-first-0123456789'), 19);
    two.words(utf8('sk-second-0123456789'), 20);
    expect(Buffer.from(new Int32Array(a).buffer).swap32().toString('hex')).toBe(createHash('sha256').update('sk-first-0123456789').digest('hex'));
    const [x, y] = [new TokenHasher(), new TokenHasher()];
    const dx = x.digest('sk-first-0123456789');
    y.digest('sk-second-0123456789');
    expect([...dx]).toEqual([...a]);
  });
});
