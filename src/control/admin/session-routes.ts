/**
 * The console's sign-in: `POST /admin/v1/session` exchanges an admin key for a session cookie
 * (console-session.ts), `GET /admin/v1/session` says who is signed in (and the session's CSRF
 * token, kept by the page in memory only), `DELETE /admin/v1/session` signs out (the session ends
 * on every instance). Sign-in and sign-out are in the audit log; the key never is.
 */
import { z } from 'zod';
import { GatewayError } from '../../core/errors.js';
import { recordAudit } from '../audit/audit-log.js';
import { adminJson, readBody, type AdminRoute } from './http.js';
import { checkSameOrigin, overHttps, sessionCookie } from './console-session.js';

const signInSchema = z.strictObject({ key: z.string().min(1).max(512).describe('An admin key (config admin.keys or MODELGATE_ADMIN_KEY).') });

export const sessionSchema = z.object({
  object: z.literal('session'),
  actor: z.string().describe('The admin key id (or the host-given id) acting'),
  access: z.enum(['read', 'write']),
  via: z.enum(['session', 'key', 'host']).describe('How the request was authenticated'),
  csrfToken: z.string().nullable().describe('Send it as X-CSRF-Token with every change made with the session cookie'),
  expiresAt: z.string().nullable(),
});

export const SESSION_ROUTES: readonly AdminRoute[] = [
  {
    method: 'POST',
    route: '/session',
    access: 'public',
    doc: { summary: 'Console sign-in: an admin key for a session cookie (HttpOnly, SameSite=Strict; Secure over HTTPS).', body: signInSchema, response: sessionSchema, status: 201 },
    handler: async ({ ctx, control }) => {
      const admin = ctx.services.admin;
      if (!admin) throw new GatewayError('not_found', 'No such route.', { detail: 'unknown_route' });
      checkSameOrigin(ctx.request, ctx.url);
      const { key } = await readBody(ctx, signInSchema);
      const identity = admin.identityOfKey(key);
      if (!identity) throw new GatewayError('authentication', 'That is not an admin key.', { detail: 'invalid_admin_key' });
      const { session, cookie } = await admin.sessions.issue(control.db, identity.id, identity.access);
      await recordAudit(control.db, { actor: identity.id, action: 'session.sign_in', targetType: 'session', targetId: session.id, before: null, after: { access: identity.access, expiresAt: new Date(session.expiresAt).toISOString() } }, control.now());
      const body = { object: 'session', actor: identity.id, access: identity.access, via: 'session', csrfToken: session.csrfToken, expiresAt: new Date(session.expiresAt).toISOString() };
      return adminJson(ctx, body, 201, { 'set-cookie': sessionCookie(cookie, admin.sessionTtlSeconds, overHttps(ctx.request, ctx.url)) });
    },
  },
  {
    method: 'GET',
    route: '/session',
    access: 'read',
    doc: { summary: 'Who is signed in: the actor, its access and (for a console session) the CSRF token.', response: sessionSchema },
    handler: async ({ ctx, actor }) => {
      const session = ctx.request.headers.has('authorization') ? undefined : await ctx.services.admin?.sessionOf(ctx);
      const via = session ? 'session' : ctx.request.headers.has('authorization') ? 'key' : 'host';
      return adminJson(ctx, { object: 'session', actor: actor.id, access: actor.access, via, csrfToken: session?.csrfToken ?? null, expiresAt: session ? new Date(session.expiresAt).toISOString() : null });
    },
  },
  {
    method: 'DELETE',
    route: '/session',
    access: 'read',
    doc: { summary: 'Sign out: the console session ends (on every instance) and its cookie is cleared.', response: z.object({ object: z.literal('session'), ended: z.boolean() }) },
    handler: async ({ ctx, control, actor }) => {
      const admin = ctx.services.admin;
      const session = admin ? await admin.sessionOf(ctx) : undefined;
      if (session && admin) {
        await admin.sessions.revoke(control.db, session.id);
        await recordAudit(control.db, { actor: actor.id, action: 'session.sign_out', targetType: 'session', targetId: session.id, before: null, after: null }, control.now());
      }
      return adminJson(ctx, { object: 'session', ended: session !== undefined }, 200, { 'set-cookie': sessionCookie(null, 0, overHttps(ctx.request, ctx.url)) });
    },
  },
];
