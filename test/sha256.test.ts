import { createHash, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyStore } from '../src/auth/key-store.js';
import { sha256 } from '../src/auth/sha256.js';

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
});
