/**
 * OpenAI's `web_search` tool through the Responses API to other vendors: it becomes the vendor's
 * own search (Anthropic's web search server tool, Gemini's `googleSearch`); Gemini 2.x, which
 * refuses search next to function declarations, gets it left out with a warning, Gemini 3 gets it
 * with `toolConfig.includeServerSideToolInvocations`; a chat-only server leaves it out with a
 * warning. The strict mocks refuse what the real vendors refuse.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway } from '../../../src/index.js';
import { closeMocks, RESP_KEY_A, responsesConfig, startMocks, WEATHER_TOOLS, type ResponsesMocks } from '../../helpers/responses-gateway.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

type Json = Record<string, unknown>;

let mocks: ResponsesMocks;
let gateway: Gateway;
let server: RunningServer;
let client: OpenAI;

beforeAll(async () => {
  mocks = await startMocks();
  const config = responsesConfig(mocks);
  config.models = [...(config.models ?? []), { id: 'gemini3', provider: 'google', upstreamModel: 'gemini-3-pro-preview' }];
  gateway = createShippedGateway(config);
  server = await serve(gateway, { port: 0 });
  client = new OpenAI({ baseURL: `${server.url}/v1`, apiKey: RESP_KEY_A, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  if (mocks) await closeMocks(mocks);
});

const lastBody = (m: { requests: Array<{ body: unknown }> }): Json => m.requests.at(-1)?.body as Json;

async function post(body: Json): Promise<{ status: number; headers: Headers; json: Json }> {
  const res = await fetch(`${server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${RESP_KEY_A}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: res.status, headers: res.headers, json: (await res.json()) as Json };
}

describe('web_search becomes the vendor’s own search tool', () => {
  it('Anthropic: the web search server tool with the domain filter and the user location', async () => {
    const res = await post({
      model: 'claude',
      input: 'News?',
      tools: [
        ...WEATHER_TOOLS,
        { type: 'web_search', filters: { allowed_domains: ['example.com'] }, user_location: { type: 'approximate', city: 'Paris', country: 'FR' }, external_web_access: false },
      ],
    });
    expect(res.status).toBe(200);
    expect(lastBody(mocks.anthropic).tools).toEqual([
      expect.objectContaining({ name: 'get_weather' }),
      expect.objectContaining({ name: 'get_time' }),
      { type: 'web_search_20250305', name: 'web_search', allowed_domains: ['example.com'], user_location: { type: 'approximate', city: 'Paris', country: 'FR' } },
    ]);
    // Anthropic always searches the live web: the cached-only setting is reported, not hidden.
    expect(res.headers.get('x-modelgate-warnings')).toContain('tools.web_search.external_web_access: dropped');
  });

  it('Gemini 2.x without function tools: googleSearch', async () => {
    const res = await post({ model: 'gemini', input: 'News?', tools: [{ type: 'web_search' }] });
    expect(res.status).toBe(200);
    expect(lastBody(mocks.gemini).tools).toEqual([{ googleSearch: {} }]);
    expect(res.headers.get('x-modelgate-warnings')).toBeNull();
  });

  it('Gemini 2.x with function tools: web_search is left out and the response says so', async () => {
    const res = await post({ model: 'gemini', input: 'News?', tools: [...WEATHER_TOOLS, { type: 'web_search' }] });
    expect(res.status).toBe(200);
    const tools = lastBody(mocks.gemini).tools as Json[];
    expect(tools).toHaveLength(1);
    expect((tools[0]!.functionDeclarations as Json[]).map((d) => d.name)).toEqual(['get_weather', 'get_time']);
    expect(res.headers.get('x-modelgate-warnings')).toContain('tools.web_search: dropped (gemini 2.x cannot search with function tools)');
    expect(res.json.warnings).toEqual([expect.objectContaining({ setting: 'tools.web_search', message: expect.stringContaining('gemini-2.5-flash') })]);
    // The function calls still work.
    expect((res.json.output as Json[]).map((o) => [o.type, o.name])).toEqual([
      ['function_call', 'get_weather'],
      ['function_call', 'get_time'],
    ]);
  });

  it('Gemini 3 with function tools: googleSearch next to them, with server-side tool invocations on', async () => {
    const res = await post({ model: 'gemini3', input: 'News?', tools: [...WEATHER_TOOLS, { type: 'web_search' }] });
    expect(res.status).toBe(200);
    const body = lastBody(mocks.gemini);
    expect(body.tools).toEqual([{ functionDeclarations: expect.any(Array) }, { googleSearch: {} }]);
    expect(body.toolConfig).toEqual({ includeServerSideToolInvocations: true });
    expect(res.headers.get('x-modelgate-warnings')).toBeNull();
  });

  it('a chat-only server: web_search is left out and the response says so', async () => {
    const res = await post({ model: 'compat', input: 'News?', tools: [{ type: 'web_search' }], tool_choice: 'auto' });
    expect(res.status).toBe(200);
    const body = lastBody(mocks.chat);
    expect(body.tools).toBeUndefined();
    expect(body.tool_choice).toBeUndefined();
    expect(res.json.warnings).toEqual([expect.objectContaining({ setting: 'tools.web_search', action: 'dropped (no web search on this model)' })]);
  });

  it('OpenAI: the tool goes through as it was declared', async () => {
    const tool: OpenAI.Responses.WebSearchTool = { type: 'web_search', filters: { allowed_domains: ['example.com'] }, search_context_size: 'low' };
    await client.responses.create({ model: 'gpt-5', input: 'News?', tools: [tool] });
    expect(lastBody(mocks.responses).tools).toEqual([tool]);
  });

  it('tool_choice web_search forces Anthropic to search; Gemini cannot be forced and the response says so', async () => {
    const claude = await post({ model: 'claude', input: 'News?', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } });
    expect(claude.status).toBe(200);
    expect(lastBody(mocks.anthropic).tool_choice).toEqual({ type: 'tool', name: 'web_search' });
    const gemini = await post({ model: 'gemini', input: 'News?', tools: [{ type: 'web_search' }], tool_choice: { type: 'web_search' } });
    expect(gemini.status).toBe(200);
    expect(lastBody(mocks.gemini).toolConfig).toBeUndefined();
    expect(gemini.headers.get('x-modelgate-warnings')).toContain('tool_choice: dropped');
    const missing = await post({ model: 'claude', input: 'News?', tools: WEATHER_TOOLS, tool_choice: { type: 'web_search' } });
    expect(missing.status).toBe(400);
    expect(missing.json.error).toMatchObject({ param: 'tool_choice', message: expect.stringContaining("'web_search'") });
  });

  it('the other hosted tools stay a 400 naming the tool', async () => {
    const res = await post({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'tools[1]', message: expect.stringContaining("'code_interpreter'") });
  });
});

/** What the SDK's stream helper assembles, and the event types it saw. */
async function streamed(body: OpenAI.Responses.ResponseCreateParamsStreaming): Promise<{ final: OpenAI.Responses.Response; types: string[] }> {
  const stream = client.responses.stream(body);
  const types: string[] = [];
  stream.on('event', (e) => types.push(e.type));
  const final = await stream.finalResponse();
  return { final, types };
}

/**
 * Output items without their gateway-made ids, for comparing a sync answer with a streamed one (and
 * without the `parsed: null` the SDK's stream helper adds to text parts).
 */
const withoutIds = (output: unknown[]): unknown[] =>
  output.map((o) => {
    const item: Json = { ...(o as Json), id: undefined };
    if (Array.isArray(item.content)) item.content = (item.content as Json[]).map(({ parsed: _parsed, ...part }) => part);
    return item;
  });

const SEARCH_EVENTS = ['response.web_search_call.in_progress', 'response.web_search_call.searching', 'response.web_search_call.completed'];

describe('searches and citations come back as web_search_call items and url_citation annotations', () => {
  /** An answer Anthropic splits in blocks: the search, its results, then text blocks, one of them cited. */
  const anthropicSearch = (): void =>
    mocks.anthropic.scriptNext({
      content: [
        { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'modelgate release' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_01',
          content: [
            { type: 'web_search_result', url: 'https://example.com/release', title: 'Release notes', encrypted_content: 'enc-1', page_age: 'November 25, 2026' },
            { type: 'web_search_result', url: 'https://example.org/blog', title: 'Blog', encrypted_content: 'enc-2', page_age: null },
          ],
        },
        { type: 'text', text: 'Here is what I found. ' },
        {
          type: 'text',
          text: 'Modelgate 2 shipped.',
          citations: [{ type: 'web_search_result_location', url: 'https://example.com/release', title: 'Release notes', cited_text: 'Modelgate 2 is out', encrypted_index: 'ei-1' }],
        },
        { type: 'text', text: ' More soon.' },
      ],
    });

  const anthropicOutput = [
    { type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'modelgate release' } },
    {
      type: 'message',
      role: 'assistant',
      status: 'completed',
      content: [
        {
          type: 'output_text',
          text: 'Here is what I found. Modelgate 2 shipped. More soon.',
          annotations: [{ type: 'url_citation', url: 'https://example.com/release', title: 'Release notes', start_index: 22, end_index: 42 }],
          logprobs: [],
        },
      ],
    },
  ];

  it('Anthropic, sync and streamed: the same search item and cited message', async () => {
    anthropicSearch();
    const sync = await client.responses.create({ model: 'claude', input: 'What is new with modelgate?', tools: [{ type: 'web_search' }] });
    expect(sync.output.map((o) => o.id?.slice(0, 3))).toEqual(['ws_', 'msg']);
    expect(withoutIds(sync.output)).toEqual(anthropicOutput.map((o) => ({ ...o, id: undefined })));
    expect(sync.output_text).toBe('Here is what I found. Modelgate 2 shipped. More soon.');

    anthropicSearch();
    const { final, types } = await streamed({ model: 'claude', input: 'What is new with modelgate?', tools: [{ type: 'web_search' }], stream: true });
    expect(withoutIds(final.output)).toEqual(withoutIds(sync.output));
    expect(types.filter((t) => t.startsWith('response.web_search_call.'))).toEqual(SEARCH_EVENTS);
    expect(types.filter((t) => t === 'response.output_text.annotation.added')).toHaveLength(1);
    // One message for the three text blocks, as in the sync answer.
    expect(types.filter((t) => t === 'response.output_item.added')).toHaveLength(2);
  });

  it('a search Anthropic could not run is a failed web_search_call, sync and streamed', async () => {
    const script = (): void =>
      mocks.anthropic.scriptNext({
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_02', name: 'web_search', input: { query: 'too many' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_02', content: { type: 'web_search_tool_result_error', error_code: 'max_uses_exceeded' } },
          { type: 'text', text: 'I could not search.' },
        ],
      });
    script();
    const sync = await client.responses.create({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }] });
    expect(sync.output[0]).toMatchObject({ type: 'web_search_call', status: 'failed', action: { type: 'search', query: 'too many' } });
    expect(sync.output_text).toBe('I could not search.');
    script();
    const { final, types } = await streamed({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }], stream: true });
    expect(withoutIds(final.output)).toEqual(withoutIds(sync.output));
    expect(types.filter((t) => t.startsWith('response.web_search_call.'))).toEqual(SEARCH_EVENTS.slice(0, 2));
  });

  it('include web_search_call.action.sources lists the pages found', async () => {
    anthropicSearch();
    const sync = await client.responses.create({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }], include: ['web_search_call.action.sources'] });
    const sources = [
      { type: 'url', url: 'https://example.com/release' },
      { type: 'url', url: 'https://example.org/blog' },
    ];
    expect(sync.output[0]).toMatchObject({ type: 'web_search_call', action: { type: 'search', query: 'modelgate release', sources } });
    anthropicSearch();
    const { final } = await streamed({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }], include: ['web_search_call.action.sources'], stream: true });
    expect(final.output[0]).toMatchObject({ type: 'web_search_call', action: { sources } });
  });

  it('the conversation goes on after a search (previous_response_id)', async () => {
    anthropicSearch();
    const first = await client.responses.create({ model: 'claude', input: 'What is new?', tools: [{ type: 'web_search' }] });
    const second = await client.responses.create({ model: 'claude', previous_response_id: first.id, input: 'Thanks!' });
    expect(second.status).toBe('completed');
    const sent = lastBody(mocks.anthropic).messages as Json[];
    expect(sent.map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    expect(JSON.stringify(sent[1])).toContain('Modelgate 2 shipped.');
  });

  /** Gemini's grounded answer: the text (bytes and characters differ: é), the queries, chunks and supports. */
  const geminiSearch = (): void =>
    mocks.gemini.scriptNext({
      parts: [{ text: 'Café news: modelgate shipped.' }],
      groundingMetadata: {
        webSearchQueries: ['modelgate news', 'modelgate release'],
        searchEntryPoint: { renderedContent: '<div>search</div>' },
        groundingChunks: [
          { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc', title: 'example.com' } },
          { web: { uri: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/def', title: 'example.org' } },
        ],
        // "modelgate shipped." starts at byte 12 (character 11: é is two bytes in UTF-8).
        groundingSupports: [{ segment: { startIndex: 12, endIndex: 30, text: 'modelgate shipped.' }, groundingChunkIndices: [0, 1], confidenceScores: [0.9, 0.8] }],
      },
    });

  it('Gemini, sync and streamed: groundingMetadata becomes the search item and the citations', async () => {
    geminiSearch();
    const body = { model: 'gemini', input: 'Any modelgate news?', tools: [{ type: 'web_search' as const }], include: ['web_search_call.action.sources' as const] };
    const sync = await client.responses.create(body);
    expect(lastBody(mocks.gemini).tools).toEqual([{ googleSearch: {} }]);
    const annotations = [
      { type: 'url_citation', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc', title: 'example.com', start_index: 11, end_index: 29 },
      { type: 'url_citation', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/def', title: 'example.org', start_index: 11, end_index: 29 },
    ];
    // The search comes before the message that cites it, as OpenAI orders them.
    expect(withoutIds(sync.output)).toEqual([
      {
        id: undefined,
        type: 'web_search_call',
        status: 'completed',
        action: {
          type: 'search',
          query: 'modelgate news',
          queries: ['modelgate news', 'modelgate release'],
          sources: [
            { type: 'url', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/abc' },
            { type: 'url', url: 'https://vertexaisearch.cloud.google.com/grounding-api-redirect/def' },
          ],
        },
      },
      { id: undefined, type: 'message', role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'Café news: modelgate shipped.', annotations, logprobs: [] }] },
    ]);
    const text = (sync.output[1] as OpenAI.Responses.ResponseOutputMessage).content[0] as OpenAI.Responses.ResponseOutputText;
    expect(text.text.slice(annotations[0]!.start_index, annotations[0]!.end_index)).toBe('modelgate shipped.');

    geminiSearch();
    const { final, types } = await streamed({ ...body, stream: true });
    expect(lastBody(mocks.gemini).tools).toEqual([{ googleSearch: {} }]);
    expect(withoutIds(final.output)).toEqual(withoutIds(sync.output));
    expect(types.filter((t) => t.startsWith('response.web_search_call.'))).toEqual(SEARCH_EVENTS);
    expect(types.filter((t) => t === 'response.output_text.annotation.added')).toHaveLength(2);
  });

  it('Gemini 3 next to function tools: its server-side tool call parts are not answer content; the grounding is', async () => {
    const script = () =>
      mocks.gemini.scriptNext({
        parts: [
          { toolCall: { id: 'srv_1', toolType: 'GOOGLE_SEARCH_WEB', args: { queries: ['modelgate news'] } }, thoughtSignature: 'c2lnbmF0dXJl' },
          { toolResponse: { id: 'srv_1', toolType: 'GOOGLE_SEARCH_WEB', response: { status: 'ok' } } },
          { text: 'Modelgate shipped.' },
        ],
        groundingMetadata: {
          webSearchQueries: ['modelgate news'],
          groundingChunks: [{ web: { uri: 'https://example.com/a', title: 'example.com' } }],
          groundingSupports: [{ segment: { startIndex: 0, endIndex: 18, text: 'Modelgate shipped.' }, groundingChunkIndices: [0] }],
        },
      });
    const body = { model: 'gemini3', input: 'News?', tools: [...WEATHER_TOOLS, { type: 'web_search' as const }] };
    script();
    const sync = await client.responses.create(body);
    expect(withoutIds(sync.output)).toEqual([
      { id: undefined, type: 'web_search_call', status: 'completed', action: { type: 'search', query: 'modelgate news' } },
      {
        id: undefined,
        type: 'message',
        role: 'assistant',
        status: 'completed',
        content: [{ type: 'output_text', text: 'Modelgate shipped.', annotations: [{ type: 'url_citation', url: 'https://example.com/a', title: 'example.com', start_index: 0, end_index: 18 }], logprobs: [] }],
      },
    ]);
    script();
    const { final } = await streamed({ ...body, stream: true });
    expect(withoutIds(final.output)).toEqual(withoutIds(sync.output));
  });
});
