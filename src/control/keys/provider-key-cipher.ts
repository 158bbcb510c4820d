/**
 * Store keys' `providerKeys` (the key holder's own upstream credentials) encrypted at rest:
 * AES-256-GCM (WebCrypto, so every runtime) under a key derived with HKDF-SHA-256 from the
 * operator's secret (`control.secret` / `MODELGATE_SECRET`; on the embedded SQLite default a
 * generated one kept beside the database file). The stored text is
 * `enc:v1:<provider ids>:<base64 of iv and ciphertext>`: the provider ids stay readable (the admin
 * API lists them, never the credentials) and are bound to the ciphertext with the key's id as
 * additional data, so neither the ids nor the whole value can be moved to another key unnoticed.
 * Rows written before encryption (a plain JSON object) still read; `sealLegacyProviderKeys`
 * re-writes them encrypted.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/database.js';

const PREFIX = 'enc:v1:';
const IV_BYTES = 12;
/** Shortest operator secret accepted (a generated one has 43 characters). */
export const MIN_SECRET_CHARS = 16;

export type ProviderKeys = Record<string, string>;

export interface ProviderKeyCipher {
  /** The stored text of `keys` for the key `keyId`. */
  seal(keyId: string, keys: ProviderKeys): Promise<string>;
  /** The credentials back; throws when the text was sealed under another secret or altered. */
  open(keyId: string, stored: string): Promise<ProviderKeys>;
}

/** Thrown when stored providerKeys cannot be read (no secret, another secret, altered text). */
export class ProviderKeysUnreadable extends Error {}

const utf8 = (s: string): Uint8Array<ArrayBuffer> => new TextEncoder().encode(s);

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array<ArrayBuffer> {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

/** Whether a stored value is encrypted (else it is a legacy plain JSON object). */
export function isSealed(stored: string): boolean {
  return stored.startsWith(PREFIX);
}

/** The provider ids of a stored value, without decrypting it. */
export function providerIdsOf(stored: string | null): string[] {
  if (!stored) return [];
  if (!isSealed(stored)) return Object.keys(JSON.parse(stored) as ProviderKeys);
  const ids = stored.slice(PREFIX.length, stored.indexOf(':', PREFIX.length));
  return ids ? ids.split(',').map(decodeURIComponent) : [];
}

function additionalData(keyId: string, ids: string): Uint8Array<ArrayBuffer> {
  return utf8(`modelgate provider keys\n${keyId}\n${ids}`);
}

export async function providerKeyCipher(secret: string): Promise<ProviderKeyCipher> {
  if (secret.length < MIN_SECRET_CHARS) throw new Error(`the secret that encrypts providerKeys must be at least ${MIN_SECRET_CHARS} characters`);
  const material = await crypto.subtle.importKey('raw', utf8(secret), 'HKDF', false, ['deriveKey']);
  const key = await crypto.subtle.deriveKey(
    { name: 'HKDF', hash: 'SHA-256', salt: utf8('modelgate'), info: utf8('modelgate provider keys v1') },
    material,
    { name: 'AES-GCM', length: 256 },
    false,
    ['encrypt', 'decrypt'],
  );
  return {
    async seal(keyId, keys) {
      const ids = Object.keys(keys).map(encodeURIComponent).join(',');
      const iv = crypto.getRandomValues(new Uint8Array(IV_BYTES));
      const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv, additionalData: additionalData(keyId, ids) }, key, utf8(JSON.stringify(keys))));
      const out = new Uint8Array(IV_BYTES + sealed.length);
      out.set(iv);
      out.set(sealed, IV_BYTES);
      return `${PREFIX}${ids}:${toBase64(out)}`;
    },
    async open(keyId, stored) {
      if (!isSealed(stored)) return JSON.parse(stored) as ProviderKeys;
      const at = stored.indexOf(':', PREFIX.length);
      const ids = stored.slice(PREFIX.length, at);
      try {
        const bytes = fromBase64(stored.slice(at + 1));
        const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, IV_BYTES), additionalData: additionalData(keyId, ids) }, key, bytes.slice(IV_BYTES));
        return JSON.parse(new TextDecoder().decode(plain)) as ProviderKeys;
      } catch {
        throw new ProviderKeysUnreadable('they were encrypted with another secret, or altered');
      }
    },
  };
}

/** Reads a stored value with the cipher when there is one (a legacy plain value needs none). */
export async function openProviderKeys(cipher: ProviderKeyCipher | undefined, keyId: string, stored: string): Promise<ProviderKeys> {
  if (!isSealed(stored)) return JSON.parse(stored) as ProviderKeys;
  if (!cipher) throw new ProviderKeysUnreadable('this server has no secret to decrypt them (set MODELGATE_SECRET or control.secret, the one they were stored with)');
  return cipher.open(keyId, stored);
}

/**
 * Encrypts providerKeys still stored as plain JSON (rows from before encryption). Each row is
 * changed only if it still holds the value read, so instances doing it at once do no harm. The
 * keys revision is not bumped: the credentials are the same, only their form at rest changes.
 * Returns how many rows were re-written.
 */
export async function sealLegacyProviderKeys(db: Kysely<Database>, cipher: ProviderKeyCipher): Promise<number> {
  const rows = await db.selectFrom('api_keys').select(['id', 'provider_keys']).where('provider_keys', 'like', '{%').execute();
  let sealed = 0;
  for (const row of rows) {
    const plain = row.provider_keys as string;
    const value = await cipher.seal(row.id, JSON.parse(plain) as ProviderKeys);
    const r = await db.updateTable('api_keys').set({ provider_keys: value }).where('id', '=', row.id).where('provider_keys', '=', plain).executeTakeFirst();
    sealed += Number(r.numUpdatedRows);
  }
  return sealed;
}
