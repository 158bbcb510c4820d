import type { KeyConfig } from '../config/schema.js';
import type { Principal } from './principal.js';
import { sha256 } from './sha256.js';

const encoder = new TextEncoder();
/** Reused for ASCII tokens (all real ones): TextEncoder.encode costs more than the hash itself. */
const ascii = new Uint8Array(256);

function digestOf(text: string): Uint8Array {
  const n = text.length;
  if (n > ascii.length) return sha256(encoder.encode(text));
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x7f) return sha256(encoder.encode(text));
    ascii[i] = c;
  }
  const digest = sha256(ascii.subarray(0, n));
  ascii.fill(0, 0, n);
  return digest;
}

/** The map key of a digest: its 32 bytes as 16 UTF-16 code units (cheaper to build than hex). */
function keyOf(digest: Uint8Array): string {
  let out = '';
  for (let i = 0; i < digest.length; i += 2) out += String.fromCharCode(((digest[i] as number) << 8) | (digest[i + 1] as number));
  return out;
}

/** Constant-time comparison of two equal-length byte arrays. */
export function timingSafeEqual(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= (a[i] as number) ^ (b[i] as number);
  return diff === 0;
}

interface StoredKey {
  digest: Uint8Array;
  principal: Principal;
}

/**
 * Platform keys, kept only as SHA-256 digests. A lookup hashes the presented token, finds the
 * candidate by digest and confirms it with a constant-time comparison, so neither the timing nor
 * the memory holds the key text.
 */
export class KeyStore {
  private readonly byDigest = new Map<string, StoredKey>();

  constructor(keys: readonly KeyConfig[]) {
    for (const k of keys) {
      if (k.disabled) continue;
      const digest = digestOf(k.key);
      const principal: Principal = { id: k.id, models: k.models, ...(k.limits ? { limits: k.limits } : {}), ...(k.providerKeys ? { providerKeys: k.providerKeys } : {}) };
      this.byDigest.set(keyOf(digest), { digest, principal });
    }
  }

  async lookup(token: string): Promise<Principal | undefined> {
    const digest = digestOf(token);
    const found = this.byDigest.get(keyOf(digest));
    if (!found || !timingSafeEqual(found.digest, digest)) return undefined;
    return found.principal;
  }
}
