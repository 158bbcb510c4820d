/**
 * Who may use the admin API: an admin key (config `admin.keys`, or MODELGATE_ADMIN_KEY through the
 * CLI) sent as `Authorization: Bearer <admin key>`, the console's session cookie (an admin key
 * exchanged at sign-in; changes also need its CSRF token, see console-session.ts), or whoever the
 * host's `authorizeAdmin(request)` accepts. Read-only credentials may only read. A platform key is refused (403), any other
 * credential is a 401; the admin key's text is never echoed.
 */
import { timingSafeEqual } from '../../auth/key-store.js';
import { Sha256 } from '../../auth/sha256.js';
import { extractToken } from '../../auth/extract-token.js';
import type { Kysely } from 'kysely';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../request/context.js';
import type { Database } from '../db/database.js';
import { checkCsrf, ConsoleSessions, DEFAULT_SESSION_TTL_SECONDS, sessionCookieOf, type ConsoleSession } from './console-session.js';

export type { AdminAccess } from './admin-access.js';
import type { AdminAccess } from './admin-access.js';

export interface AdminIdentity {
  /** Recorded as the actor of audit entries (an admin key's id, or the host's id for the caller). */
  id: string;
  access: AdminAccess;
}

/** The host's own admin check: an identity to let the request in, null/undefined to fall back to admin keys. */
export type AuthorizeAdmin = (request: Request) => AdminIdentity | null | undefined | Promise<AdminIdentity | null | undefined>;

export interface AdminKeyConfig {
  id: string;
  key: string;
  access: AdminAccess;
}

export interface AdminSessionOptions {
  /** Signs console session cookies (config admin.sessionSecret); random per gateway when absent. */
  sessionSecret?: string;
  sessionTtlSeconds?: number;
  now?: () => number;
}

const encoder = new TextEncoder();
const SAFE_METHODS = new Set(['GET', 'HEAD']);

export class AdminAuth {
  private readonly keys: Array<{ digest: Uint8Array; identity: AdminIdentity }>;
  readonly sessions: ConsoleSessions;
  readonly sessionTtlSeconds: number;
  private readonly sha = new Sha256();

  /** `platform.isPlatformKey`: whether a token is one of the gateway's platform keys (answered with a 403 that says so); `platform.db`: the control plane's store, where console sessions live. */
  constructor(
    keys: readonly AdminKeyConfig[],
    private readonly hook: AuthorizeAdmin | undefined,
    private readonly platform: { isPlatformKey: (token: string) => boolean; db?: Kysely<Database> },
    session: AdminSessionOptions = {},
  ) {
    this.keys = keys.map((k) => ({ digest: this.sha.digest(encoder.encode(k.key)), identity: { id: k.id, access: k.access } }));
    this.sessionTtlSeconds = session.sessionTtlSeconds ?? DEFAULT_SESSION_TTL_SECONDS;
    this.sessions = new ConsoleSessions(session.sessionSecret, this.sessionTtlSeconds * 1000, session.now ?? Date.now);
  }

  /** The admin key's identity (console sign-in); undefined when it is no admin key. */
  identityOfKey(key: string): AdminIdentity | undefined {
    const digest = this.sha.digest(encoder.encode(key));
    let found: AdminIdentity | undefined;
    // Every entry is compared, so the time does not tell which one matched.
    for (const k of this.keys) if (timingSafeEqual(k.digest, digest) && !found) found = k.identity;
    return found;
  }

  /**
   * The live console session of the request's cookie, its access narrowed to what its admin key
   * has now (a key removed from the config ends its sessions).
   */
  async sessionOf(ctx: RequestContext): Promise<ConsoleSession | undefined> {
    const cookie = sessionCookieOf(ctx.request);
    const db = this.platform.db;
    if (cookie === undefined || !db) return undefined;
    const session = await this.sessions.verify(db, cookie);
    if (!session) return undefined;
    const key = this.keys.find((k) => k.identity.id === session.actor);
    if (!key) return undefined;
    return key.identity.access === 'write' ? session : { ...session, access: 'read' };
  }

  /** Whether any admin credential exists: without one the admin routes do not exist (404). */
  get enabled(): boolean {
    return this.keys.length > 0 || this.hook !== undefined;
  }

  /** The caller's admin identity; 401 without a valid admin credential, 403 for a platform key or a read-only one writing. */
  async authorize(ctx: RequestContext, access: AdminAccess): Promise<AdminIdentity> {
    const identity = await this.identify(ctx);
    if (access === 'write' && identity.access !== 'write') {
      throw new GatewayError('permission_denied', 'This admin credential is read-only; changes need a read-write admin key.', { detail: 'admin_read_only' });
    }
    return identity;
  }

  private async identify(ctx: RequestContext): Promise<AdminIdentity> {
    if (this.hook) {
      const fromHost = await this.hook(ctx.request);
      if (fromHost) return fromHost;
    }
    const token = extractToken(ctx.request, ctx.url);
    if (token === undefined) {
      const session = await this.sessionOf(ctx);
      if (session) {
        if (!SAFE_METHODS.has(ctx.request.method)) checkCsrf(ctx.request, ctx.url, session);
        return { id: session.actor, access: session.access };
      }
      const ended = sessionCookieOf(ctx.request) !== undefined;
      throw new GatewayError('authentication', ended ? 'The console session has ended; sign in again.' : 'Missing admin key. Send it in the Authorization header as a bearer token.', { detail: ended ? 'session_ended' : 'missing_admin_key' });
    }
    const found = this.identityOfKey(token);
    if (found) return found;
    if (this.platform.isPlatformKey(token)) {
      throw new GatewayError('permission_denied', 'Platform API keys cannot use the admin API; use an admin key.', { detail: 'not_admin_key' });
    }
    throw new GatewayError('authentication', 'Invalid admin key.', { detail: 'invalid_admin_key' });
  }
}
