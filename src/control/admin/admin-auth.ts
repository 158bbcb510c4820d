/**
 * Who may use the admin API: an admin key (config `admin.keys`, or MODELGATE_ADMIN_KEY through the
 * CLI) sent as `Authorization: Bearer <admin key>`, or whoever the host's `authorizeAdmin(request)`
 * accepts. Read-only credentials may only read. A platform key is refused (403), any other
 * credential is a 401; the admin key's text is never echoed.
 */
import { timingSafeEqual } from '../../auth/key-store.js';
import { sha256 } from '../../auth/sha256.js';
import { extractToken } from '../../auth/extract-token.js';
import { GatewayError } from '../../core/errors.js';
import type { RequestContext } from '../../request/context.js';

export type AdminAccess = 'read' | 'write';

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

const encoder = new TextEncoder();

export class AdminAuth {
  private readonly keys: Array<{ digest: Uint8Array; identity: AdminIdentity }>;

  /** `isPlatformKey`: whether a token is one of the gateway's platform keys (answered with a 403 that says so). */
  constructor(
    keys: readonly AdminKeyConfig[],
    private readonly hook: AuthorizeAdmin | undefined,
    private readonly isPlatformKey: (token: string) => boolean,
  ) {
    this.keys = keys.map((k) => ({ digest: sha256(encoder.encode(k.key)), identity: { id: k.id, access: k.access } }));
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
      throw new GatewayError('authentication', 'Missing admin key. Send it as "Authorization: Bearer <admin key>".', { detail: 'missing_admin_key' });
    }
    const digest = sha256(encoder.encode(token));
    let found: AdminIdentity | undefined;
    // Every entry is compared, so the time does not tell which one matched.
    for (const k of this.keys) if (timingSafeEqual(k.digest, digest) && !found) found = k.identity;
    if (found) return found;
    if (this.isPlatformKey(token)) {
      throw new GatewayError('permission_denied', 'Platform API keys cannot use the admin API; use an admin key.', { detail: 'not_admin_key' });
    }
    throw new GatewayError('authentication', 'Invalid admin key.', { detail: 'invalid_admin_key' });
  }
}
