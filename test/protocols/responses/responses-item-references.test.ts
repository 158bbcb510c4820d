/**
 * Responses input that points at stored items, through the official `openai` SDK:
 * - `item_reference` items (the Vercel AI SDK's OpenAI provider sends earlier output items back so in
 *   tool round trips, store on) are resolved from the stored responses of the same key, whichever
 *   vendor answered them; a reference to an item an OpenAI upstream produced stays a reference for
 *   that upstream; another key's item is a 400 naming the id, as if unknown (never sent upstream);
 * - function calls sent again next to their outputs on top of `previous_response_id` (the calls the
 *   conversation already holds) reach the upstream once.
 * The mock upstreams refuse duplicate tool calls as the real ones do.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RESP_KEY_B, startResponsesBed, WEATHER_TOOLS, type ResponsesBed } from '../../helpers/responses-gateway.js';

type Json = Record<string, unknown>;
type Item = OpenAI.Responses.ResponseInputItem;

let bed: ResponsesBed;
let client: OpenAI;

beforeAll(async () => {
  bed = await startResponsesBed();
  client = bed.client();
});
afterAll(async () => {
  await bed?.close();
});

const lastBody = (m: { requests: Array<{ body: unknown; path: string }> }, path = ''): Json => [...m.requests].reverse().find((r) => r.path.endsWith(path))?.body as Json;
const callsOf = (r: OpenAI.Responses.Response) => r.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
const outputsFor = (r: OpenAI.Responses.Response): Item[] => callsOf(r).map((c) => ({ type: 'function_call_output', call_id: c.call_id, output: `${c.name} done` }));
const refsTo = (r: OpenAI.Responses.Response): Item[] => r.output.map((o) => ({ type: 'item_reference', id: o.id as string }));

const VENDORS = [
  { model: 'claude', tag: 'anthropic', upstream: () => bed.mocks.anthropic },
  { model: 'gemini', tag: 'gemini', upstream: () => bed.mocks.gemini },
  { model: 'compat', tag: 'openai', upstream: () => bed.mocks.chat },
  { model: 'gpt-4.1', tag: 'responses', upstream: () => bed.mocks.responses },
];

/** The call ids as the upstream received them, in order (one entry per call in the request). */
function callIdsSent(tag: string, body: Json): string[] {
  const messages = (body.messages ?? body.contents ?? body.input) as Json[];
  switch (tag) {
    case 'anthropic':
      return messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Json[]) : [])).filter((b) => b.type === 'tool_use').map((b) => String(b.id));
    case 'gemini':
      return messages.flatMap((c) => c.parts as Json[]).filter((p) => p.functionCall).map((p) => String((p.functionCall as Json).id ?? (p.functionCall as Json).name));
    case 'openai':
      return messages.flatMap((m) => (Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : [])).map((t) => String(t.id));
    default:
      return messages.filter((i) => i.type === 'function_call').map((i) => String(i.call_id));
  }
}

describe.each(VENDORS)('$model: a tool round trip with item references (Vercel AI SDK, store on)', ({ model, tag, upstream }) => {
  it('resolves the references from the stored response and answers the tool results', async () => {
    const question: Item = { role: 'user', content: 'weather and time in Paris?' };
    const first = await client.responses.create({ model, input: [question], tools: WEATHER_TOOLS });
    expect(callsOf(first)).toHaveLength(2);
    const second = await client.responses.create({ model, input: [question, ...refsTo(first), ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(second.status).toBe('completed');
    expect(second.output_text).toBe(`[${tag}] tool results: get_weather done; get_time done`);

    const body = lastBody(upstream());
    if (tag === 'responses') {
      // The OpenAI upstream produced those items: it resolves them itself.
      expect((body.input as Json[]).filter((i) => i.type === 'item_reference').map((i) => i.id)).toEqual(first.output.map((o) => o.id));
    } else expect(callIdsSent(tag, body)).toHaveLength(2);

    // Listed (and stored for later turns) as the items themselves.
    const listed = await client.responses.inputItems.list(second.id, { order: 'asc' });
    expect(listed.data.map((i) => i.type)).toEqual(['message', ...first.output.map((o) => o.type), 'function_call_output', 'function_call_output']);
    expect(listed.data.filter((i) => i.type === 'function_call').map((i) => i.id)).toEqual(callsOf(first).map((c) => c.id));

    // The conversation goes on from there on another vendor.
    const third = await client.responses.create({ model: model === 'claude' ? 'compat' : 'claude', previous_response_id: second.id, input: 'thanks' });
    expect(third.status).toBe('completed');
  });
});

describe('item references across vendors and keys', () => {
  it('an item another vendor produced is resolved by the gateway for the OpenAI upstream (which cannot know it)', async () => {
    const first = await client.responses.create({ model: 'claude', input: 'weather and time?', tools: WEATHER_TOOLS });
    const second = await client.responses.create({ model: 'gpt-4.1', input: [{ role: 'user', content: 'weather and time?' }, ...refsTo(first), ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(second.output_text).toBe('[responses] tool results: get_weather done; get_time done');
    const input = lastBody(bed.mocks.responses).input as Json[];
    expect(input.map((i) => i.type ?? 'message')).toEqual(['message', 'function_call', 'function_call', 'function_call_output', 'function_call_output']);
    expect(input.filter((i) => i.type === 'function_call').map((i) => [i.call_id, i.name, i.id])).toEqual(callsOf(first).map((c) => [c.call_id, c.name, undefined]));
  });

  it('an item an OpenAI upstream produced is resolved for Anthropic; the short form {id} is a reference too', async () => {
    const first = await client.responses.create({ model: 'gpt-4.1', input: 'weather and time?', tools: WEATHER_TOOLS });
    const refs = first.output.map((o) => ({ id: o.id }) as unknown as Item);
    const second = await client.responses.create({ model: 'claude', input: [{ role: 'user', content: 'weather and time?' }, ...refs, ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(second.output_text).toBe('[anthropic] tool results: get_weather done; get_time done');
    expect(callIdsSent('anthropic', lastBody(bed.mocks.anthropic))).toEqual(callsOf(first).map((c) => c.call_id));
  });

  it("another key's item is unknown: 400 naming the id, and nothing reaches the upstream", async () => {
    const mine = await client.responses.create({ model: 'gpt-4.1', input: 'a secret', tools: WEATHER_TOOLS });
    const id = mine.output[0]!.id as string;
    const other = bed.client(RESP_KEY_B);
    for (const model of ['gpt-4.1', 'claude']) {
      const sent = bed.mocks.responses.requests.length + bed.mocks.anthropic.requests.length;
      const err = await other.responses.create({ model, input: [{ role: 'user', content: 'hi' }, { type: 'item_reference', id }] }).catch((e: unknown) => e);
      expect(err).toMatchObject({ status: 400, param: 'input[1]' });
      expect((err as Error).message).toContain(`Item with id '${id}' not found.`);
      expect(bed.mocks.responses.requests.length + bed.mocks.anthropic.requests.length).toBe(sent);
    }
    const unknown = await client.responses.create({ model: 'gemini', input: [{ type: 'item_reference', id: 'fc_nowhere' }] }).catch((e: unknown) => e);
    expect(unknown).toMatchObject({ status: 400, param: 'input[0]' });
    expect((unknown as Error).message).toContain("Item with id 'fc_nowhere' not found.");
  });

  it('input_tokens counts the resolved items', async () => {
    const first = await client.responses.create({ model: 'claude', input: 'weather and time?', tools: WEATHER_TOOLS });
    const plain = await client.responses.inputTokens.count({ model: 'claude', input: [{ role: 'user', content: 'weather and time?' }, ...outputsFor(first)], tools: WEATHER_TOOLS }).catch((e: unknown) => e);
    const counted = await client.responses.inputTokens.count({ model: 'claude', input: [{ role: 'user', content: 'weather and time?' }, ...refsTo(first), ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(counted.input_tokens).toBeGreaterThan((plain as { input_tokens: number }).input_tokens ?? 0);
  });
});

describe.each(VENDORS)('$model: calls sent again next to their outputs on top of previous_response_id', ({ model, tag, upstream }) => {
  it('reach the upstream once, and the stored turn holds only the outputs', async () => {
    const first = await client.responses.create({ model, input: 'weather and time?', tools: WEATHER_TOOLS });
    const calls = callsOf(first);
    const resent = calls.map(({ id: _id, status: _s, ...call }) => call as Item);
    const second = await client.responses.create({ model, previous_response_id: first.id, input: [...resent, ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(second.output_text).toBe(`[${tag}] tool results: get_weather done; get_time done`);
    const body = lastBody(upstream());
    // OpenAI holds the conversation (continued by its own id): only the outputs go; the others get the history once.
    expect(callIdsSent(tag, body)).toEqual(tag === 'responses' ? [] : calls.map((c) => (tag === 'gemini' ? c.name : c.call_id)));
    const listed = await client.responses.inputItems.list(second.id);
    expect(listed.data.map((i) => i.type)).toEqual(['function_call_output', 'function_call_output']);

    // Item references to the continued response's own items are dropped the same way.
    const third = await client.responses.create({ model, previous_response_id: first.id, input: [...refsTo(first), ...outputsFor(first)], tools: WEATHER_TOOLS });
    expect(third.output_text).toBe(`[${tag}] tool results: get_weather done; get_time done`);
  });
});
