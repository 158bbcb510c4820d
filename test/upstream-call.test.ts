/**
 * The one upstream caller (src/upstream/call.ts) and the one stream pump (src/upstream/stream-pump.ts):
 * error bodies read in the shape of the provider's protocol (a Veo/Gemini error in its array form
 * too), secrets scrubbed, redirects refused, and the pump's byte relay and SSE transform both
 * ending in the same bookkeeping (completed flag, in-band error, timers released).
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { createProvider } from '../src/providers/registry.js';
import { ABORT_HOOK, type AbortHook, type FetchLike } from '../src/providers/types.js';
import { callUpstream, readUpstreamJson } from '../src/upstream/call.js';
import { byteRelayTransform, pumpReply, sseTransform } from '../src/upstream/stream-pump.js';
import { toResponse } from '../src/http/reply.js';

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
  /** A fetch marked with ABORT_HOOK that answers when told to and records how it was cut. */
  function hookedFetch() {
    const seen: { signal: unknown; cuts: unknown[] } = { signal: 'unset', cuts: [] };
    let answer: ((res: Response) => void) | undefined;
    const fetch = Object.assign(
      (_input: Request | string | URL, init?: RequestInit) =>
        new Promise<Response>((resolve, reject) => {
          seen.signal = init?.signal;
          answer = resolve;
          (init as { [ABORT_HOOK]?: AbortHook })[ABORT_HOOK]?.((reason) => {
            seen.cuts.push(reason);
            reject(reason);
          });
        }),
      { [ABORT_HOOK]: true },
    );
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
