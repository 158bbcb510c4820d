/**
 * OpenAI's `web_search` tool through the Responses API to other vendors: it becomes the vendor's
 * own search (Anthropic's web search server tool, Gemini's `googleSearch`); Gemini 2.x, which
 * refuses search next to function declarations, gets it left out with a warning, Gemini 3 gets it
 * with `toolConfig.includeServerSideToolInvocations`; a chat-only server leaves it out with a
 * warning. The strict mocks refuse what the real vendors refuse.
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../adapters/node.js';
import type { Gateway } from '../src/index.js';
import { closeMocks, RESP_KEY_A, responsesConfig, startMocks, WEATHER_TOOLS, type ResponsesMocks } from './helpers/responses-gateway.js';
import { createShippedGateway } from './helpers/shipped-gateway.js';

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

  it('the other hosted tools stay a 400 naming the tool', async () => {
    const res = await post({ model: 'claude', input: 'x', tools: [{ type: 'web_search' }, { type: 'code_interpreter', container: { type: 'auto' } }] });
    expect(res.status).toBe(400);
    expect(res.json.error).toMatchObject({ param: 'tools[1]', message: expect.stringContaining("'code_interpreter'") });
  });
});
