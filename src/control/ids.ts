/**
 * Ids of control-plane records: a prefix (`key_`, `aud_`, `task_`…), 10 characters of time and 16
 * random ones (Crockford base32, like a ULID), so ids sort by creation: a list ordered by id pages
 * by cursor in creation order.
 */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

export function timeOrderedId(prefix: string, now: number): string {
  let time = '';
  let t = Math.max(0, Math.floor(now));
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  let random = '';
  for (const b of bytes) random += ALPHABET[b & 31];
  return `${prefix}${time}${random}`;
}
