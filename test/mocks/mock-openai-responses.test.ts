/** The strict mock OpenAI Responses upstream, checked directly with the official openai SDK. */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAIResponses, type MockOpenAIResponses } from '../helpers/mock-openai-responses.js';

let mock: MockOpenAIResponses;
let client: OpenAI;

beforeAll(async () => {
  mock = await startMockOpenAIResponses();
  client = new OpenAI({ apiKey: mock.apiKey, baseURL: mock.baseURL, maxRetries: 0 });
});
afterAll(() => mock.close());

const tools: OpenAI.Responses.FunctionTool[] = [
  { type: 'function', name: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'], additionalProperties: false }, strict: true },
  { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } }, strict: false },
];

/** Raw POST, for bodies the SDK's types would not allow. */
async function post(path: string, body: unknown, key = mock.apiKey): Promise<{ status: number; json: { error?: { message: string; param: string | null; code: string | null } } & Record<string, unknown> }> {
  const res = await fetch(`${mock.baseURL}${path}`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: res.status, json: (await res.json()) as never };
}

describe('mock OpenAI Responses: answers', () => {
  it('answers text with usage and the full response object', async () => {
    const res = await client.responses.create({ model: 'gpt-4.1', instructions: 'be brief', input: 'hello there' });
    expect(res.output_text).toBe('[responses] you said: hello there');
    expect(res).toMatchObject({ object: 'response', status: 'completed', model: 'gpt-4.1-2025-08-07', instructions: 'be brief', store: true, incomplete_details: null, error: null });
    expect(res.usage).toEqual({ input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 });
  });

  it('streams the full event sequence with increasing sequence numbers; the SDK assembles the same answer', async () => {
    const stream = client.responses.stream({ model: 'gpt-4.1', input: 'stream me please' });
    const events: Array<{ type: string; sequence_number: number }> = [];
    stream.on('event', (ev) => events.push(ev));
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('[responses] you said: stream me please');
    expect(events.map((e) => e.sequence_number)).toEqual(events.map((_, i) => i));
    expect(events.map((e) => e.type)).toEqual([
      'response.created', 'response.in_progress', 'response.output_item.added', 'response.content_part.added',
      ...Array(6).fill('response.output_text.delta'),
      'response.output_text.done', 'response.content_part.done', 'response.output_item.done', 'response.completed',
    ]);
    const raw = await fetch(`${mock.baseURL}/responses`, { method: 'POST', headers: { authorization: `Bearer ${mock.apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4.1', input: 'x', stream: true }) });
    const text = await raw.text();
    // Every event has an `event:` line equal to its JSON type, and deltas carry OpenAI's obfuscation padding.
    for (const block of text.trim().split('\n\n')) {
      const [ev, data] = block.split('\n');
      expect(ev?.slice(7)).toBe((JSON.parse(data?.slice(6) ?? '{}') as { type: string }).type);
    }
    expect(text).toContain('"obfuscation"');
  });

  it('calls two tools in parallel; the round trip works chained and stateless', async () => {
    const first = await client.responses.create({ model: 'gpt-4.1', input: 'weather and time?', tools });
    const calls = first.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');
    expect(calls.map((c) => [c.call_id, c.name, JSON.parse(c.arguments)])).toEqual([['call_1', 'get_weather', { city: 'Paris' }], ['call_2', 'get_time', { utc: true }]]);
    const outputs: OpenAI.Responses.ResponseInputItem[] = [
      { type: 'function_call_output', call_id: 'call_1', output: '18C' },
      { type: 'function_call_output', call_id: 'call_2', output: [{ type: 'input_text', text: 'noon' }] },
    ];
    const chained = await client.responses.create({ model: 'gpt-4.1', previous_response_id: first.id, input: outputs, tools });
    expect(chained.output_text).toBe('[responses] tool results: 18C; noon');
    // The chained prefix is reported as cached prompt tokens: user + two calls.
    expect(chained.usage?.input_tokens_details.cached_tokens).toBe(30);
    const stateless = await client.responses.create({ model: 'gpt-4.1', store: false, input: [{ role: 'user', content: 'weather and time?' }, ...calls, ...outputs], tools });
    expect(stateless.output_text).toBe('[responses] tool results: 18C; noon');
    expect(mock.stored.has(stateless.id)).toBe(false);
    // The calls sent again on top of the chained conversation: duplicates, refused as by OpenAI.
    const repeated = await post('/responses', { model: 'gpt-4.1', previous_response_id: first.id, input: [...calls, ...outputs], tools });
    expect(repeated.status).toBe(400);
    expect(repeated.json.error?.message).toBe(`Duplicate item found with id ${calls[0]!.id}. Remove duplicate items from your input and try again.`);
    const { id: _id, ...withoutId } = calls[0]!;
    const sameCall = await post('/responses', { model: 'gpt-4.1', previous_response_id: first.id, input: [withoutId, ...outputs], tools });
    expect(sameCall.status).toBe(400);
    expect(sameCall.json.error?.message).toContain("Duplicate value for 'call_id' of call_1");
  });

  it('streams a function call with argument deltas and the whole arguments in .done', async () => {
    const stream = client.responses.stream({ model: 'gpt-4.1', input: 'go', tools: [tools[0]!], parallel_tool_calls: false });
    const deltas: string[] = [];
    let done = '';
    stream.on('response.function_call_arguments.delta', (e) => deltas.push(e.delta));
    stream.on('response.function_call_arguments.done', (e) => (done = e.arguments));
    const final = await stream.finalResponse();
    expect(deltas.length).toBe(2);
    expect(deltas.join('')).toBe(done);
    expect(final.output).toMatchObject([{ type: 'function_call', name: 'get_weather', arguments: '{"city":"Paris"}', call_id: 'call_1' }]);
  });

  it('gives reasoning models a reasoning item with encrypted content that replays only verbatim', async () => {
    const stream = client.responses.stream({ model: 'gpt-5-codex', input: 'think', reasoning: { effort: 'high', summary: 'auto' }, include: ['reasoning.encrypted_content'], store: false });
    const summary: string[] = [];
    stream.on('response.reasoning_summary_text.delta', (e) => summary.push(e.delta));
    const final = await stream.finalResponse();
    const rs = final.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(rs.type).toBe('reasoning');
    expect(summary.join('')).toBe('Planning the answer.');
    expect(rs.encrypted_content).toMatch(/^gAAAAA/);
    expect(final.usage?.output_tokens_details.reasoning_tokens).toBe(8);
    const replay = await client.responses.create({ model: 'gpt-5-codex', store: false, input: [{ role: 'user', content: 'think' }, rs, { role: 'user', content: 'again' }] });
    expect(replay.output_text).toBe('[responses] you said: again');
    const tampered = await post('/responses', { model: 'gpt-5-codex', store: false, input: [{ ...rs, encrypted_content: 'gAAAAAforged' }, { role: 'user', content: 'x' }] });
    expect(tampered.status).toBe(400);
    expect(tampered.json.error?.code).toBe('invalid_encrypted_content');
    const dropped = await post('/responses', { model: 'gpt-5-codex', store: false, input: [{ ...rs, encrypted_content: undefined }, { role: 'user', content: 'x' }] });
    expect(dropped.status).toBe(404);
  });

  it('cuts at max_output_tokens with status incomplete', async () => {
    const long = Array.from({ length: 30 }, (_, i) => `w${i}`).join(' ');
    const res = await client.responses.create({ model: 'gpt-4.1', input: long, max_output_tokens: 16 });
    expect(res.status).toBe('incomplete');
    expect(res.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(res.output_text.split(' ')).toHaveLength(16);
    expect(res.usage?.output_tokens).toBe(16);
    const events: string[] = [];
    const stream = await client.responses.create({ model: 'gpt-4.1', input: long, max_output_tokens: 16, stream: true });
    for await (const ev of stream) events.push(ev.type);
    expect(events.at(-1)).toBe('response.incomplete');
  });

  it('plays scripted replies: usage, failed, an in-stream error', async () => {
    mock.scriptNext({ output: [{ type: 'text', text: 'scripted' }], usage: { input_tokens: 120, cached_tokens: 64, output_tokens: 7, reasoning_tokens: 3 } });
    const res = await client.responses.create({ model: 'gpt-4.1', input: 'x' });
    expect(res.output_text).toBe('scripted');
    expect(res.usage).toEqual({ input_tokens: 120, input_tokens_details: { cached_tokens: 64 }, output_tokens: 7, output_tokens_details: { reasoning_tokens: 3 }, total_tokens: 127 });
    mock.scriptNext({ status: 'failed', error: { code: 'server_error', message: 'boom' } });
    const failed = await client.responses.create({ model: 'gpt-4.1', input: 'x' });
    expect(failed).toMatchObject({ status: 'failed', error: { code: 'server_error', message: 'boom' } });
    mock.scriptNext({ streamError: { code: 'server_error', message: 'mid-stream' } });
    await expect(client.responses.stream({ model: 'gpt-4.1', input: 'x y z' }).finalResponse()).rejects.toThrow(/mid-stream/);
  });
});

describe('mock OpenAI Responses: rejects what OpenAI rejects', () => {
  const cases: Array<[string, Record<string, unknown>, number, string | null, string | null]> = [
    ['an unknown top-level field', { model: 'gpt-4.1', input: 'x', messages: [] }, 400, 'messages', 'unknown_parameter'],
    ['a chat-style nested tool', { model: 'gpt-4.1', input: 'x', tools: [{ type: 'function', function: { name: 'f', parameters: {} } }] }, 400, 'tools[0].name', 'missing_required_parameter'],
    ['an unknown field inside an item', { model: 'gpt-4.1', input: [{ role: 'assistant', content: null, tool_calls: [] }] }, 400, 'input[0].tool_calls', 'unknown_parameter'],
    ['input_text in an assistant message', { model: 'gpt-4.1', input: [{ role: 'assistant', content: [{ type: 'input_text', text: 'x' }] }] }, 400, 'input[0].content[0].type', 'invalid_value'],
    ['an image without a source', { model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_image', detail: 'auto' }] }] }, 400, 'input[0].content[0]', 'invalid_value'],
    ['an image detail OpenAI does not know', { model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_image', image_url: 'https://x/y.png', detail: 'max' }] }] }, 400, 'input[0].content[0].detail', 'invalid_value'],
    ['max_output_tokens below 16', { model: 'gpt-4.1', input: 'x', max_output_tokens: 5 }, 400, 'max_output_tokens', 'integer_below_min_value'],
    ['reasoning.effort on a non-reasoning model', { model: 'gpt-4.1', input: 'x', reasoning: { effort: 'high' } }, 400, 'reasoning.effort', 'unsupported_parameter'],
    ['temperature on a reasoning model', { model: 'gpt-5', input: 'x', temperature: 0.2 }, 400, 'temperature', 'unsupported_parameter'],
    ['a chat-style response format', { model: 'gpt-4.1', input: 'x', text: { format: { type: 'json_schema', json_schema: { name: 'a', schema: {} } } } }, 400, 'text.format.name', 'missing_required_parameter'],
    ['json_object without the word json', { model: 'gpt-4.1', input: 'x', text: { format: { type: 'json_object' } } }, 400, 'input', null],
    ['a strict tool with a non-strict schema', { model: 'gpt-4.1', input: 'x', tools: [{ ...tools[1], strict: true }] }, 400, 'tools[0].parameters', 'invalid_function_parameters'],
    ['tool_choice naming an absent function', { model: 'gpt-4.1', input: 'x', tools: [tools[0]], tool_choice: { type: 'function', name: 'nope' } }, 400, 'tool_choice', 'invalid_value'],
    ['an unknown previous_response_id', { model: 'gpt-4.1', input: 'x', previous_response_id: 'resp_nope' }, 404, 'previous_response_id', 'previous_response_not_found'],
    ['an output for an unknown call', { model: 'gpt-4.1', input: [{ type: 'function_call_output', call_id: 'call_x', output: 'y' }] }, 400, 'input', null],
    ['a call without its output', { model: 'gpt-4.1', input: [{ type: 'function_call', call_id: 'c', name: 'f', arguments: '{}' }] }, 400, 'input', null],
    ['a PDF without filename', { model: 'gpt-4.1', input: [{ role: 'user', content: [{ type: 'input_file', file_data: 'data:application/pdf;base64,AA==' }] }] }, 400, 'input[0].content[0].filename', 'missing_required_parameter'],
  ];
  it.each(cases)('%s', async (_name, body, status, param, code) => {
    const res = await post('/responses', body);
    expect(res.status).toBe(status);
    expect(res.json.error).toMatchObject({ param, code });
  });

  it('checks the key', async () => {
    const res = await post('/responses', { model: 'gpt-4.1', input: 'x' }, 'wrong-key-123456');
    expect(res.status).toBe(401);
    expect(res.json.error?.code).toBe('invalid_api_key');
  });
});

describe('mock OpenAI Responses: stored responses', () => {
  it('retrieves, lists input items with paging, deletes', async () => {
    const res = await client.responses.create({ model: 'gpt-4.1', input: [{ role: 'user', content: 'a' }, { role: 'assistant', content: 'b' }, { role: 'user', content: 'c' }] });
    expect((await client.responses.retrieve(res.id)).output_text).toBe('[responses] you said: c');
    const page = await client.responses.inputItems.list(res.id, { limit: 2, order: 'asc' });
    expect(page.data.map((i) => (i.type === 'message' ? i.role : i.type))).toEqual(['user', 'assistant']);
    expect(page.has_more).toBe(true);
    const next = await client.responses.inputItems.list(res.id, { limit: 2, order: 'asc', after: page.data[1]!.id! });
    expect(next.data.map((i) => (i.type === 'message' ? i.content : null))).toEqual([[{ type: 'input_text', text: 'c' }]]);
    await client.responses.delete(res.id);
    await expect(client.responses.retrieve(res.id)).rejects.toMatchObject({ status: 404 });
  });

  it('replays a stored stream after a sequence number', async () => {
    const res = await client.responses.create({ model: 'gpt-4.1', input: 'replay me' });
    const stream = await client.responses.retrieve(res.id, { stream: true, starting_after: 3 });
    const seq: number[] = [];
    for await (const ev of stream) seq.push(ev.sequence_number);
    // created, in_progress, item added, part added, then five word deltas (4-8), the dones and completed.
    expect(seq[0]).toBe(4);
    expect(seq).toEqual(Array.from({ length: 9 }, (_, i) => i + 4));
  });

  it('runs background responses: queued, in_progress, final; cancel only before the end', async () => {
    const bg = await client.responses.create({ model: 'gpt-4.1', input: 'later', background: true });
    expect(bg.status).toBe('queued');
    expect((await client.responses.retrieve(bg.id)).status).toBe('in_progress');
    expect((await client.responses.retrieve(bg.id)).output_text).toBe('[responses] you said: later');
    await expect(client.responses.cancel(bg.id)).rejects.toMatchObject({ status: 400 });
    const other = await client.responses.create({ model: 'gpt-4.1', input: 'later', background: true });
    expect((await client.responses.cancel(other.id)).status).toBe('cancelled');
    expect((await client.responses.retrieve(other.id)).status).toBe('cancelled');
    const sync = await client.responses.create({ model: 'gpt-4.1', input: 'now' });
    await expect(client.responses.cancel(sync.id)).rejects.toMatchObject({ status: 400 });
  });

  it('counts input tokens and rejects create-only fields there', async () => {
    const count = await client.responses.inputTokens.count({ model: 'gpt-4.1', input: [{ role: 'user', content: 'a' }, { role: 'user', content: 'b' }] });
    expect(count).toEqual({ object: 'response.input_tokens', input_tokens: 20 });
    const bad = await post('/responses/input_tokens', { model: 'gpt-4.1', input: 'x', stream: true });
    expect(bad.json.error).toMatchObject({ param: 'stream', code: 'unknown_parameter' });
  });
});
