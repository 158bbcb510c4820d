/** The mock vendors' deterministic embeddings: the same text always gets the same unit vector (float32 values). */

export function mockEmbedding(text: string, dims: number, salt = ''): number[] {
  let h = 0x811c9dc5;
  const seed = `${salt}|${text}`;
  for (let i = 0; i < seed.length; i++) h = Math.imul(h ^ seed.charCodeAt(i), 0x01000193) >>> 0;
  const out: number[] = [];
  for (let i = 0; i < dims; i++) {
    h ^= h << 13;
    h ^= h >>> 17;
    h ^= h << 5;
    h >>>= 0;
    out.push((h / 0xffffffff) * 2 - 1);
  }
  const norm = Math.hypot(...out) || 1;
  return out.map((v) => Math.fround(v / norm));
}

/** Little-endian float32 bytes, base64 (OpenAI's `encoding_format: "base64"`). */
export function float32Base64(vector: number[]): string {
  return Buffer.from(new Float32Array(vector).buffer).toString('base64');
}
