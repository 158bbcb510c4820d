/**
 * Config: zod validation with one error listing every bad path, the documented JSON shape with
 * ${VAR} interpolation, direct `providerId/upstreamModel` routing, options.authenticate and
 * context.principal, key store behaviour.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KeyStore, timingSafeEqual } from '../../src/auth/key-store.js';
import { ConfigError, createGateway, parseConfig, parseConfigText, type GatewayConfigInput, type ResponseEvent } from '../../src/index.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';

let openai: MockOpenAI;
let local: MockOpenAI;

beforeAll(async () => {
  openai = await startMockOpenAI();
  local = await startMockOpenAI({ noAuth: true, modelSuffix: '' });
});
afterAll(async () => {
  await openai?.close();
  await local?.close();
});

/** The config shape documented for the foundation issue (providers openai + a local OpenAI-compatible server). */
function issueConfigText(): string {
  return JSON.stringify({
    providers: [
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: '${OPENAI_API_KEY}' },
      { id: 'local', type: 'openai-compatible', baseURL: local.baseURL },
    ],
    models: [
      { id: 'gpt-4o-mini', provider: 'openai' },
      { id: 'house-model', provider: 'local', upstreamModel: 'qwen3-8b' },
    ],
    keys: [
      { id: 'team-a', key: '${TEAM_A_KEY}', models: ['gpt-*'] },
      { id: 'ops', key: 'sk-ops-123', models: ['*'] },
    ],
  });
}

function chatRequest(key: string | undefined, model: string, extraHeaders: Record<string, string> = {}): Request {
  return new Request('http://gateway.test/v1/chat/completions', {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}), ...extraHeaders },
    body: JSON.stringify({ model, messages: [{ role: 'user', content: 'config test' }] }),
  });
}

async function json(res: Response): Promise<Record<string, unknown> & { error?: { message: string; code: string } }> {
  return (await res.json()) as Record<string, unknown> & { error?: { message: string; code: string } };
}

describe('validation', () => {
  it('one ConfigError lists every bad field path', () => {
    const bad = {
      providers: [
        { id: 'openai', type: 'openia' },
        { id: 'local', type: 'openai-compatible' },
        { id: 'bad id!', type: 'mock' },
      ],
      models: [{ id: 'm1', provider: 'nowhere' }, { id: '', provider: 'local' }],
      keys: [{ id: 'k', key: 'short' }, { id: 'k2', key: 'long-enough-key', models: 'gpt-*' }],
      limits: { maxBodyBytes: -1 },
      timeouts: { upstreamMs: 'soon' },
    };
    let err: unknown;
    try {
      createGateway(bad as unknown as GatewayConfigInput);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ConfigError);
    const issues = (err as ConfigError).issues.join('\n');
    for (const path of [
      'providers.0.type',
      'providers.1.baseURL',
      'providers.2.id',
      'models.0.provider',
      'models.1.id',
      'keys.0.key',
      'keys.1.models',
      'limits.maxBodyBytes',
      'timeouts.upstreamMs',
    ]) {
      expect(issues).toContain(`${path}:`);
      expect((err as Error).message).toContain(path);
    }
  });

  it('reports duplicates and applies documented defaults', () => {
    expect(() =>
      parseConfig({
        providers: [{ id: 'p', type: 'mock' }, { id: 'p', type: 'mock' }],
        keys: [{ id: 'a', key: 'same-key-value' }, { id: 'a', key: 'same-key-value' }],
      }),
    ).toThrow(/providers\.1\.id[\s\S]*keys\.1\.id[\s\S]*keys\.1\.key/);
    const cfg = parseConfig({ providers: [{ id: 'p', type: 'mock' }], keys: [{ id: 'a', key: 'a-key-long-enough' }] });
    expect(cfg.limits.maxBodyBytes).toBe(32 * 1024 * 1024);
    expect(cfg.timeouts.upstreamMs).toBe(120_000);
    expect(cfg.keys[0]?.models).toEqual(['*']);
  });

  it('parseConfigText reports text that is not JSON', () => {
    expect(() => parseConfigText('{ providers: [', {})).toThrow(ConfigError);
  });
});

describe('the documented JSON shape', () => {
  it('a missing environment variable is an error naming it', () => {
    const text = issueConfigText();
    expect(() => parseConfigText(text, { OPENAI_API_KEY: 'x' })).toThrow(/TEAM_A_KEY/);
    try {
      createGateway(JSON.parse(text) as GatewayConfigInput, { env: {} });
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(ConfigError);
      expect((e as ConfigError).message).toContain('OPENAI_API_KEY');
      expect((e as ConfigError).message).toContain('TEAM_A_KEY');
    }
  });

  it('works end to end with ${VAR} interpolation, upstreamModel and key globs', async () => {
    const env = { OPENAI_API_KEY: openai.apiKey, TEAM_A_KEY: 'team-a-secret-key-1' };
    const gateway = createGateway(JSON.parse(issueConfigText()) as GatewayConfigInput, { env });
    try {
      const res = await gateway.handle(chatRequest('team-a-secret-key-1', 'gpt-4o-mini'));
      expect(res.status).toBe(200);
      expect(((await json(res)).choices as Array<{ message: { content: string } }>)[0]?.message.content).toBe('[openai] you said: config test');
      expect(openai.requests.at(-1)?.headers.authorization).toBe(`Bearer ${openai.apiKey}`);

      const denied = await gateway.handle(chatRequest('team-a-secret-key-1', 'house-model'));
      expect(denied.status).toBe(403);

      const ops = await gateway.handle(chatRequest('sk-ops-123', 'house-model'));
      expect(ops.status).toBe(200);
      const seen = local.requests.at(-1);
      expect((seen?.body as { model: string }).model).toBe('qwen3-8b');
      // The local provider has no apiKey: nothing is sent, in particular not the caller's key.
      expect(seen?.headers.authorization).toBeUndefined();
      expect(JSON.stringify(seen?.headers)).not.toContain('sk-ops-123');
    } finally {
      await gateway.close();
    }
  });

  it('reads ${VAR} from process.env by default', async () => {
    process.env.TEAM_A_KEY = 'from-process-env-key';
    process.env.OPENAI_API_KEY = openai.apiKey;
    try {
      const gateway = createGateway(JSON.parse(issueConfigText()) as GatewayConfigInput);
      const res = await gateway.handle(chatRequest('from-process-env-key', 'gpt-4o-mini'));
      expect(res.status).toBe(200);
      await gateway.close();
    } finally {
      delete process.env.TEAM_A_KEY;
      delete process.env.OPENAI_API_KEY;
    }
  });
});

describe('routing by model id', () => {
  const config = (): GatewayConfigInput => ({
    providers: [
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
      { id: 'local', type: 'openai-compatible', baseURL: local.baseURL },
    ],
    models: [{ id: 'gpt-4o', provider: 'openai' }],
    keys: [{ id: 'all', key: 'routing-key-0001' }, { id: 'local-only', key: 'routing-key-0002', models: ['local/*'] }],
  });

  it('providerId/upstreamModel goes straight to that provider', async () => {
    const gateway = createGateway(config());
    const a = await gateway.handle(chatRequest('routing-key-0001', 'local/mistral-small'));
    expect(a.status).toBe(200);
    expect((local.requests.at(-1)?.body as { model: string }).model).toBe('mistral-small');
    const b = await gateway.handle(chatRequest('routing-key-0001', 'openai/gpt-4.1'));
    expect(b.status).toBe(200);
    expect((openai.requests.at(-1)?.body as { model: string }).model).toBe('gpt-4.1');
    expect(((await json(b)) as { model: string }).model).toBe('gpt-4.1-2024-08-06');
    for (const model of ['nowhere/x', 'openai/', '/gpt-4o']) {
      const res = await gateway.handle(chatRequest('routing-key-0001', model));
      expect(res.status, model).toBe(404);
    }
    await gateway.close();
  });

  it('key globs apply to direct ids', async () => {
    const gateway = createGateway(config());
    expect((await gateway.handle(chatRequest('routing-key-0002', 'local/anything'))).status).toBe(200);
    expect((await gateway.handle(chatRequest('routing-key-0002', 'openai/gpt-4o'))).status).toBe(403);
    expect((await gateway.handle(chatRequest('routing-key-0002', 'gpt-4o'))).status).toBe(403);
    await gateway.close();
  });
});

describe('host identity', () => {
  const config = (): GatewayConfigInput => ({
    providers: [{ id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey }],
    models: [{ id: 'gpt-4o', provider: 'openai' }, { id: 'gpt-4o-mini', provider: 'openai' }],
    keys: [{ id: 'config-key', key: 'config-key-secret-1' }, { id: 'off', key: 'disabled-key-secret', disabled: true }],
  });

  it('options.authenticate(token, request) can accept a token as a principal, or defer to config keys', async () => {
    const calls: Array<{ token: string; header: string | null }> = [];
    const events: ResponseEvent[] = [];
    const gateway = createGateway(config(), {
      authenticate: (token, request) => {
        calls.push({ token, header: request.headers.get('x-tenant') });
        return token === 'host-issued-token-1' ? { id: 'tenant-42', models: ['gpt-4o'] } : null;
      },
      hooks: { onResponse: (e) => void events.push(e) },
    });
    const ok = await gateway.handle(chatRequest('host-issued-token-1', 'gpt-4o', { 'x-tenant': 't42' }));
    expect(ok.status).toBe(200);
    expect(calls[0]).toEqual({ token: 'host-issued-token-1', header: 't42' });
    expect(events.at(-1)?.keyId).toBe('tenant-42');
    expect((await gateway.handle(chatRequest('host-issued-token-1', 'gpt-4o-mini'))).status).toBe(403);
    // null -> the config keys still work; unknown tokens are still 401.
    expect((await gateway.handle(chatRequest('config-key-secret-1', 'gpt-4o-mini'))).status).toBe(200);
    expect((await gateway.handle(chatRequest('nobody-knows-this', 'gpt-4o'))).status).toBe(401);
    await gateway.close();
  });

  it('an async authenticate works too', async () => {
    const gateway = createGateway(config(), { authenticate: async (token) => (token === 'async-token-77' ? { id: 'async-user' } : undefined) });
    expect((await gateway.handle(chatRequest('async-token-77', 'gpt-4o'))).status).toBe(200);
    await gateway.close();
  });

  it('context.principal skips the key check but keeps model permissions', async () => {
    const events: ResponseEvent[] = [];
    const gateway = createGateway(config(), { hooks: { onResponse: (e) => void events.push(e) } });
    const ok = await gateway.handle(chatRequest(undefined, 'gpt-4o'), { principal: { id: 'user-7', models: ['gpt-4o'] } });
    expect(ok.status).toBe(200);
    expect(events.at(-1)?.keyId).toBe('user-7');
    const denied = await gateway.handle(chatRequest(undefined, 'gpt-4o-mini'), { principal: { id: 'user-7', models: ['gpt-4o'] } });
    expect(denied.status).toBe(403);
    expect((await gateway.handle(chatRequest(undefined, 'gpt-4o'))).status).toBe(401);
    await gateway.close();
  });

  it('a disabled key is rejected', async () => {
    const gateway = createGateway(config());
    expect((await gateway.handle(chatRequest('disabled-key-secret', 'gpt-4o'))).status).toBe(401);
    await gateway.close();
  });
});

describe('key store', () => {
  it('finds a key only by its exact value and keeps no key text', async () => {
    const store = new KeyStore([{ id: 'a', key: 'exact-key-value-123', models: ['*'] }]);
    expect(await store.lookup('exact-key-value-123')).toEqual({ id: 'a', models: ['*'] });
    for (const near of ['exact-key-value-124', 'exact-key-value-12', 'exact-key-value-1234', 'EXACT-KEY-VALUE-123', '']) {
      expect(await store.lookup(near)).toBeUndefined();
    }
    expect(JSON.stringify(store)).not.toContain('exact-key-value-123');
  });

  it('timingSafeEqual compares whole arrays', () => {
    expect(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(true);
    expect(timingSafeEqual(new Uint8Array([1, 2, 3]), new Uint8Array([1, 2, 4]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array([9, 2, 3]), new Uint8Array([1, 2, 3]))).toBe(false);
    expect(timingSafeEqual(new Uint8Array([1, 2]), new Uint8Array([1, 2, 3]))).toBe(false);
  });
});

describe('a misspelt provider field', () => {
  it('is an error naming the field, with the right spelling, instead of being dropped', () => {
    // Dropped, `baseUrl` would leave the provider on the vendor's default host, with its key.
    const config = { providers: [{ id: 'local', type: 'openai', baseUrl: 'http://127.0.0.1:9/v1', apiKey: 'sk-local-provider-key' }] };
    let error: unknown;
    try {
      parseConfig(config);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).issues).toContain('providers.0: Unrecognized key: "baseUrl" (did you mean "baseURL"?)');
    expect(() => parseConfig({ providers: [{ id: 'local', type: 'openai', baseURL: 'http://127.0.0.1:9/v1', apiKey: 'sk-local-provider-key' }] })).not.toThrow();
  });

  it('a field no provider has is refused too', () => {
    expect(() => parseConfig({ providers: [{ id: 'p', type: 'mock', colour: 'blue' }] })).toThrow(/providers\.0: Unrecognized key: "colour"$/m);
  });
});
