/**
 * What Codex CLI really sends (recorded bodies in test/fixtures/agents/codex-request*.json) reaches
 * Anthropic, Gemini and the mock through the gateway as requests those strict upstreams accept:
 * developer messages, namespace tools, a custom grammar tool, `additional_tools` items, a tool turn,
 * client_metadata and the other fields Codex adds. `tool_search` (an OpenAI hosted tool) is taken out
 * here: it is a 400 naming it, covered elsewhere; `web_search` stays (the vendor's own search).
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESP_KEY_A, startResponsesBed, type ResponsesBed } from './helpers/responses-gateway.js';

type Json = Record<string, unknown>;

let bed: ResponsesBed;

beforeAll(async () => {
  bed = await startResponsesBed();
});
afterAll(async () => {
  await bed?.close();
});

const HOSTED = new Set(['tool_search']);

function codexBody(name: string, model: string): Json {
  const fixture = JSON.parse(readFileSync(new URL(`./fixtures/agents/${name}.json`, import.meta.url), 'utf8')) as { body: Json };
  const body: Json = { ...fixture.body, model };
  if (Array.isArray(body.tools)) body.tools = (body.tools as Json[]).filter((t) => !HOSTED.has(String(t.type)));
  return body;
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
      if (fixture === 'codex-request-gpt-5.5') expect(names).toContain('apply_patch');
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
