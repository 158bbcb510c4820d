/**
 * Every upstream stream chunk is checked (the fields its decoder reads) before it is read: a
 * chunk of the wrong shape (or one that is not JSON) ends the stream with the client protocol's
 * in-band error (a 502 bad_gateway), never a guess, a crash or a silently dropped event. Unit level
 * for each decoder, then end to end through the shipped upstream client against a leaky upstream.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createUndiciFetch } from '../../node/upstream-fetch.js';
import { createGateway, type Gateway } from '../../src/index.js';
import { createAnthropicStreamDecoder } from '../../src/protocols/anthropic-messages/upstream/stream-decoder.js';
import { createGeminiStreamDecoder } from '../../src/protocols/gemini/upstream/stream-decoder.js';
import { createOpenAIChatStreamDecoder } from '../../src/protocols/openai-chat/upstream/stream-decoder.js';
import { createResponsesStreamDecoder } from '../../src/protocols/openai-responses/upstream/stream-decoder.js';
import type { StreamDecoder } from '../../src/protocols/types.js';

const openAIStart = { id: 'chatcmpl-1', object: 'chat.completion.chunk', model: 'gpt-4o', choices: [{ index: 0, delta: { role: 'assistant', content: 'Hi' }, finish_reason: null }] };
const anthropicStart = { type: 'message_start', message: { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [], usage: { input_tokens: 3, output_tokens: 1 } } };

const DECODERS: Array<[string, () => StreamDecoder, Array<{ event?: string; data: string }>, RegExp]> = [
  ['openai-chat: choices is not an array', createOpenAIChatStreamDecoder, [{ data: JSON.stringify(openAIStart) }, { data: '{"choices":"oops"}' }], /malformed OpenAI chat stream chunk/],
  ['openai-chat: tool call arguments are a number', createOpenAIChatStreamDecoder, [{ data: '{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":5}}]}}]}' }], /malformed OpenAI chat stream chunk/],
  ['openai-chat: usage counts that are strings', createOpenAIChatStreamDecoder, [{ data: JSON.stringify(openAIStart) }, { data: '{"choices":[],"usage":{"prompt_tokens":"3"}}' }], /malformed OpenAI chat stream chunk/],
  ['openai-chat: a choice that is not an object', createOpenAIChatStreamDecoder, [{ data: '{"id":"c","choices":[null]}' }], /malformed OpenAI chat stream chunk/],
  ['openai-chat: a model that is not text', createOpenAIChatStreamDecoder, [{ data: '{"id":"c","model":7,"choices":[]}' }], /malformed OpenAI chat stream chunk/],
  ['openai-chat: not JSON', createOpenAIChatStreamDecoder, [{ data: JSON.stringify(openAIStart) }, { data: '{"choices":[' }], /malformed OpenAI chat stream chunk/],
  ['anthropic: a text delta that is not text', createAnthropicStreamDecoder, [{ event: 'message_start', data: JSON.stringify(anthropicStart) }, { event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}' }], /malformed Anthropic stream event/],
  ['anthropic: usage counts that are strings', createAnthropicStreamDecoder, [{ event: 'message_delta', data: '{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":"many"}}' }], /malformed Anthropic stream event/],
  ['anthropic: a block without its type', createAnthropicStreamDecoder, [{ event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"text":""}}' }], /malformed Anthropic stream event/],
  ['anthropic: a message id that is not text', createAnthropicStreamDecoder, [{ event: 'message_start', data: '{"type":"message_start","message":{"id":1}}' }], /malformed Anthropic stream event/],
  ['anthropic: a delta that is an array', createAnthropicStreamDecoder, [{ event: 'content_block_delta', data: '{"type":"content_block_delta","index":0,"delta":["text"]}' }], /malformed Anthropic stream event/],
  ['anthropic: an index that is text', createAnthropicStreamDecoder, [{ event: 'content_block_stop', data: '{"type":"content_block_stop","index":"0"}' }], /malformed Anthropic stream event/],
  ['anthropic: not JSON', createAnthropicStreamDecoder, [{ event: 'message_start', data: 'message_start' }], /malformed Anthropic stream event/],
  ['gemini: parts is not an array', createGeminiStreamDecoder, [{ data: '{"candidates":[{"content":{"parts":"oops"}}]}' }], /malformed Gemini stream chunk/],
  ['gemini: not JSON', createGeminiStreamDecoder, [{ data: '{"candidates":' }], /malformed Gemini stream chunk/],
  ['openai-responses: a text delta that is not text', createResponsesStreamDecoder, [{ data: '{"type":"response.output_text.delta","item_id":"m","output_index":0,"content_index":0,"delta":5}' }], /malformed Responses stream event/],
];

describe('stream decoders validate every chunk', () => {
  it.each(DECODERS)('%s -> one in-band bad_gateway error, then nothing', (_name, create, events, message) => {
    const decoder = create();
    const out = events.flatMap((ev) => decoder.event(ev));
    const errors = out.filter((e) => e.type === 'error');
    expect(errors).toHaveLength(1);
    expect(out.at(-1)).toMatchObject({ type: 'error', error: { code: 'bad_gateway', status: 502, message: expect.stringMatching(message) } });
    // The stream is over: later chunks and the end add nothing (no finish after the error).
    expect(decoder.event({ data: JSON.stringify(openAIStart) })).toEqual([]);
    expect(decoder.end()).toEqual([]);
  });

  it('well-formed chunks that only add fields pass (loose schemas)', () => {
    const openai = createOpenAIChatStreamDecoder();
    const a = openai.event({ data: JSON.stringify({ ...openAIStart, system_fingerprint: 'fp', service_tier: null, choices: [{ index: 0, delta: { content: 'Hi', annotations: [] }, logprobs: null, finish_reason: null }] }) });
    expect(a).toEqual([{ type: 'message-start', id: 'chatcmpl-1', model: 'gpt-4o' }, { type: 'text-start', id: 't0' }, { type: 'text-delta', id: 't0', delta: 'Hi' }]);
    const anthropic = createAnthropicStreamDecoder();
    anthropic.event({ event: 'message_start', data: JSON.stringify(anthropicStart) });
    const b = anthropic.event({ event: 'content_block_start', data: '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":null}}' });
    expect(b).toEqual([{ type: 'text-start', id: 't0' }]);
    expect(anthropic.event({ event: 'ping', data: '{"type":"ping"}' })).toEqual([]);
    // An empty data line (a keep-alive) is no chunk at all.
    expect(openai.event({ data: '' })).toEqual([]);
    expect(anthropic.event({ event: 'ping', data: ' ' })).toEqual([]);
    expect(createGeminiStreamDecoder().event({ data: '' })).toEqual([]);
  });

  it('null where OpenAI leaves a field out passes (compatible servers), and the finish still counts', () => {
    const openai = createOpenAIChatStreamDecoder();
    openai.event({ data: JSON.stringify(openAIStart) });
    const out = openai.event({ data: '{"id":null,"model":null,"usage":null,"choices":[{"index":null,"delta":null,"finish_reason":"stop"}]}' });
    expect(out).toEqual([{ type: 'text-end', id: 't0' }]);
    expect(openai.event({ data: '[DONE]' })).toMatchObject([{ type: 'finish', finishReason: { unified: 'stop' } }]);
  });
});

/** An upstream that speaks OpenAI chat and Anthropic Messages streams and breaks them on purpose. */
function malformedUpstream(): Promise<{ server: Server; origin: string }> {
  const sse = (data: string, event?: string): string => `${event ? `event: ${event}\n` : ''}data: ${data}\n\n`;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      if (req.url?.includes('/chat/completions')) {
        res.end(sse(JSON.stringify(openAIStart)) + sse('{"choices":[{"index":0,"delta":{"content":["not","text"]}}]}') + sse('[DONE]'));
      } else {
        res.end(
          sse(JSON.stringify(anthropicStart), 'message_start') +
            sse('{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}', 'content_block_start') +
            sse('{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":{"not":"text"}}}', 'content_block_delta') +
            sse('{"type":"message_stop"}', 'message_stop'),
        );
      }
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('a malformed upstream chunk reaches the client as its own in-band error', () => {
  const KEY = 'mg-chunk-validation-key-01';
  let upstream: { server: Server; origin: string };
  let gateway: Gateway;

  beforeAll(async () => {
    upstream = await malformedUpstream();
    gateway = createGateway(
      {
        providers: [
          { id: 'oa', type: 'openai', baseURL: `${upstream.origin}/v1`, apiKey: 'upstream-secret-oa' },
          { id: 'an', type: 'anthropic', baseURL: upstream.origin, apiKey: 'upstream-secret-an' },
        ],
        models: [
          { id: 'gpt', provider: 'oa', upstreamModel: 'gpt-4o' },
          { id: 'claude', provider: 'an', upstreamModel: 'claude-sonnet-4-5' },
        ],
        keys: [{ id: 'k', key: KEY, models: ['*'] }],
      },
      { fetch: createUndiciFetch() },
    );
  });
  afterAll(async () => {
    await gateway?.close();
    await new Promise((r) => upstream?.server.close(r));
  });

  it('OpenAI upstream -> Anthropic client: content, then the error event, no message_stop', async () => {
    const res = await gateway.handle(
      new Request('http://gw.test/v1/messages', {
        method: 'POST',
        headers: { 'x-api-key': KEY, 'anthropic-version': '2023-06-01', 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt', max_tokens: 50, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toContain('"text":"Hi"');
    const last = text.trim().split('\n\n').at(-1) as string;
    expect(last.split('\n')[0]).toBe('event: error');
    expect(JSON.parse(last.split('\n')[1]!.slice(6))).toMatchObject({ type: 'error', error: { type: 'api_error', message: 'The upstream sent a malformed OpenAI chat stream chunk.' } });
    expect(text).not.toContain('message_stop');
  });

  it('Anthropic upstream -> OpenAI client: the error chunk ends the stream, no [DONE]', async () => {
    const res = await gateway.handle(
      new Request('http://gw.test/v1/chat/completions', {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'claude', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
      }),
    );
    expect(res.status).toBe(200);
    const frames = (await res.text()).trim().split('\n\n').map((f) => f.replace(/^data: /, ''));
    expect(JSON.parse(frames.at(-1) as string)).toMatchObject({ error: { message: 'The upstream sent a malformed Anthropic stream event.', type: 'upstream_error' } });
    expect(frames).not.toContain('[DONE]');
    expect(frames.some((f) => f.includes('"finish_reason":"'))).toBe(false);
  });
});
