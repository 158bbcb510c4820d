/**
 * The console as the core serves it (in process, through gateway.handle): the page and its assets
 * only with an admin credential, a strict CSP and no inline code; sign-in exchanging an admin key
 * for a signed, expiring HttpOnly SameSite=Strict cookie; the admin API taking that cookie with a
 * CSRF token and a same-origin request for changes; sign-out ending the session everywhere; a
 * read-only admin refused writes; the overview, instances and models routes the pages read.
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createControlPlane, type ControlPlane } from '../../src/control/control-plane.js';
import { createGateway, type Gateway, type GatewayConfigInput } from '../../src/index.js';
import type { LedgerRow } from '../../src/control/ledger/ledger-row.js';
import { openDatabase, type OpenedDatabase } from '../../node/db/open-database.js';

const WRITE_KEY = 'mg-console-admin-write-key-0001';
const READ_KEY = 'mg-console-admin-read-key-00001';
const SECRET = 'console-session-secret-shared-by-instances-0001';
const HOST = 'console.example';
const ORIGIN = `http://${HOST}`;

const config = (admin: boolean, sessionSecret?: string): GatewayConfigInput => ({
  providers: [{ id: 'mock', type: 'mock' }],
  models: [{ id: 'mock-chat', provider: 'mock', pricing: { inputPerMTok: 2, outputPerMTok: 8 } }],
  keys: [{ id: 'cfg', key: 'mg-console-platform-key-0001' }],
  ...(admin ? { admin: { keys: [{ id: 'ops', key: WRITE_KEY, access: 'write' as const }, { id: 'viewer', key: READ_KEY, access: 'read' as const }], ...(sessionSecret ? { sessionSecret } : {}) } } : {}),
});

let database: OpenedDatabase;
let control: ControlPlane;
let gateway: Gateway;

beforeAll(async () => {
  database = await openDatabase({ kind: 'memory' });
  control = await createControlPlane({ db: database.db, dialect: database.dialect, instanceName: 'test-instance' });
  gateway = createGateway(config(true), { control });
});
afterAll(async () => {
  await gateway.close();
  await control.close();
  await database.close();
});

function call(g: Gateway, path: string, init: { method?: string; headers?: Record<string, string>; body?: unknown } = {}): Promise<Response> {
  const headers: Record<string, string> = { host: HOST, ...(init.headers ?? {}) };
  if (init.body !== undefined) headers['content-type'] = 'application/json';
  return g.handle(new Request(`http://${HOST}${path}`, { method: init.method ?? 'GET', headers, ...(init.body !== undefined ? { body: JSON.stringify(init.body) } : {}) }));
}

async function signIn(g: Gateway, key: string): Promise<{ cookie: string; csrf: string; setCookie: string }> {
  const res = await call(g, '/admin/v1/session', { method: 'POST', headers: { origin: ORIGIN }, body: { key } });
  expect(res.status).toBe(201);
  const setCookie = res.headers.get('set-cookie') ?? '';
  const body = await res.json();
  return { cookie: setCookie.split(';')[0] as string, csrf: body.csrfToken, setCookie };
}

describe('the console page', () => {
  it('is a 404 without an admin credential, and the page, its assets and a redirect with one', async () => {
    const plain = createGateway(config(false), { control });
    expect((await call(plain, '/console/')).status).toBe(404);
    expect((await call(plain, '/admin/v1/session', { method: 'POST', body: { key: WRITE_KEY } })).status).toBe(404);
    await plain.close();

    const redirect = await call(gateway, '/console');
    expect(redirect.status).toBe(308);
    expect(redirect.headers.get('location')).toBe('console/');
    const page = await call(gateway, '/console/');
    expect(page.status).toBe(200);
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|https?:/);
    const html = await page.text();
    // No inline script or style, nothing from another origin.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//);
    const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1] as string);
    expect(assets.some((a) => a.endsWith('.js'))).toBe(true);
    expect(assets.some((a) => a.endsWith('.css'))).toBe(true);
    for (const a of assets) {
      const res = await call(gateway, `/console/${a}`, { headers: { 'accept-encoding': 'gzip' } });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe(csp);
      expect(res.headers.get('cache-control')).toContain('immutable');
      expect(res.headers.get('content-encoding')).toBe('gzip');
      const text = gunzipSync(Buffer.from(await res.arrayBuffer())).toString('utf8');
      expect(text.length).toBeGreaterThan(100);
      // No font or script from a CDN: the only absolute URLs a bundle may hold are XML namespaces.
      expect(text.replace(/http:\/\/www\.w3\.org\/[\w/.]+/g, '')).not.toMatch(/https?:\/\/[a-z]/i);
    }
    expect((await call(gateway, '/console/assets/nope.js')).status).toBe(404);
  });
});

describe('console sessions', () => {
  it('sign-in gives a signed, expiring HttpOnly SameSite=Strict cookie (Secure over HTTPS); a wrong key or a cross-site page gets nothing', async () => {
    const wrong = await call(gateway, '/admin/v1/session', { method: 'POST', headers: { origin: ORIGIN }, body: { key: 'mg-not-an-admin-key-at-all-0001' } });
    expect(wrong.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const crossSite = await call(gateway, '/admin/v1/session', { method: 'POST', headers: { origin: 'https://evil.example' }, body: { key: WRITE_KEY } });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get('set-cookie')).toBeNull();

    const { setCookie, csrf } = await signIn(gateway, WRITE_KEY);
    expect(setCookie).toMatch(/^modelgate_session=v1\.ses_[\w-]+\.\d+\.[\w-]+; HttpOnly; SameSite=Strict; Max-Age=43200$/);
    expect(setCookie).not.toContain(WRITE_KEY);
    expect(csrf).toMatch(/^[\w-]{43}$/);
    const https = await call(gateway, '/admin/v1/session', { method: 'POST', headers: { origin: `https://${HOST}` }, body: { key: WRITE_KEY } });
    expect(https.headers.get('set-cookie')).toMatch(/; Secure$/);
  });

  it('the cookie reads the admin API; a change needs the CSRF token and a same-origin request', async () => {
    const { cookie, csrf } = await signIn(gateway, WRITE_KEY);
    const who = await call(gateway, '/admin/v1/session', { headers: { cookie } });
    expect(await who.json()).toMatchObject({ actor: 'ops', access: 'write', via: 'session', csrfToken: csrf });
    expect((await call(gateway, '/admin/v1/keys', { headers: { cookie } })).status).toBe(200);

    const noToken = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: ORIGIN }, body: { name: 'x' } });
    expect(noToken.status).toBe(403);
    expect((await noToken.json()).error.message).toContain('CSRF');
    const wrongToken = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: ORIGIN, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'E' : 'A'}` }, body: { name: 'x' } });
    expect(wrongToken.status).toBe(403);
    expect((await wrongToken.json()).error.code).toBe('csrf_token_invalid');
    // A matching Origin from a sibling subdomain is still same-site, not same-origin.
    const sameSite = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: ORIGIN, 'sec-fetch-site': 'same-site', 'x-csrf-token': csrf }, body: { name: 'x' } });
    expect(sameSite.status).toBe(403);
    const crossSite = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: 'https://evil.example', 'x-csrf-token': csrf }, body: { name: 'x' } });
    expect(crossSite.status).toBe(403);
    const fetchSite = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, 'sec-fetch-site': 'cross-site', 'x-csrf-token': csrf }, body: { name: 'x' } });
    expect(fetchSite.status).toBe(403);
    const ok = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: ORIGIN, 'x-csrf-token': csrf }, body: { name: 'made-in-console' } });
    expect(ok.status).toBe(201);
    const audit = await (await call(gateway, '/admin/v1/audit?action=key.create', { headers: { cookie } })).json();
    expect(audit.data[0]).toMatchObject({ actor: 'ops', action: 'key.create' });
  });

  it('a read-only admin reads but cannot write, even with the CSRF token', async () => {
    const { cookie, csrf } = await signIn(gateway, READ_KEY);
    expect((await call(gateway, '/admin/v1/keys', { headers: { cookie } })).status).toBe(200);
    const write = await call(gateway, '/admin/v1/keys', { method: 'POST', headers: { cookie, origin: ORIGIN, 'x-csrf-token': csrf }, body: { name: 'nope' } });
    expect(write.status).toBe(403);
    expect((await write.json()).error.message).toContain('read-only');
  });

  it('sign-out ends the session (the same cookie is refused afterwards); a forged or foreign cookie is refused', async () => {
    const { cookie, csrf } = await signIn(gateway, WRITE_KEY);
    const out = await call(gateway, '/admin/v1/session', { method: 'DELETE', headers: { cookie, origin: ORIGIN, 'x-csrf-token': csrf } });
    expect(out.status).toBe(200);
    expect(out.headers.get('set-cookie')).toMatch(/^modelgate_session=; HttpOnly; SameSite=Strict; Max-Age=0/);
    const after = await call(gateway, '/admin/v1/keys', { headers: { cookie } });
    expect(after.status).toBe(401);
    expect((await after.json()).error.message).toContain('session has ended');

    const live = await signIn(gateway, WRITE_KEY);
    const [name, value] = live.cookie.split('=') as [string, string];
    const forged = `${name}=${value.replace(/\.(\d+)\./, (_m, exp: string) => `.${Number(exp) + 86_400_000}.`)}`;
    expect((await call(gateway, '/admin/v1/keys', { headers: { cookie: forged } })).status).toBe(401);
    // Another gateway with its own random signing key does not take it; two with a shared secret do.
    const other = createGateway(config(true), { control });
    expect((await call(other, '/admin/v1/keys', { headers: { cookie: live.cookie } })).status).toBe(401);
    await other.close();
    const a = createGateway(config(true, SECRET), { control });
    const b = createGateway(config(true, SECRET), { control });
    const shared = await signIn(a, WRITE_KEY);
    expect((await call(b, '/admin/v1/keys', { headers: { cookie: shared.cookie } })).status).toBe(200);
    await a.close();
    await b.close();
  });

  it('no admin key, session cookie or signing secret reaches the audit log or an answer', async () => {
    const a = createGateway(config(true, SECRET), { control });
    const { cookie } = await signIn(a, WRITE_KEY);
    const audit = await (await call(a, '/admin/v1/audit?limit=100', { headers: { cookie } })).text();
    expect(audit).toContain('session.sign_in');
    for (const secret of [WRITE_KEY, READ_KEY, SECRET, cookie.split('=')[1] as string]) expect(audit).not.toContain(secret);
    const openapi = await (await call(a, '/admin/v1/openapi.json', { headers: { cookie } })).text();
    expect(openapi).not.toContain(SECRET);
    await a.close();
  });
});

describe('the routes the pages read', () => {
  const HOUR = 3_600_000;
  function row(i: number, over: Partial<LedgerRow>): LedgerRow {
    return {
      traceId: `console-${i}`, requestId: null, time: Date.now() - i * HOUR, keyId: 'key_a', method: 'POST', route: '/v1/chat/completions', protocol: 'openai-chat',
      model: 'mock-chat', requestedModel: 'mock-chat', resolvedModel: null, provider: 'mock', deployment: 'mock-chat', status: 200, errorCode: null, attempts: 1, fallbacks: 0,
      inputTokens: 10, outputTokens: 5, cachedTokens: null, reasoningTokens: null, images: null, videoSeconds: null, costUsd: 0.001, price: null,
      latencyMs: 40, ttftMs: null, stream: false, byok: false, cacheHit: false, ...over,
    };
  }

  it('overview series and top from the hourly and daily rollups; instances; providers and models with prices and circuit state', async () => {
    await control.usage.write([row(0, {}), row(0.01, { keyId: 'key_b', status: 500, errorCode: 'bad_gateway' }), row(2, { model: 'other' }), row(30, {}), row(24 * 40, {})]);
    const auth = { authorization: `Bearer ${READ_KEY}` };
    const day = await (await call(gateway, '/admin/v1/overview/series?window=24h', { headers: auth })).json();
    expect(day).toMatchObject({ object: 'series', window: '24h', step: 'hour' });
    expect(day.points).toHaveLength(24);
    expect(day.points.reduce((s: number, p: { requests: number }) => s + p.requests, 0)).toBe(3);
    expect(day.points.reduce((s: number, p: { errors: number }) => s + p.errors, 0)).toBe(1);
    expect(day.points.at(-1).inputTokens).toBe(20);
    const week = await (await call(gateway, '/admin/v1/overview/series?window=7d&keyId=key_a', { headers: auth })).json();
    expect(week.points).toHaveLength(168);
    expect(week.points.reduce((s: number, p: { requests: number }) => s + p.requests, 0)).toBe(3);
    const month = await (await call(gateway, '/admin/v1/overview/series?window=30d', { headers: auth })).json();
    expect(month).toMatchObject({ step: 'day' });
    expect(month.points).toHaveLength(30);
    expect(month.points.reduce((s: number, p: { requests: number }) => s + p.requests, 0)).toBe(4);
    const top = await (await call(gateway, '/admin/v1/overview/top?by=model&window=24h', { headers: auth })).json();
    expect(top.data.map((t: { id: string; requests: number }) => [t.id, t.requests])).toEqual([['mock-chat', 2], ['other', 1]]);
    const topKeys = await (await call(gateway, '/admin/v1/overview/top?by=key&window=7d&limit=1', { headers: auth })).json();
    expect(topKeys.data).toEqual([expect.objectContaining({ id: 'key_a', requests: 3 })]);
    const bad = await call(gateway, '/admin/v1/overview/series?window=1y', { headers: auth });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error.param).toBe('window');

    const instances = await (await call(gateway, '/admin/v1/instances', { headers: auth })).json();
    expect(instances.data).toEqual([expect.objectContaining({ object: 'instance', name: 'test-instance', health: 'healthy' })]);

    const providers = await (await call(gateway, '/admin/v1/providers', { headers: auth })).json();
    expect(providers.data).toEqual([expect.objectContaining({ id: 'mock', type: 'mock', models: 1 })]);
    const models = await (await call(gateway, '/admin/v1/models', { headers: auth })).json();
    expect(models.data[0]).toMatchObject({ id: 'mock-chat', pricing: { inputPerMTok: 2, outputPerMTok: 8 }, deployments: [{ provider: 'mock', upstreamModel: 'mock-chat', state: 'closed', failures: 0, cooldownUntil: null }] });

    const openapi = await (await call(gateway, '/admin/v1/openapi.json', { headers: auth })).json();
    for (const p of ['/admin/v1/session', '/admin/v1/overview/series', '/admin/v1/overview/top', '/admin/v1/instances', '/admin/v1/providers', '/admin/v1/models']) expect(Object.keys(openapi.paths)).toContain(p);
    expect(openapi.paths['/admin/v1/session'].post.security).toEqual([]);
  });
});
