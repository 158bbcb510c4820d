/**
 * Platform key secrets: `mg-` and 43 base62 characters (256 bits from crypto.getRandomValues),
 * stored only as their SHA-256 digest with a display prefix and the last four characters.
 */
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
export const SECRET_PREFIX = 'mg-';
/** 43 characters of 62: 256 bits. */
const SECRET_CHARS = 43;

export interface NewSecret {
  /** Shown once, then forgotten. */
  secret: string;
  /** Lowercase hex SHA-256 of the secret: the only thing stored. */
  digest: string;
  /** `mg-` and the first 4 random characters, for display. */
  prefix: string;
  last4: string;
}

/** Uniform base62 characters by rejection sampling (bytes >= 248 are dropped so `% 62` has no bias). */
function randomBase62(n: number): string {
  let out = '';
  while (out.length < n) {
    for (const b of crypto.getRandomValues(new Uint8Array(n * 2))) {
      if (b >= 248) continue;
      out += BASE62[b % 62];
      if (out.length === n) break;
    }
  }
  return out;
}

export async function sha256Hex(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(text)));
  let hex = '';
  for (const b of digest) hex += b.toString(16).padStart(2, '0');
  return hex;
}

export async function newSecret(): Promise<NewSecret> {
  const secret = SECRET_PREFIX + randomBase62(SECRET_CHARS);
  return { secret, digest: await sha256Hex(secret), ...displayParts(secret) };
}

/**
 * The parts of a secret shown in lists: never enough to use or guess it. A generated secret
 * (`mg-` and 40 random characters) shows `mg-` and 4 more, and its last 4. Any other (a config
 * key, chosen by hand, maybe short): at most a third of it, its last 4 from 12 characters on and
 * its first 4 as well from 24; below 12 nothing.
 */
export function displayParts(secret: string): { prefix: string; last4: string } {
  if (secret.startsWith(SECRET_PREFIX) && secret.length === SECRET_PREFIX.length + SECRET_CHARS) return { prefix: secret.slice(0, SECRET_PREFIX.length + 4), last4: secret.slice(-4) };
  return { prefix: secret.length >= 24 ? secret.slice(0, 4) : '', last4: secret.length >= 12 ? secret.slice(-4) : '' };
}

/** A hex digest as the 8 big-endian words Sha256.words gives (for the in-memory index). */
export function digestWords(hex: string): Int32Array {
  const words = new Int32Array(8);
  for (let i = 0; i < 8; i++) words[i] = Number.parseInt(hex.slice(i * 8, i * 8 + 8), 16) | 0;
  return words;
}
