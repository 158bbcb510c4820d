/**
 * A stream that ends without its terminal event is a failure, for every client x upstream pair
 * (pass-through included): the upstream closes cleanly but early (no OpenAI finish_reason, no
 * Anthropic message_stop, no Gemini finishReason), and the client must see its own protocol's
 * in-band error event instead of a normal end, with onResponse reporting streamCompleted: false.
 * Responses and Interactions clients get response.failed / the error event (translated paths here;
 * their pass-through relays are held in responses-codec and interactions-codec).
 * `data: [DONE]` depends on the provider: OpenAI itself always sends it (after the usage chunk), so
 * an `openai` provider's stream without it was cut and is a failure; some OpenAI-compatible servers
 * omit it, so an `openai-compatible` provider's stream that sent its finish_reason is complete.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGateway, type Gateway, type ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';

type Client = 'openai' | 'anthropic' | 'gemini';
type Upstream = 'openai' | 'anthropic' | 'gemini';
const CLIENTS: Client[] = ['openai', 'anthropic', 'gemini'];
const UPSTREAMS: Upstream[] = ['openai', 'anthropic', 'gemini'];

const KEY = 'mg-truncation-key-0001';
const PROMPT = 'one two three four five';
let openai: MockOpenAI;
let anthropic: MockAnthropic;
let gemini: MockGemini;
let openaiResponses: MockOpenAIResponses;
let gateway: Gateway;
const responses: ResponseEvent[] = [];

beforeAll(async () => {
  [openai, anthropic, gemini, openaiResponses] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini(), startMockOpenAIResponses()]);
  gateway = createGateway(
    {
      providers: [
        { id: 'p-openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
        { id: 'p-anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
        { id: 'p-gemini', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
        { id: 'p-responses', type: 'openai', baseURL: openaiResponses.baseURL, apiKey: openaiResponses.apiKey },
        // The Responses API goes to `openai` providers as is; an OpenAI-compatible one gets chat completions.
        { id: 'p-compatible', type: 'openai-compatible', baseURL: openai.baseURL, apiKey: openai.apiKey },
      ],
      models: [
        { id: 'up-openai', provider: 'p-openai', upstreamModel: 'gpt-4o' },
        { id: 'up-anthropic', provider: 'p-anthropic', upstreamModel: 'claude-sonnet-4-5' },
        { id: 'up-gemini', provider: 'p-gemini', upstreamModel: 'gemini-2.5-flash' },
        { id: 'up-responses', provider: 'p-responses', upstreamModel: 'gpt-5' },
        { id: 'up-compatible', provider: 'p-compatible', upstreamModel: 'gpt-4o' },
      ],
      keys: [{ id: 'truncation', key: KEY, models: ['*'] }],
    },
    { hooks: { onResponse: (e) => void responses.push(e) } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await Promise.all([openai?.close(), anthropic?.close(), gemini?.close(), openaiResponses?.close()]);
});

/** One SSE block: its event name (if any) and data payload. */
interface Frame {
  event?: string;
  data: string;
}

function framesOf(text: string): Frame[] {
  return text
    .split('\n\n')
    .map((block) => {
      const lines = block.split('\n');
      const event = lines.find((l) => l.startsWith('event: '))?.slice(7);
      const data = lines.filter((l) => l.startsWith('data: ')).map((l) => l.slice(6)).join('\n');
      return { ...(event ? { event } : {}), data };
    })
    .filter((f) => f.data !== '');
}

/** A streamed request in the client's own protocol; returns the raw body and the hook event. */
async function stream(client: Client, up: Upstream | 'compatible', gemAlt: 'sse' | 'array' = 'sse'): Promise<{ status: number; text: string; event: ResponseEvent | undefined; traceId: string | null }> {
  const model = `up-${up}`;
  let req: Request;
  if (client === 'openai') {
    req = new Request('http://gw.test/v1/chat/completions', {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
    });
  } else if (client === 'anthropic') {
    req = new Request('http://gw.test/v1/messages', {
      method: 'POST',
      headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
      body: JSON.stringify({ model, max_tokens: 100, stream: true, messages: [{ role: 'user', content: PROMPT }] }),
    });
  } else {
    req = new Request(`http://gw.test/v1beta/models/${model}:streamGenerateContent${gemAlt === 'sse' ? '?alt=sse' : ''}`, {
      method: 'POST',
      headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
      body: JSON.stringify({ contents: [{ role: 'user', parts: [{ text: PROMPT }] }] }),
    });
  }
  const res = await gateway.handle(req);
  const text = await res.text();
  const traceId = res.headers.get('x-trace-id');
  // onResponse fires in the stream's finally block, right after the last byte.
  await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
  return { status: res.status, text, event: responses.find((e) => e.traceId === traceId), traceId };
}

/** The client saw its protocol's error event last, and no normal terminal event at all. */
function expectInBandError(client: Client, text: string, traceId: string | null, gemAlt: 'sse' | 'array' = 'sse'): void {
  if (client === 'gemini' && gemAlt === 'array') {
    const chunks = JSON.parse(text) as Array<Record<string, unknown>>;
    expect(chunks.at(-1)).toEqual({ error: { code: 502, message: expect.any(String), status: 'UNAVAILABLE' }, traceId });
    expect(text).not.toContain('finishReason');
    return;
  }
  const frames = framesOf(text);
  const last = frames.at(-1) as Frame;
  if (client === 'openai') {
    expect(JSON.parse(last.data)).toEqual({ error: expect.objectContaining({ message: expect.any(String), type: 'upstream_error' }), traceId });
    expect(frames.some((f) => f.data === '[DONE]')).toBe(false);
    expect(frames.some((f) => /"finish_reason":"/.test(f.data))).toBe(false);
  } else if (client === 'anthropic') {
    expect(last.event).toBe('error');
    expect(JSON.parse(last.data)).toEqual({ type: 'error', error: { type: 'api_error', message: expect.any(String) }, request_id: traceId, traceId });
    expect(frames.some((f) => f.event === 'message_stop')).toBe(false);
  } else {
    expect(JSON.parse(last.data)).toEqual({ error: { code: 502, message: expect.any(String), status: 'UNAVAILABLE' }, traceId });
    expect(text).not.toContain('finishReason');
  }
}

/** Makes the upstream's next stream close cleanly right after its first piece of content. */
function truncateNext(up: Upstream): void {
  if (up === 'openai') openai.endStreamEarlyNext('content');
  else if (up === 'anthropic') anthropic.endStreamEarlyNext('content');
  else gemini.endStreamEarlyNext();
}

describe.each(CLIENTS)('%s client', (client) => {
  it.each(UPSTREAMS)('-> %s upstream: a stream cut after its first content ends with the in-band error event', async (up) => {
    truncateNext(up);
    const { status, text, event, traceId } = await stream(client, up);
    expect(status).toBe(200);
    // Some content did reach the client before the failure.
    expect(text).toContain(`[${up}]`);
    expectInBandError(client, text, traceId);
    expect(event).toMatchObject({ status: 200, stream: true, streamCompleted: false, error: { code: 'bad_gateway' } });
  });

  it('-> anthropic upstream: everything but message_stop (stop_reason already sent) is still a failure', async () => {
    anthropic.endStreamEarlyNext('stop');
    const { text, event, traceId } = await stream(client, 'anthropic');
    expectInBandError(client, text, traceId);
    expect(event).toMatchObject({ streamCompleted: false, error: { code: 'bad_gateway', message: expect.stringContaining('message_stop') } });
  });

  it('-> openai provider: a stream with finish_reason and usage but no data: [DONE] is a failure', async () => {
    openai.endStreamEarlyNext('done');
    const { status, text, event, traceId } = await stream(client, 'openai');
    expect(status).toBe(200);
    expect(text).toContain('[openai]');
    const frames = framesOf(text);
    if (client === 'openai') {
      // Pass-through: the finish_reason chunk was already relayed; the error replaces [DONE].
      expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toEqual({ error: expect.objectContaining({ message: expect.stringContaining('[DONE]'), type: 'upstream_error' }), traceId });
      expect(frames.some((f) => f.data === '[DONE]')).toBe(false);
    } else expectInBandError(client, text, traceId);
    expect(event).toMatchObject({ status: 200, stream: true, streamCompleted: false, error: { code: 'bad_gateway', message: expect.stringContaining('[DONE]') } });
  });

  it('-> openai-compatible provider: a finished stream without data: [DONE] is complete', async () => {
    openai.endStreamEarlyNext('done');
    const { text, event } = await stream(client, 'compatible');
    const frames = framesOf(text);
    if (client === 'openai') expect(frames.at(-1)?.data).toBe('[DONE]');
    else if (client === 'anthropic') expect(frames.at(-1)?.event).toBe('message_stop');
    else expect(JSON.parse(frames.at(-1)?.data ?? '{}')).toMatchObject({ candidates: [{ finishReason: 'STOP' }] });
    expect(text).not.toContain('"error"');
    expect(event).toMatchObject({ streamCompleted: true, usage: { inputTokens: 10, outputTokens: 8 } });
    expect(event?.error).toBeUndefined();
  });
});

describe('gemini client, JSON-array stream', () => {
  it.each(UPSTREAMS)('-> %s upstream: the array ends with the error object', async (up) => {
    truncateNext(up);
    const { text, event, traceId } = await stream('gemini', up, 'array');
    expectInBandError('gemini', text, traceId, 'array');
    expect(event).toMatchObject({ streamCompleted: false, error: { code: 'bad_gateway' } });
  });
});

/**
 * Responses and Interactions clients: a stream cut short ends in the protocol's failure event,
 * translated (OpenAI chat, Anthropic, Gemini upstreams) and pass-through (an OpenAI Responses
 * upstream for Responses clients, Gemini's Interactions API for Interactions clients).
 */
const ROUTES = {
  responses: [['openai', 'up-compatible', 'translated'], ['anthropic', 'up-anthropic', 'translated'], ['gemini', 'up-gemini', 'translated'], ['responses', 'up-responses', 'pass-through']],
  interactions: [['openai', 'up-openai', 'translated'], ['anthropic', 'up-anthropic', 'translated'], ['gemini', 'up-gemini', 'pass-through']],
} as const;

describe.each(['responses', 'interactions'] as const)('%s client', (client) => {
  it.each(ROUTES[client].map((r) => [...r]))('-> %s upstream (%s, %s): a stream cut after its first content ends with the failure event', async (up, model, route) => {
    if (client === 'interactions' && route === 'pass-through') gemini.interactions.endStreamEarlyNext();
    else if (up === 'responses') openaiResponses.endStreamEarlyNext();
    else truncateNext(up as Upstream);
    const req =
      client === 'responses'
        ? new Request('http://gw.test/v1/responses', {
            method: 'POST',
            headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
            body: JSON.stringify({ model, stream: true, input: PROMPT }),
          })
        : new Request('http://gw.test/v1beta/interactions', {
            method: 'POST',
            headers: { 'x-goog-api-key': KEY, 'content-type': 'application/json' },
            body: JSON.stringify({ model, stream: true, input: PROMPT }),
          });
    const res = await gateway.handle(req);
    expect(res.status).toBe(200);
    const text = await res.text();
    const traceId = res.headers.get('x-trace-id');
    await expect.poll(() => responses.find((e) => e.traceId === traceId)).toBeDefined();
    const frames = framesOf(text);
    // Some content reached the client before the failure.
    expect(frames.some((f) => /\.delta$/.test(f.event ?? ''))).toBe(true);
    if (client === 'responses') {
      const last = frames.at(-1) as Frame;
      expect(last.event).toBe('response.failed');
      expect(JSON.parse(last.data)).toMatchObject({ type: 'response.failed', response: { status: 'failed', error: { message: expect.any(String) } } });
      expect(frames.some((f) => f.event === 'response.completed')).toBe(false);
      // The failure event numbers after every event before it (strictly increasing, as OpenAI's are).
      const seqs = frames.map((f) => (JSON.parse(f.data) as { sequence_number?: number }).sequence_number);
      expect(seqs.every((n) => typeof n === 'number')).toBe(true);
      for (let i = 1; i < seqs.length; i++) expect(seqs[i] as number, `${frames[i]?.event} after ${frames[i - 1]?.event}`).toBeGreaterThan(seqs[i - 1] as number);
    } else {
      expect(frames.map((f) => f.event).slice(-2)).toEqual(['error', 'done']);
      expect(JSON.parse(frames.at(-2)?.data ?? '{}')).toMatchObject({ event_type: 'error', error: { message: expect.any(String) } });
      expect(frames.some((f) => f.event === 'interaction.completed')).toBe(false);
    }
    expect(responses.find((e) => e.traceId === traceId)).toMatchObject({ stream: true, streamCompleted: false });
  });
});
