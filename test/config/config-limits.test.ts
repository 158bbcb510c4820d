/**
 * The configuration of issue 12, exactly as written there: it parses, every bad path of its new
 * fields is listed in one ConfigError, and a gateway built from it serves requests (a model with
 * `deployments` goes to its first deployment for now; the key's own Anthropic key is used).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, parseConfigText, type GatewayConfigInput } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

/** Issue 12's configuration, verbatim. */
const ISSUE_CONFIG = `{
  "providers": [
    { "id": "openai-a", "type": "openai", "baseURL": "https://api.openai.com/v1", "apiKey": "\${OPENAI_KEY_A}" },
    { "id": "openai-b", "type": "openai", "baseURL": "https://api.openai.com/v1", "apiKey": "\${OPENAI_KEY_B}" },
    { "id": "anthropic", "type": "anthropic", "baseURL": "https://api.anthropic.com", "apiKey": "\${ANTHROPIC_KEY}" }
  ],
  "models": [
    { "id": "smart", "deployments": [
        { "provider": "openai-a", "upstreamModel": "gpt-4o-mini", "weight": 3 },
        { "provider": "openai-b", "upstreamModel": "gpt-4o-mini", "weight": 1 } ],
      "fallbacks": ["claude"],
      "limits": { "requestsPerMinute": 1000, "tokensPerMinute": 2000000 },
      "pricing": { "inputPerMTok": 0.15, "outputPerMTok": 0.6, "cachedInputPerMTok": 0.075 } },
    { "id": "claude", "provider": "anthropic", "upstreamModel": "claude-sonnet-4-5",
      "pricing": { "inputPerMTok": 3, "outputPerMTok": 15 } }
  ],
  "keys": [
    { "id": "team-a", "key": "\${TEAM_A_KEY}", "models": ["*"],
      "limits": { "requestsPerMinute": 60, "tokensPerMinute": 100000, "concurrentRequests": 4,
                  "budget": { "usd": 50, "period": "month" } },
      "providerKeys": { "anthropic": "\${TEAM_A_OWN_ANTHROPIC_KEY}" } }
  ],
  "retry": { "attempts": 3, "initialDelayMs": 200, "maxDelayMs": 8000 },
  "cooldown": { "failures": 3, "cooldownMs": 30000 },
  "timeouts": { "connectMs": 10000, "upstreamMs": 120000, "streamIdleMs": 300000, "totalMs": 900000 },
  "rateLimitStore": { "onError": "open" }
}`;

const ENV = {
  OPENAI_KEY_A: 'sk-openai-a-0123456789',
  OPENAI_KEY_B: 'sk-openai-b-0123456789',
  ANTHROPIC_KEY: 'sk-ant-gateway-0123456789',
  TEAM_A_KEY: 'mg-team-a-key-00000001',
  TEAM_A_OWN_ANTHROPIC_KEY: 'sk-ant-team-a-own-0123456789',
};

let openaiA: MockGatedOpenAI;
let openaiB: MockGatedOpenAI;
let anthropic: MockAnthropic;

beforeAll(async () => {
  openaiA = await startMockGatedOpenAI({ apiKeys: [ENV.OPENAI_KEY_A] });
  openaiB = await startMockGatedOpenAI({ apiKeys: [ENV.OPENAI_KEY_B] });
  // Anthropic accepts only the team's own key: the gateway's ANTHROPIC_KEY would be refused.
  anthropic = await startMockAnthropic({ apiKey: ENV.TEAM_A_OWN_ANTHROPIC_KEY });
});
afterAll(async () => {
  await openaiA?.close();
  await openaiB?.close();
  await anthropic?.close();
});

function configError(input: unknown): string[] {
  try {
    parseConfigText(JSON.stringify(input), {});
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as ConfigError).issues;
  }
  throw new Error('expected a ConfigError');
}

describe("issue 12's configuration", () => {
  it('parses as written, with the documented defaults filled in', () => {
    const cfg = parseConfigText(ISSUE_CONFIG, ENV);
    expect(cfg.models[0]?.deployments?.map((d) => [d.provider, d.weight])).toEqual([['openai-a', 3], ['openai-b', 1]]);
    expect(cfg.keys[0]?.limits).toEqual({ requestsPerMinute: 60, tokensPerMinute: 100000, concurrentRequests: 4, budget: { usd: 50, period: 'month' } });
    expect(cfg.rateLimitStore).toEqual({ onError: 'open', timeoutMs: 250 });
    expect(cfg.retry).toEqual({ attempts: 3, initialDelayMs: 200, maxDelayMs: 8000 });
    const defaults = parseConfigText('{}', {});
    expect(defaults.timeouts).toEqual({ connectMs: 10000, upstreamMs: 120000, streamIdleMs: 300000, totalMs: 900000 });
    expect(defaults.cooldown).toEqual({ failures: 3, cooldownMs: 30000 });
  });

  it('serves requests: a model with deployments goes to its first one; the key pays Anthropic with its own key', async () => {
    const text = ISSUE_CONFIG.replaceAll('https://api.openai.com/v1', 'OPENAI_BASE').replace('https://api.anthropic.com', anthropic.baseURL);
    const json = JSON.parse(text) as GatewayConfigInput & { providers: Array<{ baseURL: string }> };
    json.providers[0]!.baseURL = openaiA.baseURL;
    json.providers[1]!.baseURL = openaiB.baseURL;
    const gw = createShippedGateway(json, { env: ENV, random: () => 0 });
    try {
      const res = await gw.handle(
        new Request('http://gw/v1/chat/completions', {
          method: 'POST',
          headers: { authorization: `Bearer ${ENV.TEAM_A_KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'smart', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 }),
        }),
      );
      expect(res.status).toBe(200);
      expect(openaiA.keys).toEqual([ENV.OPENAI_KEY_A]);
      expect(openaiB.keys).toEqual([]);
      // The model's limit (1000) is looser than the key's (60): the key's is the tightest.
      expect(res.headers.get('x-ratelimit-limit-requests')).toBe('60');
      expect(res.headers.get('x-ratelimit-limit-tokens')).toBe('100000');
      // 10 input and 4 output tokens at 0.15 / 0.6 USD per million.
      expect(res.headers.get('x-modelgate-cost-usd')).toBe('0.0000039');

      const claude = await gw.handle(
        new Request('http://gw/v1/messages', {
          method: 'POST',
          headers: { 'x-api-key': ENV.TEAM_A_KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
          body: JSON.stringify({ model: 'claude', max_tokens: 50, messages: [{ role: 'user', content: 'hi' }] }),
        }),
      );
      expect(claude.status).toBe(200);
      expect(anthropic.requests.at(-1)?.headers['x-api-key']).toBe(ENV.TEAM_A_OWN_ANTHROPIC_KEY);
    } finally {
      await gw.close();
    }
  });
});

describe('validation of the new fields', () => {
  it('lists every bad path in one error', () => {
    const issues = configError({
      providers: [
        { id: 'oa', type: 'openai', apiKey: 'k' },
        { id: 'an', type: 'anthropic', apiKey: 'k' },
      ],
      models: [
        { id: 'both', provider: 'oa', deployments: [{ provider: 'oa' }] },
        { id: 'neither' },
        { id: 'deps', upstreamModel: 'x', deployments: [{ provider: 'nowhere' }, { provider: 'oa', weight: -1 }, { provider: 'oa', extra: 1 }] },
        {
          id: 'fb',
          provider: 'oa',
          fallbacks: ['ghost', 'fb'],
          limits: { requestsPerMinute: 0, requestPerMinute: 5 },
          pricing: { inputPerMTok: -1, outputPerMTok: 1 },
        },
        { id: 'resp', api: 'responses', deployments: [{ provider: 'oa' }, { provider: 'an' }] },
        { id: 'empty', deployments: [] },
      ],
      keys: [
        {
          id: 'k',
          key: 'mg-key-000000001',
          limits: { concurrentRequests: 1.5, tokensPerMinute: -3, budget: { usd: 0, period: 'year' } },
          providerKeys: { nowhere: 'x', oa: '' },
        },
      ],
      retry: { attempts: 0, initialDelayMs: 500, maxDelayMs: 100 },
      cooldown: { failures: 0, cooldownMs: 'soon' },
      timeouts: { connectMs: -5, totalMs: 'x' },
      rateLimitStore: { onError: 'maybe', timeoutMs: 0 },
    }).join('\n');
    for (const path of [
      'models.0.deployments: a model has either "provider" or "deployments", not both',
      'models.1.provider: required (or "deployments")',
      'models.2.upstreamModel',
      'models.2.deployments.0.provider: unknown provider "nowhere"',
      'models.2.deployments.1.weight',
      'models.2.deployments.2',
      'models.3.fallbacks.0: unknown model "ghost"',
      'models.3.fallbacks.1: a model cannot fall back to itself',
      'models.3.limits.requestsPerMinute',
      'models.3.limits: Unrecognized key',
      'models.3.pricing.inputPerMTok',
      'models.4.api: "responses" needs an openai or openai-compatible provider, not anthropic ("an")',
      'models.5.deployments',
      'keys.0.limits.concurrentRequests',
      'keys.0.limits.tokensPerMinute',
      'keys.0.limits.budget.usd',
      'keys.0.limits.budget.period',
      'keys.0.providerKeys.nowhere: unknown provider "nowhere"',
      'keys.0.providerKeys.oa',
      'retry.attempts',
      'retry.maxDelayMs: must be at least initialDelayMs',
      'cooldown.failures',
      'cooldown.cooldownMs',
      'timeouts.connectMs',
      'timeouts.totalMs',
      'rateLimitStore.onError',
      'rateLimitStore.timeoutMs',
    ]) {
      expect(issues).toContain(path);
    }
  });
});
