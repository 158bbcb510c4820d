/**
 * What Codex CLI really sends (recorded bodies in test/fixtures/agents/codex-request*.json) reaches
 * Anthropic, Gemini and the mock through the gateway as requests those strict upstreams accept:
 * developer messages, namespace tools, a custom grammar tool, `additional_tools` items, a tool turn,
 * client_metadata and the other fields Codex adds, its client-run `tool_search` (a function for
 * other vendors) and `web_search` (the vendor's own search).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESP_KEY_A, startResponsesBed, type ResponsesBed } from '../../helpers/responses-gateway.js';

type Json = Record<string, unknown>;

let bed: ResponsesBed;

beforeAll(async () => {
  bed = await startResponsesBed();
});
afterAll(async () => {
  await bed?.close();
});

function codexBody(name: string, model: string): Json {
  const fixture = JSON.parse(readFileSync(new URL(`../../fixtures/agents/${name}.json`, import.meta.url), 'utf8')) as { body: Json };
  return { ...fixture.body, model };
}

async function post(body: Json): Promise<{ status: number; events: Json[] }> {
  const res = await fetch(`${bed.server.url}/v1/responses`, {
    method: 'POST',
    headers: { authorization: `Bearer ${RESP_KEY_A}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${res.status}: ${text}`);
  const events = text
    .split('\n\n')
    .map((f) => f.split('\n').find((l) => l.startsWith('data: ')))
    .filter((l): l is string => l !== undefined)
    .map((l) => JSON.parse(l.slice(6)) as Json);
  return { status: res.status, events };
}

describe.each(['claude', 'gemini', 'mock'])('Codex bodies to %s', (model) => {
  it.each(['codex-request', 'codex-request-tool-turn', 'codex-request-default-model', 'codex-request-gpt-5.5'])('%s', async (fixture) => {
    const { events } = await post(codexBody(fixture, model));
    const last = events.at(-1) as { type: string; response: { status: string; output: Json[] } };
    expect(last.type).toBe('response.completed');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    if (model === 'claude') {
      const sent = bed.mocks.anthropic.requests.at(-1)?.body as { tools?: Json[]; system?: unknown; messages: Json[] };
      const names = (sent.tools ?? []).map((t) => t.name);
      if (fixture === 'codex-request' || fixture === 'codex-request-tool-turn') expect(names).toContain('spawn_agent');
      if (fixture === 'codex-request-default-model') expect(names).toEqual(expect.arrayContaining(['exec', 'sleep', 'followup_task']));
      if (fixture === 'codex-request-gpt-5.5') expect(names).toEqual(expect.arrayContaining(['apply_patch', 'tool_search', 'web_search']));
      expect(typeof sent.system === 'string' || Array.isArray(sent.system)).toBe(true);
      if (fixture === 'codex-request-tool-turn') {
        expect(sent.messages.at(-1)).toMatchObject({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'call_1' }] });
      }
    }
  });
});

describe('calls to namespaced and custom tools come back as Codex routes them', () => {
  it('a namespace function keeps its namespace; the grammar tool is a custom_tool_call', async () => {
    const body = codexBody('codex-request-default-model', 'claude');
    const { events } = await post(body);
    const output = (events.at(-1) as { response: { output: Json[] } }).response.output;
    // reasoning.effort low turns thinking on; the Anthropic mock then calls the first two tools it
    // was given: functions.exec (custom) and functions.wait.
    expect(output.map((o) => [o.type, o.namespace, o.name])).toEqual([
      ['reasoning', undefined, undefined],
      ['custom_tool_call', 'functions', 'exec'],
      ['function_call', 'functions', 'wait'],
    ]);
  });
});

describe("Codex's client-run tool search", () => {
  const TOOL_SEARCH = {
    type: 'tool_search',
    execution: 'client',
    description: 'Searches over deferred tool metadata.',
    parameters: { type: 'object', properties: { query: { type: 'string' }, limit: { type: 'number' } }, required: ['query'], additionalProperties: false },
  };
  const WEATHER = { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } };

  it('is a function upstream; its call comes back as a tool_search_call, sync and streamed alike', async () => {
    const sync = await fetch(`${bed.server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${RESP_KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude', input: 'Find me a weather tool.', tools: [TOOL_SEARCH] }),
    });
    const json = (await sync.json()) as { output: Json[] };
    const sent = bed.mocks.anthropic.requests.at(-1)?.body as { tools: Json[] };
    expect(sent.tools).toEqual([{ name: 'tool_search', description: TOOL_SEARCH.description, input_schema: TOOL_SEARCH.parameters }]);
    const call = { type: 'tool_search_call', status: 'completed', call_id: 'toolu_1', arguments: { query: 'Paris', limit: 1 }, execution: 'client' };
    expect(json.output).toEqual([{ ...call, id: expect.stringMatching(/^tsc_/) }]);

    const { events } = await post({ model: 'claude', input: 'Find me a weather tool.', tools: [TOOL_SEARCH], stream: true });
    const final = (events.at(-1) as { response: { output: Json[] } }).response.output;
    expect(final).toEqual([{ ...call, id: expect.stringMatching(/^tsc_/) }]);
    expect(events.map((e) => e.type)).not.toContain('response.function_call_arguments.delta');
  });

  it('the tools a tool_search_output loads are declared upstream, and the result names them', async () => {
    const res = await fetch(`${bed.server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: `Bearer ${RESP_KEY_A}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        model: 'claude',
        store: false,
        tools: [TOOL_SEARCH],
        input: [
          { role: 'user', content: 'Find me a weather tool.' },
          { type: 'tool_search_call', id: 'tsc_1', call_id: 'toolu_1', arguments: { query: 'weather' }, execution: 'client', status: 'completed' },
          { type: 'tool_search_output', call_id: 'toolu_1', execution: 'client', status: 'completed', tools: [WEATHER] },
        ],
      }),
    });
    expect(res.status).toBe(200);
    const sent = bed.mocks.anthropic.requests.at(-1)?.body as { tools: Json[]; messages: Json[] };
    expect(sent.tools.map((t) => t.name)).toEqual(['tool_search', 'get_weather']);
    expect(sent.messages.slice(1)).toEqual([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'toolu_1', name: 'tool_search', input: { query: 'weather' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'Tools found and now available: get_weather.' }] },
    ]);
  });

  it('a tool search OpenAI runs (no client execution) stays a 400 naming the tool', async () => {
    const { status, events } = await post({ model: 'claude', input: 'x', tools: [{ type: 'tool_search' }] }).catch((e: Error) => ({ status: Number(e.message.slice(0, 3)), events: [] }));
    expect(status).toBe(400);
    expect(events).toEqual([]);
  });
});
