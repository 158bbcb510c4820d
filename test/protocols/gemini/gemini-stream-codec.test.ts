/**
 * Gemini codec, response side: recorded Gemini SSE streams (test/fixtures/gemini/*.sse.txt, in the
 * shape of the protocol notes' captures) replayed through the stream decoder with arbitrary network
 * chunk boundaries; the client stream encoder (SSE and JSON-array framing) and the pass-through relay.
 */
import { readFileSync } from 'node:fs';
import { GoogleGenAI } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { GatewayError } from '../../../src/core/errors.js';
import { readSSE } from '../../../src/wire/sse.js';
import type { IRStreamEvent } from '../../../src/ir/types.js';
import { decodeGeminiResponse } from '../../../src/protocols/gemini/upstream/decode-response.js';
import { encodeGeminiResponse } from '../../../src/protocols/gemini/client/encode-response.js';
import { toGeminiFinishReason } from '../../../src/protocols/gemini/client/map-finish-reason.js';
import { fromGeminiFinishReason } from '../../../src/protocols/gemini/upstream/map-finish-reason.js';
import { geminiPassthrough } from '../../../src/protocols/gemini/passthrough.js';
import { createGeminiStreamDecoder } from '../../../src/protocols/gemini/upstream/stream-decoder.js';
import { createGeminiStreamEncoder } from '../../../src/protocols/gemini/client/stream-encoder.js';
import { signatureFromToolCallId } from '../../../src/protocols/gemini/upstream/tool-call-ids.js';
import type { ResponseMeta } from '../../../src/protocols/types.js';

const fixture = (name: string): string => readFileSync(new URL(`../../fixtures/gemini/${name}`, import.meta.url), 'utf8');

/** A body that delivers `text` in pieces of `size` bytes (so events and even CRLFs are split). */
function body(text: string, size: number): ReadableStream<Uint8Array> {
  const bytes = new TextEncoder().encode(text);
  let at = 0;
  return new ReadableStream({
    pull(c) {
      if (at >= bytes.length) return c.close();
      c.enqueue(bytes.slice(at, at + size));
      at += size;
    },
  });
}

async function decode(name: string, size = 7): Promise<IRStreamEvent[]> {
  const decoder = createGeminiStreamDecoder();
  const out: IRStreamEvent[] = [];
  for await (const ev of readSSE(body(fixture(name), size))) out.push(...decoder.event(ev));
  out.push(...decoder.end());
  return out;
}

const meta = (options: Record<string, unknown> = {}): ResponseMeta => ({ traceId: 'trace-1', upstreamModel: 'gpt-4o', created: 1767225600, newId: (p) => `${p}gen1`, options });

describe('stream decoder (recorded Gemini streams)', () => {
  it('decodes the plain text capture into text events, finish and the last usage', async () => {
    for (const size of [1, 7, 4096]) {
      const events = await decode('text.sse.txt', size);
      expect(events.map((e) => e.type)).toEqual(['message-start', 'text-start', 'text-delta', 'text-delta', 'text-end', 'finish']);
      expect(events[0]).toEqual({ type: 'message-start', id: 'lK1caMPy', model: 'gemini-2.0-flash', usage: { inputTokens: 30, totalTokens: 30 } });
      const text = events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('');
      expect(text).toBe('The sky is blue because of Rayleigh scattering.');
      expect(events.at(-1)).toEqual({ type: 'finish', finishReason: { unified: 'stop', raw: 'STOP' }, usage: { inputTokens: 30, outputTokens: 11, totalTokens: 41 } });
    }
  });

  it('decodes thought + functionCall with its signature carried in the tool call id', async () => {
    const events = await decode('tools-thought.sse.txt', 5);
    expect(events.map((e) => e.type)).toEqual([
      'message-start', 'reasoning-start', 'reasoning-delta', 'reasoning-end', 'tool-call-start', 'tool-call-delta', 'tool-call-end', 'finish',
    ]);
    const start = events[4] as Extract<IRStreamEvent, { type: 'tool-call-start' }>;
    expect(start).toMatchObject({ index: 0, name: 'weather' });
    expect(start.id.startsWith('call_B94haYrOovW_0')).toBe(true);
    expect(signatureFromToolCallId(start.id)).toBe('Eq0ECqoEAdHtim8E...=');
    expect(events[5]).toEqual({ type: 'tool-call-delta', id: start.id, index: 0, delta: '{"city":"San Francisco"}' });
    // STOP with a function call is a tool-call finish; thoughts count as output.
    expect(events.at(-1)).toEqual({
      type: 'finish',
      finishReason: { unified: 'tool-calls', raw: 'STOP' },
      usage: { inputTokens: 131, outputTokens: 110, reasoningTokens: 95, totalTokens: 241 },
    });
  });

  it('handles CRLF framing, `data:` without a space and MAX_TOKENS', async () => {
    for (const size of [1, 3, 1000]) {
      const events = await decode('text-crlf.sse.txt', size);
      expect(events.flatMap((e) => (e.type === 'text-delta' ? [e.delta] : [])).join('')).toBe('Hello!');
      expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'length', raw: 'MAX_TOKENS' }, usage: { inputTokens: 4, outputTokens: 2 } });
    }
  });

  it('numbers parallel function calls and keeps a Gemini id', async () => {
    const events = await decode('parallel-tools.sse.txt');
    const starts = events.filter((e): e is Extract<IRStreamEvent, { type: 'tool-call-start' }> => e.type === 'tool-call-start');
    expect(starts.map((s) => [s.index, s.name])).toEqual([[0, 'get_weather'], [1, 'get_time']]);
    expect(signatureFromToolCallId(starts[0]!.id)).toBe('CiQB0e2Kb+/x');
    expect(starts[1]!.id).toBe('fc-2');
    // Text is closed before the first call.
    const types = events.map((e) => e.type);
    expect(types.indexOf('text-end')).toBeLessThan(types.indexOf('tool-call-start'));
    expect(events.at(-1)).toMatchObject({ finishReason: { unified: 'tool-calls' }, usage: { outputTokens: 38, reasoningTokens: 18 } });
  });

  it('turns an in-band error chunk into an error event with the upstream status', async () => {
    const events = await decode('error.sse.txt');
    const err = events.at(-1) as Extract<IRStreamEvent, { type: 'error' }>;
    expect(err.type).toBe('error');
    expect(err.error.status).toBe(503);
    expect(err.error.message).toContain('overloaded');
  });

  it('reports a stream cut before its finish as an error', async () => {
    const events = await decode('truncated.sse.txt');
    expect(events.at(-1)).toMatchObject({ type: 'error', error: { code: 'bad_gateway' } });
  });

  it('rejects a malformed chunk instead of guessing', () => {
    const decoder = createGeminiStreamDecoder();
    expect(decoder.event({ data: '{"candidates":[{"content":{"parts":"oops"}}]}' })).toMatchObject([{ type: 'error', error: { code: 'bad_gateway' } }]);
    expect(decoder.end()).toEqual([]);
  });

  it('maps SAFETY to a content-filter finish', async () => {
    const events = await decode('safety.sse.txt');
    expect(events.at(-1)).toMatchObject({ type: 'finish', finishReason: { unified: 'content-filter', raw: 'SAFETY' } });
  });
});

describe('finish reasons', () => {
  it('maps both ways, keeping Gemini raw values', () => {
    expect(fromGeminiFinishReason('RECITATION', false).unified).toBe('content-filter');
    expect(fromGeminiFinishReason('MALFORMED_FUNCTION_CALL', false).unified).toBe('error');
    expect(fromGeminiFinishReason('SOMETHING_NEW', false)).toEqual({ unified: 'other', raw: 'SOMETHING_NEW' });
    expect(toGeminiFinishReason({ unified: 'tool-calls', raw: 'tool_calls' })).toBe('STOP');
    expect(toGeminiFinishReason({ unified: 'length', raw: 'max_tokens' })).toBe('MAX_TOKENS');
    expect(toGeminiFinishReason({ unified: 'content-filter', raw: 'RECITATION' })).toBe('RECITATION');
    expect(toGeminiFinishReason({ unified: 'stop', raw: 'end_turn' })).toBe('STOP');
  });
});

describe('sync response decode/encode', () => {
  const upstream = {
    candidates: [{
      content: { role: 'model', parts: [{ text: 'thinking', thought: true }, { text: 'Here.' }, { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'c2lnbmF0dXJl' }] },
      finishReason: 'STOP',
      index: 0,
      groundingMetadata: { webSearchQueries: ['paris weather'] },
    }],
    usageMetadata: { promptTokenCount: 41, candidatesTokenCount: 16, thoughtsTokenCount: 4, cachedContentTokenCount: 8, totalTokenCount: 61 },
    modelVersion: 'gemini-2.5-flash',
    responseId: 'Bx4haYrOOvWjMcPj',
  };

  it('decodes parts, signature, finish, usage and metadata', () => {
    const ir = decodeGeminiResponse(upstream);
    expect(ir.id).toBe('Bx4haYrOOvWjMcPj');
    expect(ir.model).toBe('gemini-2.5-flash');
    expect(ir.content[0]).toEqual({ type: 'reasoning', text: 'thinking' });
    // The search ran before the text it grounds.
    expect(ir.content[1]).toMatchObject({ type: 'web-search', queries: ['paris weather'] });
    expect(ir.content[2]).toEqual({ type: 'text', text: 'Here.' });
    const call = ir.content[3] as { type: string; id: string; arguments: string; providerOptions: unknown };
    expect(call).toMatchObject({ type: 'tool-call', name: 'get_weather', arguments: '{"city":"Paris"}', providerOptions: { gemini: { thoughtSignature: 'c2lnbmF0dXJl' } } });
    expect(signatureFromToolCallId(call.id)).toBe('c2lnbmF0dXJl');
    expect(ir.finishReason).toEqual({ unified: 'tool-calls', raw: 'STOP' });
    expect(ir.usage).toEqual({ inputTokens: 41, outputTokens: 20, reasoningTokens: 4, cachedInputTokens: 8, totalTokens: 61 });
    expect(ir.providerMetadata?.gemini).toEqual({ groundingMetadata: { webSearchQueries: ['paris weather'] } });
  });

  it('decodes a blocked prompt (no candidates) as a content-filter finish and rejects garbage', () => {
    const ir = decodeGeminiResponse({ promptFeedback: { blockReason: 'PROHIBITED_CONTENT' }, usageMetadata: { promptTokenCount: 5, totalTokenCount: 5 } });
    expect(ir.content).toEqual([]);
    expect(ir.finishReason).toEqual({ unified: 'content-filter', raw: 'PROHIBITED_CONTENT' });
    expect(() => decodeGeminiResponse({ candidates: 'nope' })).toThrow(GatewayError);
  });

  it('encodes an IR response as GenerateContentResponse', () => {
    const out = encodeGeminiResponse(
      {
        id: 'chatcmpl-9',
        model: 'gpt-4o-2024-08-06',
        content: [{ type: 'text', text: 'Hi' }, { type: 'tool-call', id: 'call_1', name: 'f', arguments: '{"a":1}' }],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: { inputTokens: 10, outputTokens: 7, reasoningTokens: 2, totalTokens: 17 },
      },
      meta(),
      [],
    );
    expect(out).toEqual({
      candidates: [{ content: { parts: [{ text: 'Hi' }, { functionCall: { id: 'call_1', name: 'f', args: { a: 1 } } }], role: 'model' }, finishReason: 'STOP', index: 0 }],
      usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 2, totalTokenCount: 17 },
      modelVersion: 'gpt-4o-2024-08-06',
      responseId: 'chatcmpl-9',
    });
  });
});

const toolStream: IRStreamEvent[] = [
  { type: 'message-start', id: 'up-1', model: 'claude-x' },
  { type: 'reasoning-start', id: 'r' },
  { type: 'reasoning-delta', id: 'r', delta: 'hmm' },
  { type: 'reasoning-signature', id: 'r', signature: 'c2ln' },
  { type: 'reasoning-end', id: 'r' },
  { type: 'text-start', id: 't' },
  { type: 'text-delta', id: 't', delta: 'Calling' },
  { type: 'text-end', id: 't' },
  { type: 'tool-call-start', id: 'toolu_1', index: 0, name: 'get_weather' },
  { type: 'tool-call-delta', id: 'toolu_1', index: 0, delta: '{"city":' },
  { type: 'tool-call-delta', id: 'toolu_1', index: 0, delta: '"Paris"}' },
  { type: 'tool-call-end', id: 'toolu_1', index: 0 },
  { type: 'finish', finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage: { inputTokens: 12, outputTokens: 9, totalTokens: 21 } },
];

function encodeAll(events: IRStreamEvent[], options: Record<string, unknown>): string {
  const enc = createGeminiStreamEncoder(meta(options));
  return events.map((e) => enc.encode(e)).join('') + enc.end();
}

describe('stream encoder (IR -> Gemini client)', () => {
  it('writes one data line per chunk; function calls whole; finish + usage on the last chunk', () => {
    const text = encodeAll(toolStream, { sse: true });
    const frames = text.split('\n\n').filter(Boolean);
    expect(frames.every((f) => f.startsWith('data: ') && !f.includes('\n'))).toBe(true);
    const chunks = frames.map((f) => JSON.parse(f.slice(6)) as { candidates: Array<{ content: { parts: unknown[] }; finishReason?: string }>; usageMetadata?: unknown; responseId: string; modelVersion: string });
    expect(chunks.map((c) => c.candidates[0]!.content.parts[0])).toEqual([
      { text: 'hmm', thought: true },
      { text: '', thought: true, thoughtSignature: 'c2ln' },
      { text: 'Calling' },
      { functionCall: { id: 'toolu_1', name: 'get_weather', args: { city: 'Paris' } } },
      { text: '' },
    ]);
    expect(chunks.every((c) => c.responseId === 'up-1' && c.modelVersion === 'claude-x')).toBe(true);
    expect(chunks.slice(0, -1).every((c) => c.candidates[0]!.finishReason === undefined && c.usageMetadata === undefined)).toBe(true);
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: 12, candidatesTokenCount: 9, totalTokenCount: 21 } });
  });

  it('writes a JSON array when the client did not ask for alt=sse', () => {
    const text = encodeAll(toolStream, { sse: false });
    expect(text.startsWith('[{')).toBe(true);
    expect(text.endsWith('\n]')).toBe(true);
    const arr = JSON.parse(text) as unknown[];
    expect(arr).toHaveLength(5);
    expect(encodeAll([], { sse: false })).toBe('[]');
  });

  it('reports malformed tool arguments as MALFORMED_FUNCTION_CALL and errors in-band', () => {
    const bad = encodeAll([
      { type: 'tool-call-start', id: 'c', index: 0, name: 'f' },
      { type: 'tool-call-delta', id: 'c', index: 0, delta: '{"a":' },
      { type: 'tool-call-end', id: 'c', index: 0 },
      { type: 'finish', finishReason: { unified: 'tool-calls' }, usage: {} },
    ], { sse: true });
    expect(bad).not.toContain('functionCall');
    expect(bad).toContain('"finishReason":"MALFORMED_FUNCTION_CALL"');

    const enc = createGeminiStreamEncoder(meta({ sse: false }));
    const head = enc.encode({ type: 'text-delta', id: 't', delta: 'Hi' });
    const tail = enc.error(new GatewayError('upstream_timeout', 'stalled'));
    const arr = JSON.parse(head + tail) as Array<{ error?: { code: number; status: string } }>;
    expect(arr[1]).toEqual({ error: { code: 504, message: 'stalled', status: 'DEADLINE_EXCEEDED' }, traceId: 'trace-1' });
  });

  it('produces a stream @google/genai parses', async () => {
    const text = encodeAll(toolStream, { sse: true });
    const ai = new GoogleGenAI({
      apiKey: 'k',
      httpOptions: { baseUrl: 'http://sdk.invalid', retryOptions: { attempts: 1 }, fetch: async () => new Response(text, { headers: { 'content-type': 'text/event-stream' } }) },
    });
    const seen: string[] = [];
    for await (const c of await ai.models.generateContentStream({ model: 'm', contents: 'x' })) {
      const p = c.candidates?.[0]?.content?.parts?.[0];
      seen.push(p?.functionCall ? `call:${p.functionCall.name}` : `${p?.thought ? 'thought:' : ''}${p?.text}`);
    }
    expect(seen).toEqual(['thought:hmm', 'thought:', 'Calling', 'call:get_weather', '']);
  });
});

describe('pass-through relay', () => {
  it('relays SSE chunks as single data lines and observes the last usage', async () => {
    const relay = geminiPassthrough.createRelay({ clientWantsUsage: true, options: { sse: true } });
    let out = '';
    for await (const ev of readSSE(body(fixture('tools-thought.sse.txt'), 9))) out += relay.relay(ev);
    out += relay.end();
    expect(out.split('\n\n').filter(Boolean)).toHaveLength(3);
    expect(relay.usage()).toEqual({ inputTokens: 131, outputTokens: 110, reasoningTokens: 95, totalTokens: 241 });
  });

  it('turns the upstream SSE into a JSON array for non-SSE clients', async () => {
    const relay = geminiPassthrough.createRelay({ clientWantsUsage: true, options: { sse: false } });
    let out = '';
    for await (const ev of readSSE(body(fixture('text-crlf.sse.txt'), 4))) out += relay.relay(ev);
    out += relay.end();
    const arr = JSON.parse(out) as Array<{ responseId: string }>;
    expect(arr.map((c) => c.responseId)).toEqual(['crlf1', 'crlf1']);
    expect(relay.usage()).toMatchObject({ inputTokens: 4, outputTokens: 2 });
  });

  it('raises an upstream error chunk so the pipeline reports it', async () => {
    const relay = geminiPassthrough.createRelay({ clientWantsUsage: true, options: { sse: true }, traceId: 'trace-9' });
    let out = '';
    const err = await (async () => {
      for await (const ev of readSSE(body(fixture('error.sse.txt'), 11))) out += relay.relay(ev);
    })().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(out).toContain('Partial');
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(503);
    expect(relay.error(err as GatewayError)).toBe('data: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"},"traceId":"trace-9"}\n\n');
  });

  it('refuses to end a stream cut before its finishReason', async () => {
    const relay = geminiPassthrough.createRelay({ clientWantsUsage: true, options: { sse: false } });
    let out = '';
    for await (const ev of readSSE(body(fixture('truncated.sse.txt'), 64))) out += relay.relay(ev);
    expect(() => relay.end()).toThrow(GatewayError);
    out += relay.error(new GatewayError('bad_gateway', 'cut'));
    const arr = JSON.parse(out) as Array<{ error?: { code: number } }>;
    expect(arr).toHaveLength(2);
    expect(arr[1]!.error?.code).toBe(502);
  });

  it('forwards the body byte for byte and reads sync usage', () => {
    const raw = '{"contents":[{"role":"user","parts":[{"text":"x"}]}], "safetySettings":[] }';
    expect(geminiPassthrough.prepareBody(raw, JSON.parse(raw) as Record<string, unknown>, 'gemini-2.5-pro', false)).toBe(raw);
    const { usage } = geminiPassthrough.finishSyncBody({ usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2, totalTokenCount: 5 } }, 't');
    expect(usage).toEqual({ inputTokens: 3, outputTokens: 2, totalTokens: 5 });
  });
});
