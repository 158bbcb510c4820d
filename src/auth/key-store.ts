import type { KeyConfig } from '../config/schema.js';
import type { Principal } from './principal.js';
import { Sha256 } from './sha256.js';

const encoder = new TextEncoder();

/**
 * Hashes presented tokens to digest words: a SHA-256 hasher and a buffer reused for ASCII tokens
 * (all real ones: TextEncoder.encode costs more than the hash itself). Each key store owns one,
 * so two gateways in one process share no buffer.
 */
export class TokenHasher {
  private readonly sha = new Sha256();
  private readonly ascii = new Uint8Array(256);

  /** The digest words of `text`'s UTF-8 bytes, in this hasher's buffer (read before its next call). */
  digest(text: string): Int32Array {
    const ascii = this.ascii;
    const n = text.length;
    if (n > ascii.length) return this.bytes(encoder.encode(text));
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      if (c > 0x7f) {
        ascii.fill(0, 0, i);
        return this.bytes(encoder.encode(text));
      }
      ascii[i] = c;
    }
    const digest = this.sha.words(ascii, n);
    ascii.fill(0, 0, n);
    return digest;
  }

  private bytes(bytes: Uint8Array): Int32Array {
    return this.sha.words(bytes, bytes.length);
  }
}

/** The map key of a digest: 30 of its bits, a small integer (no string per lookup); the full digest confirms. */
export function keyOf(w: Int32Array): number {
  return (w[0] as number) & 0x3fffffff;
}

/** Constant-time comparison of two equal-length arrays of integers (digest bytes or words). */
export function timingSafeEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

interface StoredKey {
  digest: Int32Array;
  principal: Principal;
}

/**
 * Platform keys, kept only as SHA-256 digests. A lookup hashes the presented token, finds the
 * candidate by digest and confirms it with a constant-time comparison, so neither the timing nor
 * the memory holds the key text.
 */
export class KeyStore {
  /** Digests that share those 30 bits share a bucket (rare), each one confirmed in full. */
  private readonly byDigest = new Map<number, StoredKey[]>();
  private readonly hasher = new TokenHasher();

  constructor(keys: readonly KeyConfig[]) {
    for (const k of keys) {
      if (k.disabled) continue;
      const digest = this.hasher.digest(k.key).slice();
      const principal: Principal = { id: k.id, models: k.models, ...(k.limits ? { limits: k.limits } : {}), ...(k.providerKeys ? { providerKeys: k.providerKeys } : {}), ...(k.cache ? { cache: k.cache } : {}) };
      const bucket = this.byDigest.get(keyOf(digest)) ?? [];
      // The same key text twice: the later entry wins.
      const same = bucket.findIndex((stored) => timingSafeEqual(stored.digest, digest));
      if (same < 0) bucket.push({ digest, principal });
      else bucket[same] = { digest, principal };
      this.byDigest.set(keyOf(digest), bucket);
    }
  }

  async lookup(token: string): Promise<Principal | undefined> {
    return this.lookupSync(token);
  }

  lookupSync(token: string): Principal | undefined {
    // No keys (the server's store holds them all): nothing to hash the token for (1.2 us a request).
    if (this.byDigest.size === 0) return undefined;
    const digest = this.hasher.digest(token);
    const bucket = this.byDigest.get(keyOf(digest));
    if (!bucket) return undefined;
    for (let i = 0; i < bucket.length; i++) {
      const stored = bucket[i] as StoredKey;
      if (timingSafeEqual(stored.digest, digest)) return stored.principal;
    }
    return undefined;
  }
}
