/**
 * Web search results from Gemini (googleSearch grounding) in a Responses answer come in OpenAI's
 * order: the `web_search_call` item before the message that cites it, sync and streamed, although
 * Gemini reports its grounding only with the answer's last chunk. Driven by the official `openai`
 * SDK (responses.create and responses.stream) against the strict Gemini mock.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { closeMocks, RESP_KEY_A, responsesConfig, startMocks, type ResponsesMocks } from '../../helpers/responses-gateway.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

type Json = Record<string, unknown>;

let mocks: ResponsesMocks;
let gateway: Gateway;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  mocks = await startMocks();
  gateway = createShippedGateway(responsesConfig(mocks));
  server = await serve(gateway, { port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: RESP_KEY_A, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  if (mocks) await closeMocks(mocks);
});

const ANSWER = 'Modelgate 2 shipped this week with a console.';

/** Gemini's grounded answer (the mock streams it word by word; the grounding comes with the last chunk). */
const grounded = (): void =>
  mocks.gemini.scriptNext({
    parts: [{ text: ANSWER }],
    groundingMetadata: {
      webSearchQueries: ['modelgate release'],
      groundingChunks: [{ web: { uri: 'https://example.com/release', title: 'example.com' } }],
      groundingSupports: [{ segment: { startIndex: 0, endIndex: 20, text: 'Modelgate 2 shipped.' }, groundingChunkIndices: [0] }],
    },
  });

const ask = { model: 'gemini', input: 'What is new with modelgate?', tools: [{ type: 'web_search' as const }] };

const CITATION = { type: 'url_citation', url: 'https://example.com/release', title: 'example.com', start_index: 0, end_index: 20 };

describe('Gemini search grounding in Responses answers: the search item comes first', () => {
  it('responses.create: web_search_call, then the message that cites it', async () => {
    grounded();
    const res = await client.responses.create(ask);
    expect(res.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect(res.output[0]).toMatchObject({ type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'modelgate release' } });
    const message = res.output[1] as OpenAI.Responses.ResponseOutputMessage;
    expect(message.content[0]).toMatchObject({ type: 'output_text', text: ANSWER, annotations: [CITATION] });
    expect(res.output_text).toBe(ANSWER);
  });

  it('responses.stream: the search item is added, searched and done before the message is added; the final response agrees', async () => {
    grounded();
    const stream = client.responses.stream({ ...ask, stream: true });
    const events: OpenAI.Responses.ResponseStreamEvent[] = [];
    stream.on('event', (e) => events.push(e));
    const final = await stream.finalResponse();

    const added = events.filter((e): e is OpenAI.Responses.ResponseOutputItemAddedEvent => e.type === 'response.output_item.added');
    expect(added.map((e) => [e.output_index, e.item.type])).toEqual([
      [0, 'web_search_call'],
      [1, 'message'],
    ]);
    const at = (pred: (e: OpenAI.Responses.ResponseStreamEvent) => boolean): number => events.findIndex(pred);
    const searchDone = at((e) => e.type === 'response.output_item.done' && e.item.type === 'web_search_call');
    const messageAdded = at((e) => e.type === 'response.output_item.added' && e.item.type === 'message');
    expect(at((e) => e.type === 'response.web_search_call.completed')).toBeLessThan(searchDone);
    expect(searchDone).toBeLessThan(messageAdded);
    // The text and its citation all belong to output index 1.
    const deltas = events.filter((e): e is OpenAI.Responses.ResponseTextDeltaEvent => e.type === 'response.output_text.delta');
    expect(deltas.map((d) => d.delta).join('')).toBe(ANSWER);
    expect(new Set(deltas.map((d) => d.output_index))).toEqual(new Set([1]));
    const annotation = events.find((e): e is OpenAI.Responses.ResponseOutputTextAnnotationAddedEvent => e.type === 'response.output_text.annotation.added');
    expect(annotation).toMatchObject({ output_index: 1, annotation: CITATION });
    // Sequence numbers stay strictly increasing.
    const seqs = events.map((e) => e.sequence_number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);

    expect(final.output.map((o) => o.type)).toEqual(['web_search_call', 'message']);
    expect((final.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0]).toMatchObject({ text: ANSWER, annotations: [CITATION] });
  });

  it('a web_search tool Gemini did not use: the streamed message is whole and alone', async () => {
    const stream = client.responses.stream({ ...ask, input: 'hello there', stream: true });
    const final = await stream.finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(['message']);
    expect(final.output_text).toBe('[gemini] you said: hello there');
  });

  it('with reasoning (thoughts) first: reasoning, search, message, in that order', async () => {
    grounded();
    const body = { ...ask, reasoning: { effort: 'low' as const, summary: 'auto' as const } };
    const sync = await client.responses.create(body);
    const types = sync.output.map((o) => o.type);
    expect(types.slice(-2)).toEqual(['web_search_call', 'message']);
    grounded();
    const final = await client.responses.stream({ ...body, stream: true }).finalResponse();
    expect(final.output.map((o) => o.type)).toEqual(types);
  });

  it('without a web_search tool the stream is not held: text deltas come before the answer ends', async () => {
    const stream = client.responses.stream({ model: 'gemini', input: 'one two three four five six', stream: true });
    const events: string[] = [];
    stream.on('event', (e) => events.push(e.type));
    await stream.finalResponse();
    const firstDelta = events.indexOf('response.output_text.delta');
    const lastDelta = events.lastIndexOf('response.output_text.delta');
    expect(firstDelta).toBeGreaterThan(-1);
    expect(lastDelta).toBeGreaterThan(firstDelta);
    expect((mocks.gemini.requests.at(-1)?.body as Json).tools).toBeUndefined();
  });
});
