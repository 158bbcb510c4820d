/**
 * Idempotent writes (`Idempotency-Key`): the first answer is kept for 24 hours and a retry with the
 * same key gets it again instead of a second change; the same key with other parameters is a 409.
 * The answer may hold a new secret, so it is stored AES-GCM encrypted under a key derived from the
 * Idempotency-Key, of which only a digest is kept: the database alone cannot read it.
 */
import type { Transaction } from 'kysely';
import type { Database } from '../db/database.js';
import { GatewayError } from '../../core/errors.js';
import { sha256Hex } from './key-secret.js';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

export interface IdempotencyKey {
  id: string;
  requestHash: string;
  cryptoKey: CryptoKey;
}

export async function idempotencyKey(scope: string, key: string, request: unknown): Promise<IdempotencyKey> {
  if (!key || key.length > 255) throw new GatewayError('invalid_request', 'The Idempotency-Key header must be 1 to 255 characters.', { param: 'Idempotency-Key' });
  const material = new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(`modelgate-idempotency-encryption\n${scope}\n${key}`)));
  return {
    id: await sha256Hex(`modelgate-idempotency-id\n${scope}\n${key}`),
    requestHash: await sha256Hex(JSON.stringify(request)),
    cryptoKey: await crypto.subtle.importKey('raw', material, 'AES-GCM', false, ['encrypt', 'decrypt']),
  };
}

export interface StoredAnswer {
  status: number;
  body: unknown;
}

function toBase64(bytes: Uint8Array): string {
  let s = '';
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s);
}

function fromBase64(text: string): Uint8Array {
  const s = atob(text);
  const out = new Uint8Array(s.length);
  for (let i = 0; i < s.length; i++) out[i] = s.charCodeAt(i);
  return out;
}

async function encrypt(key: CryptoKey, answer: StoredAnswer): Promise<string> {
  const iv = crypto.getRandomValues(new Uint8Array(12));
  const sealed = new Uint8Array(await crypto.subtle.encrypt({ name: 'AES-GCM', iv }, key, new TextEncoder().encode(JSON.stringify(answer))));
  const out = new Uint8Array(iv.length + sealed.length);
  out.set(iv);
  out.set(sealed, iv.length);
  return toBase64(out);
}

async function decrypt(key: CryptoKey, text: string): Promise<StoredAnswer> {
  const bytes = fromBase64(text);
  const plain = await crypto.subtle.decrypt({ name: 'AES-GCM', iv: bytes.slice(0, 12) }, key, bytes.slice(12));
  return JSON.parse(new TextDecoder().decode(plain)) as StoredAnswer;
}

/** The kept answer of this Idempotency-Key (inside the write's transaction), or undefined when it is new. */
export async function replayed(trx: Transaction<Database>, key: IdempotencyKey, now: number): Promise<StoredAnswer | undefined> {
  const row = await trx.selectFrom('idempotency_keys').selectAll().where('id', '=', key.id).executeTakeFirst();
  if (!row || row.created_at <= now - IDEMPOTENCY_TTL_MS) return undefined;
  if (row.request_hash !== key.requestHash) {
    throw new GatewayError('conflict', 'This Idempotency-Key was already used with other parameters; use a new key for a new request.', { param: 'Idempotency-Key', detail: 'idempotency_key_reused' });
  }
  return decrypt(key.cryptoKey, row.response);
}

/** Keeps the answer of this Idempotency-Key (in the write's transaction); expired ones are dropped on the way. */
export async function remember(trx: Transaction<Database>, key: IdempotencyKey, answer: StoredAnswer, now: number): Promise<void> {
  await trx.deleteFrom('idempotency_keys').where('created_at', '<=', now - IDEMPOTENCY_TTL_MS).execute();
  await trx.deleteFrom('idempotency_keys').where('id', '=', key.id).execute();
  await trx.insertInto('idempotency_keys').values({ id: key.id, request_hash: key.requestHash, status: answer.status, response: await encrypt(key.cryptoKey, answer), created_at: now }).execute();
}
