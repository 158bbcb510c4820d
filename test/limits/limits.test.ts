/**
 * Limits on one instance (memory store): requests per minute per key and per model (both apply,
 * the tightest one in the x-ratelimit-* headers), exact under parallel load, concurrency, tokens
 * per minute reserved before the call and settled with the real usage after, budgets per calendar
 * period with an injected clock, and the 429 in the caller's protocol shape with Retry-After.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, MemoryRateLimiter, type Gateway, type GatewayConfigInput, type ResponseEvent } from '../../src/index.js';
import { startMockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGatedOpenAI, type MockGatedOpenAI } from '../helpers/mock-gated-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

const KEY_A = 'mg-limits-key-a-000001';
const KEY_B = 'mg-limits-key-b-000002';
const UPSTREAM_KEY = 'upstream-limits-key-0123456789';

let upstream: MockGatedOpenAI;
const gateways: Gateway[] = [];

beforeAll(async () => {
  upstream = await startMockGatedOpenAI({ apiKeys: [UPSTREAM_KEY], usage: { prompt_tokens: 10, completion_tokens: 4 } });
});
afterAll(async () => {
  upstream.open();
  await Promise.all(gateways.map((g) => g.close()));
  await upstream?.close();
});

type Limits = NonNullable<NonNullable<GatewayConfigInput['keys']>[number]['limits']>;

function config(keyLimits: Limits | undefined, modelLimits?: Limits, extra: Partial<GatewayConfigInput> = {}): GatewayConfigInput {
  return {
    providers: [{ id: 'up', type: 'openai', baseURL: upstream.baseURL, apiKey: UPSTREAM_KEY }],
    models: [
      { id: 'limited', provider: 'up', upstreamModel: 'gpt-4o-mini', ...(modelLimits ? { limits: modelLimits } : {}), pricing: { inputPerMTok: 100_000, outputPerMTok: 100_000 } },
      { id: 'open', provider: 'up', upstreamModel: 'gpt-4o' },
    ],
    keys: [
      { id: 'a', key: KEY_A, ...(keyLimits ? { limits: keyLimits } : {}) },
      { id: 'b', key: KEY_B },
    ],
    retry: { attempts: 1 },
    ...extra,
  };
}

function gateway(cfg: GatewayConfigInput, now?: () => number, events?: ResponseEvent[]): Gateway {
  const gw = createShippedGateway(cfg, { ...(now ? { now } : {}), hooks: { onResponse: (e) => void events?.push(e) } });
  gateways.push(gw);
  return gw;
}

const chat = (key: string, body: Record<string, unknown> = {}): Request => jsonRequest('/v1/chat/completions', chatBody('limited', body), { key });

function limitHeaders(res: Response): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const kind of ['requests', 'tokens']) for (const what of ['limit', 'remaining', 'reset']) out[`${what}-${kind}`] = res.headers.get(`x-ratelimit-${what}-${kind}`);
  return out;
}

describe('requests per minute', () => {
  it('answers 429 with Retry-After once a key passes its limit; other keys unaffected; the next window lets it through', async () => {
    let now = 1_000_000;
    const gw = gateway(config({ requestsPerMinute: 2 }), () => now);
    const first = await gw.handle(chat(KEY_A));
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ 'limit-requests': '2', 'remaining-requests': '1', 'reset-requests': '1m0s' });
    now += 1500;
    const second = await gw.handle(chat(KEY_A));
    expect(limitHeaders(second)).toMatchObject({ 'remaining-requests': '0', 'reset-requests': '58.5s' });
    const limited = await gw.handle(chat(KEY_A));
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBe('59');
    expect(limitHeaders(limited)).toMatchObject({ 'limit-requests': '2', 'remaining-requests': '0' });
    const body = (await limited.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'rate_limit_error', code: 'rate_limit_exceeded' });
    expect(body.error.message).toContain('2 requests per minute');
    const other = await gw.handle(chat(KEY_B));
    expect(other.status).toBe(200);
    expect(other.headers.get('x-ratelimit-limit-requests')).toBeNull();
    now += 60_000;
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
  });

  it('applies the key and the model limits together; the headers show the tightest one', async () => {
    const gw = gateway(config({ requestsPerMinute: 5 }, { requestsPerMinute: 3 }), () => 5_000_000);
    const viaModel = await gw.handle(chat(KEY_A));
    expect(limitHeaders(viaModel)).toMatchObject({ 'limit-requests': '3', 'remaining-requests': '2' });
    // Another model: only the key's limit, which counted the first request too.
    const viaOther = await gw.handle(chat(KEY_A, { model: 'open' }));
    expect(limitHeaders(viaOther)).toMatchObject({ 'limit-requests': '5', 'remaining-requests': '3' });
    // Key B has no limit of its own but meets the model's.
    expect((await gw.handle(chat(KEY_B))).status).toBe(200);
    const third = await gw.handle(chat(KEY_B));
    expect(third.status).toBe(200);
    expect(third.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    const refused = await gw.handle(chat(KEY_A));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain("the model 'limited'");
  });

  it('lets exactly M of N parallel requests through (key and model limits)', async () => {
    const gw = gateway(config({ requestsPerMinute: 7 }), () => 9_000_000);
    const statuses = await Promise.all(Array.from({ length: 25 }, () => gw.handle(chat(KEY_A)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 200)).toHaveLength(7);
    expect(statuses.filter((s) => s === 429)).toHaveLength(18);

    const gw2 = gateway(config(undefined, { requestsPerMinute: 4 }), () => 9_000_000);
    const mixed = await Promise.all(Array.from({ length: 20 }, (_, i) => gw2.handle(chat(i % 2 ? KEY_A : KEY_B)).then((r) => r.status)));
    expect(mixed.filter((s) => s === 200)).toHaveLength(4);
  });
});

describe('concurrent requests', () => {
  it('holds requests in flight to the limit, exactly, and frees the slots when they end', async () => {
    const gw = gateway(config({ concurrentRequests: 3 }));
    upstream.closeGate();
    const pending = Array.from({ length: 10 }, () => gw.handle(chat(KEY_A)));
    const answered: number[] = [];
    for (const p of pending) void p.then((r) => answered.push(r.status));
    // The refused ones answer at once; three wait at the (gated) upstream.
    await expect.poll(() => answered.length).toBe(7);
    expect(answered.every((s) => s === 429)).toBe(true);
    await expect.poll(() => upstream.inFlight).toBe(3);
    const refused = await gw.handle(chat(KEY_A));
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(((await refused.json()) as { error: { message: string } }).error.message).toContain('3 concurrent requests');
    upstream.open();
    const done = await Promise.all(pending);
    expect(done.filter((r) => r.status === 200)).toHaveLength(3);
    // Slots are free again: three more at once.
    const again = await Promise.all(Array.from({ length: 3 }, () => gw.handle(chat(KEY_A)).then((r) => r.status)));
    expect(again).toEqual([200, 200, 200]);
  });
});

describe('tokens per minute', () => {
  it('reserves the estimated input plus the maximum output, settles with the real usage, and stops a burst before it overshoots', async () => {
    const now = 20_000_000;
    const gw = gateway(config({ tokensPerMinute: 1000 }), () => now);
    // "hi" is about 1 token; max_tokens 300: 301 reserved.
    const first = await gw.handle(chat(KEY_A, { max_tokens: 300 }));
    expect(first.status).toBe(200);
    expect(limitHeaders(first)).toMatchObject({ 'limit-tokens': '1000', 'remaining-tokens': '699', 'reset-tokens': '1m0s' });
    // Settled to the real usage (10 + 4 = 14), so the next one sees 1000 - 14 - 301.
    const second = await gw.handle(chat(KEY_A, { max_tokens: 300 }));
    expect(second.headers.get('x-ratelimit-remaining-tokens')).toBe('685');

    // A burst of streams held at the upstream: 28 used, room for three reservations of 301, not four.
    upstream.closeGate();
    const burst = await Promise.all(Array.from({ length: 4 }, () => gw.handle(chat(KEY_A, { max_tokens: 300, stream: true }))));
    expect(burst.map((r) => r.status).sort()).toEqual([200, 200, 200, 429]);
    const refused = burst.find((r) => r.status === 429) as Response;
    expect(((await refused.json()) as { error: { message: string } }).error.message).toMatch(/1000 tokens per minute reached for this API key: used 931, requested about 301/);
    upstream.open();
    for (const r of burst) if (r.status === 200) expect(await r.text()).toContain('[DONE]');
    // Each stream settled to 14: 5 x 14 used.
    const after = await gw.handle(chat(KEY_A, { max_tokens: 10 }));
    expect(after.headers.get('x-ratelimit-remaining-tokens')).toBe(String(1000 - 5 * 14 - 11));

    const tooLarge = await gw.handle(chat(KEY_A, { max_tokens: 5000 }));
    expect(tooLarge.status).toBe(429);
    expect(((await tooLarge.json()) as { error: { message: string } }).error.message).toContain('Request too large');
  });

  it('gives the reservation back when the upstream fails before answering', async () => {
    const gw = gateway(config({ tokensPerMinute: 1000 }), () => 30_000_000);
    upstream.failNext(500, { error: { message: 'boom', type: 'server_error' } });
    expect((await gw.handle(chat(KEY_A, { max_tokens: 300 }))).status).toBe(500);
    const next = await gw.handle(chat(KEY_A, { max_tokens: 300 }));
    expect(next.headers.get('x-ratelimit-remaining-tokens')).toBe('699');
  });
});

describe('budgets', () => {
  it('refuses with insufficient_quota once the day is spent, and serves again when the next UTC day starts', async () => {
    let now = Date.UTC(2025, 0, 31, 23, 0, 0);
    const events: ResponseEvent[] = [];
    // 14 tokens at 100 000 USD per million: 1.4 USD a request.
    const gw = gateway(config({ budget: { usd: 2, period: 'day' } }), () => now, events);
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
    expect(events.map((e) => e.costUsd)).toEqual([1.4, 1.4]);
    const spent = await gw.handle(chat(KEY_A));
    expect(spent.status).toBe(429);
    expect(spent.headers.get('retry-after')).toBe('3600');
    const body = (await spent.json()) as { error: { type: string; code: string; message: string } };
    expect(body.error).toMatchObject({ type: 'insufficient_quota', code: 'insufficient_quota' });
    expect(body.error.message).toContain('$2 per day');
    // Another key has its own (no) budget.
    expect((await gw.handle(chat(KEY_B))).status).toBe(200);
    now = Date.UTC(2025, 1, 1, 0, 0, 1);
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
  });

  it('a month budget on the model spans keys and renews on the first of the month (UTC)', async () => {
    let now = Date.UTC(2025, 1, 28, 23, 59, 0);
    const gw = gateway(config(undefined, { budget: { usd: 1, period: 'month' } }), () => now);
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
    const refused = await gw.handle(chat(KEY_B));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string; message: string } }).error).toMatchObject({ code: 'insufficient_quota' });
    expect(refused.headers.get('retry-after')).toBe('60');
    // Requests to a model without a budget go on.
    expect((await gw.handle(chat(KEY_B, { model: 'open' }))).status).toBe(200);
    now = Date.UTC(2025, 2, 1, 0, 0, 0);
    expect((await gw.handle(chat(KEY_B))).status).toBe(200);
  });
});

describe('budgets and streams the client leaves', () => {
  it('a stream left before its usage arrived is charged its reservation (estimated input + max output): leaving early does not dodge the budget', async () => {
    const now = Date.UTC(2025, 4, 5, 12, 0, 0);
    const events: ResponseEvent[] = [];
    // At 100 000 USD per million tokens, max_tokens 10 alone reserves 1 USD: two left streams pass a 2 USD budget.
    const gw = gateway(config({ budget: { usd: 2, period: 'day' } }), () => now, events);
    upstream.closeGate();
    try {
      for (let i = 1; i <= 2; i++) {
        const res = await gw.handle(chat(KEY_A, { stream: true, max_tokens: 10 }));
        expect(res.status).toBe(200);
        const reader = (res.body as ReadableStream<Uint8Array>).getReader();
        expect((await reader.read()).done).toBe(false);
        await reader.cancel();
        await expect.poll(() => events.length).toBe(i);
      }
    } finally {
      upstream.open();
    }
    // The upstream never reported usage: the hook has no cost, the budget has the reservations.
    expect(events.map((e) => [e.streamCompleted, e.costUsd])).toEqual([
      [false, undefined],
      [false, undefined],
    ]);
    const refused = await gw.handle(chat(KEY_A));
    expect(refused.status).toBe(429);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
  });

  it('a stream that ends unfinished with only part of its usage (Anthropic reports output at the end) is charged at least its reservation', async () => {
    const anthropic = await startMockAnthropic();
    try {
      const now = Date.UTC(2025, 4, 7, 12, 0, 0);
      const events: ResponseEvent[] = [];
      // max_tokens 1000 reserves 100 USD of output at 100 000 USD per million: far over the 50 USD budget.
      const gw = gateway(
        {
          providers: [{ id: 'an', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey }],
          models: [{ id: 'claude', provider: 'an', upstreamModel: 'claude-sonnet-4-5', pricing: { inputPerMTok: 100_000, outputPerMTok: 100_000 } }],
          keys: [{ id: 'a', key: KEY_A, limits: { budget: { usd: 50, period: 'day' } } }],
        },
        () => now,
        events,
      );
      anthropic.endStreamEarlyNext('content');
      const res = await gw.handle(chat(KEY_A, { model: 'claude', stream: true, max_tokens: 1000 }));
      expect(res.status).toBe(200);
      expect(await res.text()).toContain('"error"');
      await expect.poll(() => events.length).toBe(1);
      // message_start's usage arrived (the input and 1 output token), the rest never did: its price is far below the budget.
      expect(events[0]).toMatchObject({ streamCompleted: false, usage: { outputTokens: 1 } });
      expect(events[0]?.costUsd).toBeLessThan(50);
      const refused = await gw.handle(chat(KEY_A, { model: 'claude' }));
      expect(refused.status).toBe(429);
      expect(((await refused.json()) as { error: { code: string } }).error.code).toBe('insufficient_quota');
    } finally {
      await anthropic.close();
    }
  });

  it('a call refused before anything reached the client is not charged', async () => {
    const now = Date.UTC(2025, 4, 6, 12, 0, 0);
    const gw = gateway(config({ budget: { usd: 2, period: 'day' } }), () => now);
    // An upstream failure before the answer started (the reservation goes back whole).
    upstream.failNext(400, { error: { message: 'bad request', type: 'invalid_request_error' } });
    expect((await gw.handle(chat(KEY_A, { max_tokens: 10 }))).status).toBe(400);
    upstream.failNext(400, { error: { message: 'bad request', type: 'invalid_request_error' } });
    expect((await gw.handle(chat(KEY_A, { max_tokens: 10, stream: true }))).status).toBe(400);
    expect((await gw.handle(chat(KEY_A))).status).toBe(200);
  });
});

describe('the 429 in every protocol', () => {
  it('Anthropic and Gemini callers get their own error shape with Retry-After and the headers', async () => {
    const gw = createGateway(
      {
        providers: [{ id: 'mock', type: 'mock' }],
        models: [{ id: 'mock-chat', provider: 'mock' }],
        keys: [{ id: 'a', key: KEY_A, limits: { requestsPerMinute: 1 } }],
      },
      { now: () => 40_000_000 },
    );
    gateways.push(gw);
    const messages = () =>
      new Request('http://gw/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': KEY_A, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'mock-chat', max_tokens: 10, messages: [{ role: 'user', content: 'hi' }] }),
      });
    expect((await gw.handle(messages())).status).toBe(200);
    const anthropic = await gw.handle(messages());
    expect(anthropic.status).toBe(429);
    expect(anthropic.headers.get('retry-after')).toBe('60');
    expect(anthropic.headers.get('x-ratelimit-remaining-requests')).toBe('0');
    expect(((await anthropic.json()) as { error: { type: string } }).error.type).toBe('rate_limit_error');
    const gemini = await gw.handle(
      new Request('http://gw/v1beta/models/mock-chat:generateContent', {
        method: 'POST',
        headers: { 'x-goog-api-key': KEY_A, 'content-type': 'application/json' },
        body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }),
      }),
    );
    expect(gemini.status).toBe(429);
    expect(((await gemini.json()) as { error: { status: string; code: number } }).error).toMatchObject({ status: 'RESOURCE_EXHAUSTED', code: 429 });
  });
});

describe('memory store', () => {
  it('forgets ended windows, leases and periods', async () => {
    const store = new MemoryRateLimiter();
    for (let i = 0; i < 100; i++) await store.acquire([{ kind: 'window', name: `w${i}`, limit: 1, windowMs: 1000, amount: 1 }], 0);
    await store.acquire([{ kind: 'concurrency', name: 'c', limit: 1, member: 'm', leaseMs: 1000 }], 0);
    await store.spend('b', 5, 1000);
    const r = await store.acquire([{ kind: 'window', name: 'w0', limit: 1, windowMs: 1000, amount: 1 }], 5000);
    expect(r).toEqual({ allowed: true, states: [{ used: 1, resetAt: 6000 }] });
    const internals = store as unknown as { windows: Map<string, unknown>; leases: Map<string, unknown>; budgets: Map<string, unknown> };
    expect([internals.windows.size, internals.leases.size, internals.budgets.size]).toEqual([1, 0, 0]);
  });

  it('takes from every limit only when all have room', async () => {
    const store = new MemoryRateLimiter();
    const checks = [
      { kind: 'window' as const, name: 'a', limit: 10, windowMs: 60_000, amount: 4 },
      { kind: 'window' as const, name: 'b', limit: 5, windowMs: 60_000, amount: 4 },
    ];
    expect((await store.acquire(checks, 0)).allowed).toBe(true);
    const second = await store.acquire(checks, 0);
    expect(second).toMatchObject({ allowed: false, denied: 1, states: [{ used: 4 }, { used: 4 }] });
    // `a` was not charged by the refused request.
    expect((await store.acquire([checks[0] as (typeof checks)[number]], 0)).states[0]?.used).toBe(8);
  });
});
