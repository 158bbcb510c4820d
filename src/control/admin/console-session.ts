/**
 * Console sign-in sessions: an admin key is exchanged (POST /admin/v1/session) for a signed,
 * expiring session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS, scoped to the admin API's
 * path), so the browser never keeps the key. The cookie is `v1.<session id>.<expiry>.<HMAC>`; the
 * session's row (console_sessions) says who signed in and whether sign-out ended it, on every
 * instance. A request authenticated by the cookie that changes anything must come from the
 * console's own origin (Origin / Sec-Fetch-Site) and carry the session's CSRF token in
 * `X-CSRF-Token` (an HMAC of the session id, so no state holds it).
 *
 * The signing key is the config's `admin.sessionSecret` (MODELGATE_SESSION_SECRET for the CLI), or
 * random per gateway: then a session works only on the instance that issued it, so several
 * instances behind one address need the shared secret.
 */
import type { Kysely } from 'kysely';
import { GatewayError } from '../../core/errors.js';
import type { Database } from '../db/database.js';
import type { AdminAccess } from './admin-access.js';

export const SESSION_COOKIE = 'modelgate_session';
export const CSRF_HEADER = 'x-csrf-token';
export const DEFAULT_SESSION_TTL_SECONDS = 12 * 3600;

export interface ConsoleSession {
  id: string;
  actor: string;
  access: AdminAccess;
  expiresAt: number;
  csrfToken: string;
}

const encoder = new TextEncoder();

function base64url(bytes: ArrayBuffer | Uint8Array): string {
  const b = bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes);
  let s = '';
  for (const x of b) s += String.fromCharCode(x);
  return btoa(s).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

/** Compares two strings in time independent of where they differ. */
function sameText(a: string, b: string): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i);
  return diff === 0;
}

const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

export class ConsoleSessions {
  private readonly key: Promise<CryptoKey>;

  constructor(
    secret: string | undefined,
    private readonly ttlMs: number,
    private readonly now: () => number,
  ) {
    const material = secret === undefined ? crypto.getRandomValues(new Uint8Array(32)) : encoder.encode(secret);
    this.key = crypto.subtle.importKey('raw', material, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  }

  private async mac(text: string): Promise<string> {
    return base64url(await crypto.subtle.sign('HMAC', await this.key, encoder.encode(text)));
  }

  /** A new session for `actor`: its row, and the cookie value that names it. */
  async issue(db: Kysely<Database>, actor: string, access: AdminAccess): Promise<{ session: ConsoleSession; cookie: string }> {
    const created = this.now();
    const id = `ses_${base64url(crypto.getRandomValues(new Uint8Array(18)))}`;
    const expiresAt = created + this.ttlMs;
    await db.insertInto('console_sessions').values({ id, actor, access, created_at: created, expires_at: expiresAt, revoked_at: null }).execute();
    // Ended sessions are forgotten after a day (the index on expires_at keeps this cheap).
    await db.deleteFrom('console_sessions').where('expires_at', '<', created - 86_400_000).execute();
    const body = `v1.${id}.${expiresAt}`;
    return { session: { id, actor, access, expiresAt, csrfToken: await this.mac(`csrf.${id}`) }, cookie: `${body}.${await this.mac(body)}` };
  }

  /** The live session a cookie value names, or undefined (forged, expired, signed out). */
  async verify(db: Kysely<Database>, cookie: string): Promise<ConsoleSession | undefined> {
    const m = /^v1\.(ses_[A-Za-z0-9_-]{24})\.(\d{1,16})\.([A-Za-z0-9_-]{43})$/.exec(cookie);
    if (!m) return undefined;
    const [, id, exp, sig] = m as unknown as [string, string, string, string];
    if (!sameText(sig, await this.mac(`v1.${id}.${exp}`))) return undefined;
    const t = this.now();
    if (Number(exp) <= t) return undefined;
    const row = await db.selectFrom('console_sessions').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row || row.revoked_at !== null || num(row.expires_at) <= t) return undefined;
    return { id, actor: row.actor, access: row.access === 'write' ? 'write' : 'read', expiresAt: num(row.expires_at), csrfToken: await this.mac(`csrf.${id}`) };
  }

  async revoke(db: Kysely<Database>, id: string): Promise<void> {
    await db.updateTable('console_sessions').set({ revoked_at: this.now() }).where('id', '=', id).execute();
  }
}

/** The session cookie's value in a Cookie header. */
export function sessionCookieOf(request: Request): string | undefined {
  const header = request.headers.get('cookie');
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === SESSION_COOKIE) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/** Whether the request came over HTTPS: directly, as a TLS-terminating proxy says, or as the page's origin shows. */
export function overHttps(request: Request, url: Readonly<URL>): boolean {
  return url.protocol === 'https:' || request.headers.get('x-forwarded-proto')?.split(',')[0]?.trim() === 'https' || (request.headers.get('origin') ?? '').startsWith('https:');
}

/** The hosts the request was addressed to: Host (the Node bridge's URL has a fixed origin), X-Forwarded-Host, the URL's. */
function addressedHosts(request: Request, url: Readonly<URL>): string[] {
  const hosts = [url.host];
  const host = request.headers.get('host');
  if (host) hosts.push(host.trim().toLowerCase());
  const forwarded = request.headers.get('x-forwarded-host');
  if (forwarded) hosts.push(...forwarded.split(',').map((h) => h.trim().toLowerCase()));
  return hosts;
}

/**
 * `Set-Cookie` for the session (no Path: the browser scopes it to the admin API's folder, under
 * whatever prefix the host mounted the gateway at), or one that clears it.
 */
export function sessionCookie(value: string | null, maxAgeSeconds: number, secure: boolean): string {
  const parts = [`${SESSION_COOKIE}=${value ?? ''}`, 'HttpOnly', 'SameSite=Strict', `Max-Age=${value === null ? 0 : maxAgeSeconds}`];
  if (secure) parts.push('Secure');
  return parts.join('; ');
}

/**
 * A browser's cross-site request is refused: an Origin other than the host the request was sent to
 * (Host, or X-Forwarded-Host behind a proxy: a cross-site page cannot set that header without a
 * CORS preflight, which the admin API never grants), or Sec-Fetch-Site other than same-origin (a
 * request without either is not from a browser page).
 */
export function checkSameOrigin(request: Request, url: Readonly<URL>): void {
  const origin = request.headers.get('origin');
  const refuse = () => new GatewayError('permission_denied', 'Cross-site requests to the admin API are refused; use the console from its own address.', { detail: 'cross_site_request' });
  if (origin !== null) {
    let host: string;
    try {
      host = new URL(origin).host;
    } catch {
      throw refuse();
    }
    if (origin === 'null' || !addressedHosts(request, url).includes(host)) throw refuse();
  }
  // Checked with an Origin too: a sibling subdomain of the same site is same-site, not same-origin.
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') throw refuse();
}

/** A change made with the session cookie needs the session's CSRF token and a same-origin request. */
export function checkCsrf(request: Request, url: Readonly<URL>, session: ConsoleSession): void {
  checkSameOrigin(request, url);
  const sent = request.headers.get(CSRF_HEADER);
  if (sent === null) {
    throw new GatewayError('permission_denied', `Changes made with a console session need its CSRF token in the ${CSRF_HEADER} header.`, { detail: 'csrf_token_missing' });
  }
  if (!sameText(sent, session.csrfToken)) {
    throw new GatewayError('permission_denied', `The ${CSRF_HEADER} header does not hold this session's CSRF token (sign in again if the session changed).`, { detail: 'csrf_token_invalid' });
  }
}
