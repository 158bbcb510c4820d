/**
 * The one upstream caller (src/upstream/call.ts) and the one stream pump (src/upstream/stream-pump.ts):
 * error bodies read in the shape of the provider's protocol (a Veo/Gemini error in its array form
 * too), secrets scrubbed, redirects refused, and the pump's byte relay and SSE transform both
 * ending in the same bookkeeping (completed flag, in-band error, timers released).
 */
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../src/errors.js';
import { createProvider } from '../src/providers/registry.js';
import type { FetchLike } from '../src/providers/types.js';
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
