/**
 * The one upstream caller (src/upstream/call.ts) and the one stream pump (src/upstream/stream-pump.ts):
 * error bodies read in the shape of the provider's protocol (a Veo/Gemini error in its array form
 * too), secrets scrubbed, redirects refused, and the pump's byte relay and SSE transform both
 * ending in the same bookkeeping (completed flag, in-band error, timers released).
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GatewayError } from '../../src/core/errors.js';
import { createProvider } from '../../src/providers/registry.js';
import type { AbortHook, FetchLike, HookableFetch } from '../../src/providers/types.js';
import { callUpstream, readUpstreamJson, upstreamRequest } from '../../src/upstream/call.js';
import type { RequestContext } from '../../src/request/context.js';
import { byteRelayTransform, pumpReply, sseTransform } from '../../src/upstream/stream-pump.js';
import { toResponse } from '../../src/reply/reply.js';

const SECRET = 'AIzaSyD-upstream-secret-key-000000000000';

function provider(type: 'gemini' | 'openai', fetch: FetchLike) {
  return createProvider({ id: `p-${type}`, type, baseURL: 'http://upstream.test', apiKey: SECRET }, { fetch, now: () => 0, defaultTimeoutMs: 5000 });
}

function stream(chunks: string[], stall = false): ReadableStream<Uint8Array> {
  const enc = new TextEncoder();
  let i = 0;
  return new ReadableStream({
    pull(controller) {
      if (i < chunks.length) controller.enqueue(enc.encode(chunks[i++] as string));
      else if (!stall) controller.close();
    },
  });
}

async function caught(p: Promise<unknown>): Promise<GatewayError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof GatewayError) return err;
    throw err;
  }
  throw new Error('expected a GatewayError');
}

describe('callUpstream', () => {
  it('reads a Gemini (Veo) error in its array form with the Gemini reader, secrets scrubbed', async () => {
    const body = JSON.stringify([{ error: { code: 429, message: `Quota exceeded for veo (key ${SECRET})`, status: 'RESOURCE_EXHAUSTED' } }]);
    const p = provider('gemini', async () => new Response(body, { status: 429, headers: { 'retry-after': '7' } }));
    const err = await caught(callUpstream(p, { url: 'http://upstream.test/v1beta/models/veo:predictLongRunning', headers: new Headers(), body: '{}' }));
    expect(err.status).toBe(429);
    expect(err.retryAfter).toBe(7);
    expect(err.message).toContain('Quota exceeded for veo');
    expect(err.message).not.toContain(SECRET);
    expect(err.message).not.toContain('RESOURCE_EXHAUSTED');
  });

  it('reads an OpenAI error with the OpenAI reader and refuses a redirect', async () => {
    const p = provider('openai', async (input) => (String(input).endsWith('/moved') ? new Response(null, { status: 302, headers: { location: 'http://elsewhere.test/' } }) : Response.json({ error: { message: 'bad size' } }, { status: 400 })));
    const bad = await caught(callUpstream(p, { url: 'http://upstream.test/v1/images/generations', headers: new Headers(), body: '{}' }));
    expect(bad.status).toBe(400);
    expect(bad.message).toBe("Upstream provider 'p-openai' returned 400: bad size");
    const moved = await caught(callUpstream(p, { url: 'http://upstream.test/moved', headers: new Headers() }));
    expect(moved.status).toBe(502);
    expect(moved.detail).toBe('upstream_redirect');
  });

  it('GET without a body; a JSON answer is read and anything else is a 502', async () => {
    const methods: string[] = [];
    const p = provider('openai', async (_input, init) => {
      methods.push(init?.method ?? '');
      return new Response(methods.length === 1 ? '{"id":"v1"}' : 'not json');
    });
    expect(await readUpstreamJson(await callUpstream(p, { url: 'http://upstream.test/a', headers: new Headers() }), p.id)).toEqual({ id: 'v1' });
    const err = await caught(callUpstream(p, { url: 'http://upstream.test/b', headers: new Headers(), body: '{}' }).then((r) => readUpstreamJson(r, p.id)));
    expect(err.status).toBe(502);
    expect(methods).toEqual(['GET', 'POST']);
  });
});

describe('callUpstream with a fetch that takes an abort hook (no AbortSignal)', () => {
  /** A fetch that takes an abort hook (HookableFetch), answers when told to and records how it was cut. */
  function hookedFetch() {
    const seen: { signal: unknown; cuts: unknown[] } = { signal: 'unset', cuts: [] };
    let answer: ((res: Response) => void) | undefined;
    const send = (init: RequestInit | undefined, hook: AbortHook | undefined) =>
      new Promise<Response>((resolve, reject) => {
        seen.signal = init?.signal;
        answer = resolve;
        hook?.((reason) => {
          seen.cuts.push(reason);
          reject(reason);
        });
      });
    const fetch: HookableFetch = Object.assign((_input: Request | string | URL, init?: RequestInit) => send(init, undefined), {
      fetchWithAbortHook: (_input: string | URL, init: RequestInit, hook: AbortHook) => send(init, hook),
    });
    return { fetch, seen, answer: (res: Response) => answer?.(res) };
  }

  it('passes no signal, and an answered call builds none until the result is asked for it', async () => {
    const f = hookedFetch();
    const pending = callUpstream(provider('openai', f.fetch), { url: 'http://upstream.test/a', headers: new Headers(), body: '{}' });
    await new Promise((r) => setImmediate(r));
    f.answer(new Response('{"ok":true}'));
    const result = await pending;
    expect(f.seen.signal).toBeUndefined();
    expect(await readUpstreamJson(result, 'p-openai')).toEqual({ ok: true });
    expect(result.signal.aborted).toBe(false);
    result.abort(new Error('late'));
    expect(result.signal.aborted).toBe(true);
    expect(f.seen.cuts).toHaveLength(1);
  });

  it('the client leaving (onClientGone) cuts the call: 499, once', async () => {
    const f = hookedFetch();
    let leave: () => void = () => {};
    const onClientGone = (listener: () => void) => {
      leave = listener;
      return () => {
        leave = () => {};
      };
    };
    const pending = caught(callUpstream(provider('openai', f.fetch), { url: 'http://upstream.test/a', headers: new Headers(), body: '{}', onClientGone }));
    await new Promise((r) => setImmediate(r));
    leave();
    const err = await pending;
    expect(err.code).toBe('client_closed');
    expect(f.seen.cuts).toEqual([expect.objectContaining({ name: 'AbortError', message: 'Client disconnected' })]);
  });

  it('a client already gone cuts the call before it is made', async () => {
    const f = hookedFetch();
    const err = await caught(callUpstream(provider('openai', f.fetch), { url: 'http://upstream.test/a', headers: new Headers(), body: '{}', onClientGone: (listener) => (listener(), () => {}) }));
    expect(err.code).toBe('client_closed');
    expect(f.seen.cuts).toHaveLength(1);
  });

  it('no answer within the timeout: the call is cut with a TimeoutError and the caller gets a 504', async () => {
    const f = hookedFetch();
    const p = createProvider({ id: 'p-slow', type: 'openai', baseURL: 'http://upstream.test', apiKey: SECRET, timeoutMs: 20 }, { fetch: f.fetch, now: () => 0, defaultTimeoutMs: 20 });
    const err = await caught(callUpstream(p, { url: 'http://upstream.test/a', headers: new Headers(), body: '{}' }));
    expect(err.code).toBe('upstream_timeout');
    expect(f.seen.cuts).toEqual([expect.objectContaining({ name: 'TimeoutError' })]);
  });
});

describe('callUpstream timeouts (one timer for the headers and the total time)', () => {
  /** A hooked fetch that answers at once with a body that never ends, or never answers. */
  function stalling(answers: boolean) {
    const cuts: unknown[] = [];
    const send = (hook: AbortHook | undefined) =>
      new Promise<Response>((resolve, reject) => {
        hook?.((reason) => {
          cuts.push(reason);
          reject(reason);
        });
        if (answers) resolve(new Response(stream(['{"a":'], true)));
      });
    const fetch: HookableFetch = Object.assign((_input: Request | string | URL) => send(undefined), {
      fetchWithAbortHook: (_input: string | URL, _init: RequestInit, hook: AbortHook) => send(hook),
    });
    const p = createProvider({ id: 'p-t', type: 'openai', baseURL: 'http://upstream.test', apiKey: SECRET, timeoutMs: 1000 }, { fetch, now: () => 0, defaultTimeoutMs: 1000 });
    return { p, cuts };
  }
  const call = (p: ReturnType<typeof stalling>['p'], extra: { totalMs?: number; idleMs?: number } = {}) => callUpstream(p, { url: 'http://upstream.test/a', headers: new Headers(), body: '{}', ...extra });

  afterEach(() => {
    vi.useRealTimers();
  });

  it('no answer: the headers timeout when it comes first (or at the same time), else the total time', async () => {
    vi.useFakeTimers();
    for (const [totalMs, message] of [
      [undefined, /did not answer within 1000 ms/],
      [5000, /did not answer within 1000 ms/],
      [1000, /did not answer within 1000 ms/],
      [400, /total time ran out before/],
    ] as const) {
      const s = stalling(false);
      const pending = caught(call(s.p, totalMs === undefined ? {} : { totalMs }));
      await vi.advanceTimersByTimeAsync(Math.min(totalMs ?? 1000, 1000) - 1);
      expect(s.cuts).toEqual([]);
      await vi.advanceTimersByTimeAsync(1);
      const err = await pending;
      expect([totalMs, err.code, err.message]).toEqual([totalMs, 'upstream_timeout', expect.stringMatching(message)]);
      expect(s.cuts).toEqual([expect.objectContaining({ name: 'TimeoutError' })]);
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it('headers in time: the headers timeout no longer cuts; the total time still does, to the ms', async () => {
    vi.useFakeTimers();
    const s = stalling(true);
    const result = await call(s.p, { totalMs: 2500 });
    await vi.advanceTimersByTimeAsync(2499);
    expect([s.cuts, result.timedOut(), result.signal.aborted]).toEqual([[], undefined, false]);
    await vi.advanceTimersByTimeAsync(1);
    expect(result.timedOut()).toBe('total');
    expect(result.signal.reason).toEqual(expect.objectContaining({ name: 'TimeoutError', message: 'Upstream total timeout' }));
    expect(s.cuts).toHaveLength(1);
    result.done();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('headers in time, no total time: no timer is left; done() before the total time leaves none either', async () => {
    vi.useFakeTimers();
    const s = stalling(true);
    await call(s.p);
    expect(vi.getTimerCount()).toBe(0);
    const result = await call(s.p, { totalMs: 2500 });
    await vi.advanceTimersByTimeAsync(1500);
    result.done();
    expect(vi.getTimerCount()).toBe(0);
    await vi.advanceTimersByTimeAsync(5000);
    expect([s.cuts, result.timedOut()]).toEqual([[], undefined]);
  });

  it('a stream that goes silent after touch(): the idle timeout, restarted by each touch', async () => {
    vi.useFakeTimers();
    const s = stalling(true);
    const result = await call(s.p, { totalMs: 60_000, idleMs: 300 });
    result.touch();
    await vi.advanceTimersByTimeAsync(299);
    result.touch();
    await vi.advanceTimersByTimeAsync(299);
    expect(result.timedOut()).toBeUndefined();
    await vi.advanceTimersByTimeAsync(1);
    expect(result.timedOut()).toBe('idle');
    expect(s.cuts).toEqual([expect.objectContaining({ name: 'TimeoutError', message: 'Upstream idle timeout' })]);
    result.done();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the signal read after a cut is aborted with the first reason', async () => {
    const s = stalling(true);
    const result = await call(s.p);
    const first = new Error('first');
    result.abort(first);
    result.abort(new Error('second'));
    expect(result.signal.aborted).toBe(true);
    expect(result.signal.reason).toBe(first);
    expect(s.cuts).toEqual([first]);
    result.done();
  });
});

describe('upstreamRequest', () => {
  it("keeps the caller's fields, follows the bridge's client-gone hook on the request's own context only", () => {
    const hook = () => () => {};
    const signal = new AbortController().signal;
    const ctx = { obs: {}, signal, clientGone: undefined, deadline: undefined } as unknown as RequestContext;
    const req = { url: 'http://upstream.test/a', method: 'PUT', headers: new Headers(), body: 'x', credential: 'caller', protocol: 'gemini', totalMs: 5 } as const;
    expect(upstreamRequest(ctx, { ...req }, 123)).toEqual({ ...req, signal, onClientGone: undefined, idleMs: 123, observer: ctx.obs });
    const following: RequestContext = { ...ctx, clientGone: hook };
    const own = upstreamRequest(following, { ...req }, 123);
    expect([own.onClientGone, own.signal]).toEqual([hook, undefined]);
    // A context derived as a background run derives it (its own signal, no bridge hook) follows that signal.
    const runSignal = new AbortController().signal;
    const derived = upstreamRequest({ ...following, signal: runSignal, clientGone: undefined, deadline: Date.now() + 60_000 }, { ...req }, 123);
    expect([derived.onClientGone, derived.signal]).toEqual([undefined, runSignal]);
    expect(derived.totalMs).toBeGreaterThan(59_000);
  });
});

describe('pumpReply', () => {
  it('relays bytes as they are and reports a completed stream', async () => {
    const p = provider('openai', async () => new Response(stream(['data: {"a":', '1}\n\n', `data: ${SECRET}\n\n`])));
    const upstream = await callUpstream(p, { url: 'http://upstream.test/s', headers: new Headers(), body: '{}', idleMs: 1000 });
    const ends: Array<[string | undefined, boolean]> = [];
    const res = toResponse(pumpReply({ upstream, transform: byteRelayTransform(), clientSignal: new AbortController().signal, secrets: [SECRET], headers: {}, onEnd: async (f, c) => void ends.push([f?.code, c]) }));
    expect(await res.text()).toBe('data: {"a":1}\n\ndata: [redacted]\n\n');
    expect(ends).toEqual([[undefined, true]]);
  });

  it('runs SSE events through a transform, events split across chunks included, and ends a stalled stream in-band', async () => {
    const p = provider('openai', async () => new Response(stream(['data: one\n\nda', 'ta: two\n\n'], true)));
    const upstream = await callUpstream(p, { url: 'http://upstream.test/s', headers: new Headers(), body: '{}', idleMs: 50 });
    const ends: Array<[string | undefined, boolean]> = [];
    const transform = sseTransform({ event: (ev) => `<${ev.data}>`, end: () => '<end>', error: (err) => `<error ${err.code}>` });
    const res = toResponse(pumpReply({ upstream, transform, clientSignal: new AbortController().signal, secrets: [], headers: {}, keepAlive: false, onEnd: async (f, c) => void ends.push([f?.code, c]) }));
    expect(await res.text()).toBe('<one><two><error upstream_timeout>');
    expect(ends).toEqual([['upstream_timeout', false]]);
  });
});
