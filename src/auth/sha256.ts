/**
 * SHA-256 (FIPS 180-4) in plain JavaScript, synchronous. The key store hashes every presented
 * token; crypto.subtle.digest is asynchronous and, on Node, costs a thread-pool round trip per
 * call (about 100 µs), while hashing a ~50-byte token here takes under a µs. No branches depend on
 * the data, so the time depends only on the input length.
 *
 * Kept hand-written by measurement (DESIGN rule 14): @noble/hashes 2.4.0 `sha256` (with the
 * token's bytes from TextEncoder) in its place cost more than 5% per request. bench/micro.ts
 * `sync`, CPU µs/request, medians of 5 rounds x 20000, interleaved A/B on the shared 2-core
 * machine: this file 30.3 35.0 43.2 35.3 (median 35.2) vs noble 48.0 41.0 50.5 38.9 (median
 * 44.5); a second series against main, 5 pairs: median of per-pair ratios 1.13 (+13%). One hash
 * alone: 0.5-0.6 µs here, 1.1-2.4 µs with noble (it allocates a hash object and buffers per call).
 */
const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3,
  0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
  0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

const rotr = (x: number, n: number): number => (x >>> n) | (x << (32 - n));

/**
 * A SHA-256 hasher with its own scratch buffers (the message schedule, a padded block for short
 * input, the state words), reused by every call on it: the hash is synchronous, so calls never
 * overlap. Each owner (a key store, the admin keys) makes its own, so two gateways in one process
 * share none of it.
 */
export class Sha256 {
  private readonly w = new Uint32Array(64);
  /** Padded input of up to 119 bytes (every presented token), reused; longer input gets its own. */
  private readonly small = new Uint8Array(128);
  /** The state words of the last `words` call. */
  private readonly state = new Int32Array(8);

  /** The SHA-256 digest (32 bytes) of `data`, in a new array. */
  digest(data: Uint8Array): Uint8Array {
    const words = this.words(data, data.length);
    const out = new Uint8Array(32);
    for (let i = 0; i < 8; i++) {
      const v = words[i] as number;
      out[i * 4] = v >>> 24;
      out[i * 4 + 1] = v >>> 16;
      out[i * 4 + 2] = v >>> 8;
      out[i * 4 + 3] = v;
    }
    return out;
  }

  /**
   * The digest of the first `len` bytes of `data` as eight big-endian words, in this hasher's
   * buffer that its next call overwrites: the key store hashes a token per request and keeps no
   * digest of it, so nothing is allocated for one.
   */
  words(data: Uint8Array, len: number): Int32Array {
    const blocks = ((len + 8) >> 6) + 1;
    const size = blocks << 6;
    const p = size <= this.small.length ? this.small : new Uint8Array(size);
    if (len === data.length) p.set(data);
    else for (let i = 0; i < len; i++) p[i] = data[i] as number;
    p.fill(0, len, size);
    p[len] = 0x80;
    const hiBits = Math.floor(len / 0x20000000);
    const loBits = (len << 3) >>> 0;
    p[size - 8] = hiBits >>> 24;
    p[size - 7] = hiBits >>> 16;
    p[size - 6] = hiBits >>> 8;
    p[size - 5] = hiBits;
    p[size - 4] = loBits >>> 24;
    p[size - 3] = loBits >>> 16;
    p[size - 2] = loBits >>> 8;
    p[size - 1] = loBits;

    const w = this.w;
    let h0 = 0x6a09e667;
    let h1 = 0xbb67ae85;
    let h2 = 0x3c6ef372;
    let h3 = 0xa54ff53a;
    let h4 = 0x510e527f;
    let h5 = 0x9b05688c;
    let h6 = 0x1f83d9ab;
    let h7 = 0x5be0cd19;
    for (let off = 0; off < size; off += 64) {
      for (let t = 0, i = off; t < 16; t++, i += 4) w[t] = ((p[i] as number) << 24) | ((p[i + 1] as number) << 16) | ((p[i + 2] as number) << 8) | (p[i + 3] as number);
      for (let t = 16; t < 64; t++) {
        const x = w[t - 15] as number;
        const y = w[t - 2] as number;
        const s0 = rotr(x, 7) ^ rotr(x, 18) ^ (x >>> 3);
        const s1 = rotr(y, 17) ^ rotr(y, 19) ^ (y >>> 10);
        w[t] = ((w[t - 16] as number) + s0 + (w[t - 7] as number) + s1) | 0;
      }
      let a = h0;
      let b = h1;
      let c = h2;
      let d = h3;
      let e = h4;
      let f = h5;
      let g = h6;
      let h = h7;
      for (let t = 0; t < 64; t++) {
        const t1 = (h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + (K[t] as number) + (w[t] as number)) | 0;
        const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) | 0;
        h = g;
        g = f;
        f = e;
        e = (d + t1) | 0;
        d = c;
        c = b;
        b = a;
        a = (t1 + t2) | 0;
      }
      h0 = (h0 + a) | 0;
      h1 = (h1 + b) | 0;
      h2 = (h2 + c) | 0;
      h3 = (h3 + d) | 0;
      h4 = (h4 + e) | 0;
      h5 = (h5 + f) | 0;
      h6 = (h6 + g) | 0;
      h7 = (h7 + h) | 0;
    }
    // The token's bytes do not stay behind in the reused buffer.
    if (p === this.small) p.fill(0, 0, len);
    const out = this.state;
    out[0] = h0;
    out[1] = h1;
    out[2] = h2;
    out[3] = h3;
    out[4] = h4;
    out[5] = h5;
    out[6] = h6;
    out[7] = h7;
    return out;
  }
}

/** The SHA-256 digest (32 bytes) of `data`, one-shot: a hasher of its own for each call. */
export function sha256(data: Uint8Array): Uint8Array {
  return new Sha256().digest(data);
}
