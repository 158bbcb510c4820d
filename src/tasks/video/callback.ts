/**
 * Task callbacks: a POST of the final task record to the caller's `callback_url`, signed with
 * HMAC-SHA256 so the receiver can tell it came from this gateway and was not replayed later.
 *
 *   x-modelgate-timestamp: <unix seconds>
 *   x-modelgate-signature: v1=<hex HMAC-SHA256(secret, "<timestamp>.<raw body>")>
 */
import type { FetchLike } from '../../providers/types.js';
import { isPrivateHost } from './private-host.js';

export const SIGNATURE_HEADER = 'x-modelgate-signature';
export const TIMESTAMP_HEADER = 'x-modelgate-timestamp';

const encoder = new TextEncoder();

async function hmacHex(secret: string, payload: string): Promise<string> {
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(payload)));
  return Array.from(mac, (b) => b.toString(16).padStart(2, '0')).join('');
}

async function signCallback(secret: string, timestamp: number, body: string): Promise<string> {
  return `v1=${await hmacHex(secret, `${timestamp}.${body}`)}`;
}

/**
 * For receivers: checks the signature header against the raw body, and that the timestamp is
 * within `toleranceSeconds` of `nowSeconds`. Constant-time comparison.
 */
export async function verifyCallbackSignature(
  secret: string,
  body: string,
  headers: { signature: string | null; timestamp: string | null },
  nowSeconds: number,
  toleranceSeconds = 300,
): Promise<boolean> {
  const ts = Number(headers.timestamp);
  if (!headers.signature || !Number.isInteger(ts) || Math.abs(nowSeconds - ts) > toleranceSeconds) return false;
  const expected = await signCallback(secret, ts, body);
  const given = headers.signature;
  if (given.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i++) diff |= expected.charCodeAt(i) ^ given.charCodeAt(i);
  return diff === 0;
}

/**
 * Why `url` may not receive callbacks, or undefined when it may. Checked when a task is submitted
 * and again before every delivery attempt (a record stored before a stricter check, or under a
 * config that allowed private hosts, is judged by the rules in force when it is sent).
 */
export function callbackUrlProblem(url: string, allowPrivateHosts: boolean): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return 'callback_url is not a valid URL.';
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:') return 'callback_url must be an http or https URL.';
  if (!allowPrivateHosts && isPrivateHost(parsed.hostname)) return 'callback_url must not point at localhost or a private network.';
  return undefined;
}

export interface CallbackDelivery {
  url: string;
  /** Whether private/loopback hosts may receive callbacks (video.allowPrivateCallbackHosts). */
  allowPrivateHosts: boolean;
  /** The task record, serialized once so the signature covers exactly these bytes. */
  body: string;
  secret: string;
  /** Epoch ms. */
  now: number;
  event: string;
  deliveryId: string;
  timeoutMs: number;
}

export interface CallbackResult {
  ok: boolean;
  error?: string;
  /** The URL itself is refused: retrying cannot help. */
  final?: boolean;
}

/**
 * One delivery attempt. A 2xx answer counts as delivered; anything else (a redirect too: it is
 * not followed, so a receiver cannot bounce the POST into a private network) is retried by the
 * caller. A URL that fails the host check is not contacted at all (fail closed).
 */
export async function sendCallback(fetchImpl: FetchLike, d: CallbackDelivery): Promise<CallbackResult> {
  const refused = callbackUrlProblem(d.url, d.allowPrivateHosts);
  if (refused) return { ok: false, error: refused, final: true };
  const timestamp = Math.floor(d.now / 1000);
  const headers = new Headers({
    'content-type': 'application/json',
    'user-agent': 'modelgate-callback/1',
    'x-modelgate-event': d.event,
    'x-modelgate-delivery': d.deliveryId,
    [TIMESTAMP_HEADER]: String(timestamp),
    [SIGNATURE_HEADER]: await signCallback(d.secret, timestamp, d.body),
  });
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(new DOMException('Callback timed out', 'TimeoutError')), d.timeoutMs);
  try {
    const res = await fetchImpl(d.url, { method: 'POST', headers, body: d.body, signal: controller.signal, redirect: 'manual' });
    await res.body?.cancel().catch(() => undefined);
    return res.ok ? { ok: true } : { ok: false, error: `callback answered ${res.status}` };
  } catch (err) {
    return { ok: false, error: controller.signal.aborted ? 'callback timed out' : `callback failed: ${(err as Error).message ?? 'network error'}` };
  } finally {
    clearTimeout(timer);
  }
}

/** Delay before attempt `attempt + 1`: base, 2x base, 4x base, ... capped at maxMs. */
export function callbackBackoff(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.max(0, attempt - 1));
}
