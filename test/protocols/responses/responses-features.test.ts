/**
 * The Responses API's edges through the `openai` SDK: image and PDF input and a token cut-off on
 * every upstream, Codex-style `namespace` and `custom` tools on another vendor, a failure in the
 * middle of a stream, streamed background runs, and every refusal in OpenAI's error shape
 * (401/403/404/400 naming the field, another key's responses).
 */
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, PDF, PNG, RESP_KEY_B, RESP_KEY_CLAUDE, startResponsesBed, type ResponsesBed } from '../../helpers/responses-gateway.js';

type Json = Record<string, unknown>;

let bed: ResponsesBed;
let client: OpenAI;

beforeAll(async () => {
  bed = await startResponsesBed();
  client = bed.client();
});
afterAll(async () => {
  await bed?.close();
});

const lastBody = (m: { requests: Array<{ body: unknown }> }): Json => m.requests.at(-1)?.body as Json;

const MEDIA_INPUT: OpenAI.Responses.ResponseInput = [
  {
    role: 'user',
    content: [
      { type: 'input_text', text: 'Describe' },
      { type: 'input_image', image_url: `data:image/png;base64,${PNG}`, detail: 'auto' },
      { type: 'input_file', file_data: `data:application/pdf;base64,${PDF}`, filename: 'doc.pdf' },
    ],
  },
];

const LONG = 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen';

describe.each([
  { model: 'gpt-4.1', media: '[responses] you said: Describe [image] [pdf]', prefix: '[responses] you said:' },
  { model: 'claude', media: '[anthropic] you said: Describe [image] [pdf]', prefix: '[anthropic] you said:' },
  { model: 'gemini', media: '[gemini] you said: Describe [image] [pdf]', prefix: '[gemini] you said:' },
  { model: 'compat', media: '[openai] you said: Describe [image] [pdf]', prefix: '[openai] you said:' },
  { model: 'mock', media: 'This is a mock response to: Describe [image] [file]', prefix: 'This is a mock response to:' },
])('$model', ({ model, media, prefix }) => {
  it('takes an image (data URL) and a PDF (file_data)', async () => {
    const r = await client.responses.create({ model, input: MEDIA_INPUT });
    expect(r.output_text).toBe(media);
  });

  it('reports a token cut-off as incomplete (max_output_tokens), synced and streamed', async () => {
    const params = { model, input: LONG, max_output_tokens: 16 };
    const r = await client.responses.create(params);
    expect(r.status).toBe('incomplete');
    expect(r.incomplete_details).toEqual({ reason: 'max_output_tokens' });
    expect(r.output_text.startsWith(prefix)).toBe(true);
    expect(r.output_text.split(/\s+/).length).toBeLessThanOrEqual(16);
    const stream = client.responses.stream(params);
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    expect(types.at(-1)).toBe('response.incomplete');
    const final = await stream.finalResponse();
    expect(final.status).toBe('incomplete');
    expect(final.output_text).toBe(r.output_text);
  });
});

describe('Codex-style tools on another vendor', () => {
  const tools: OpenAI.Responses.Tool[] = [
    {
      type: 'namespace',
      name: 'files',
      description: 'File tools',
      tools: [
        { type: 'function', name: 'read', parameters: { type: 'object', properties: { path: { type: 'string' } } }, strict: false },
        { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } } },
      ],
    },
    { type: 'function', name: 'get_time', parameters: { type: 'object', properties: { utc: { type: 'boolean' } } }, strict: false },
    { type: 'custom', name: 'apply_patch', description: 'Apply a patch', format: { type: 'grammar', syntax: 'lark', definition: 'start: "*** Begin Patch"' } },
  ];

  it('flattens namespace tools (prefixing a name only where it collides) and returns the calls with their namespace', async () => {
    const r = await client.responses.create({ model: 'claude', input: 'do it', tools });
    const sent = lastBody(bed.mocks.anthropic).tools as Json[];
    expect(sent.map((t) => t.name)).toEqual(['read', 'files__get_time', 'get_time', 'apply_patch']);
    expect(r.output.map((o) => (o.type === 'function_call' ? [o.namespace, o.name, o.arguments] : o.type))).toEqual([
      ['files', 'read', '{"path":"Paris"}'],
      ['files', 'get_time', '{"utc":true}'],
    ]);
    const next = await client.responses.create({
      model: 'claude',
      previous_response_id: r.id,
      tools,
      input: r.output.map((o) => ({ type: 'function_call_output' as const, call_id: (o as OpenAI.Responses.ResponseFunctionToolCall).call_id, output: 'done' })),
    });
    expect(next.output_text).toBe('[anthropic] tool results: done; done');
  });

  it('turns a custom tool into a one-string function and its call back into a custom_tool_call (streamed)', async () => {
    const only: OpenAI.Responses.Tool[] = [tools[2] as OpenAI.Responses.Tool];
    const stream = client.responses.stream({ model: 'claude', input: 'patch it', tools: only });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    const r = await stream.finalResponse();
    const sent = (lastBody(bed.mocks.anthropic).tools as Json[])[0];
    expect(sent).toMatchObject({ name: 'apply_patch', input_schema: { type: 'object', properties: { input: { type: 'string' } }, required: ['input'] } });
    expect(String(sent?.description)).toContain('lark grammar');
    expect(r.output).toMatchObject([{ type: 'custom_tool_call', name: 'apply_patch', input: 'Paris', call_id: 'toolu_1' }]);
    expect(types).toContain('response.custom_tool_call_input.done');
    const next = await client.responses.create({
      model: 'claude',
      previous_response_id: r.id,
      tools: only,
      input: [{ type: 'custom_tool_call_output', call_id: 'toolu_1', output: 'patched' }],
    });
    expect(next.output_text).toBe('[anthropic] tool results: patched');
    const replayed = (lastBody(bed.mocks.anthropic).messages as Json[])[1] as { content: Json[] };
    expect(replayed.content).toEqual([{ type: 'tool_use', id: 'toolu_1', name: 'apply_patch', input: { input: 'Paris' } }]);
  });
});

describe('streams', () => {
  it('a failure after the stream started ends it with response.failed, and the failed response is stored', async () => {
    bed.mocks.anthropic.failNextStreamMidway('overloaded_error', 'Overloaded');
    const stream = client.responses.stream({ model: 'claude', input: 'one two three four five' });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.failed');
    const final = await stream.finalResponse();
    expect(final.status).toBe('failed');
    expect(final.error?.message).toContain('Overloaded');
    expect((await client.responses.retrieve(final.id)).status).toBe('failed');
  });

  it('background + stream streams the run from the store, detached from the request', async () => {
    const stream = client.responses.stream({ model: 'gemini', input: 'background stream', background: true });
    const types: string[] = [];
    for await (const ev of stream) types.push(ev.type);
    const final = await stream.finalResponse();
    expect(final.output_text).toBe('[gemini] you said: background stream');
    expect(types[0]).toBe('response.created');
    expect(types.at(-1)).toBe('response.completed');
    expect((await client.responses.retrieve(final.id)).background).toBe(true);
  });

  it('a background stream opens with the queued response at once, and the run goes on when the client leaves', async () => {
    // The client leaves after the first event, while the upstream still holds its answer.
    bed.mocks.anthropic.hangNext(500);
    const disconnects = bed.mocks.anthropic.disconnects;
    const controller = new AbortController();
    const res = await fetch(`${bed.server.url}/v1/responses`, {
      method: 'POST',
      headers: { authorization: 'Bearer mg-responses-key-a-0001', 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'claude', input: 'keep going without me', background: true, stream: true }),
      signal: controller.signal,
    });
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
    const first = JSON.parse(/data: (.*)/.exec(text)?.[1] as string) as { type: string; sequence_number: number; response: { id: string; status: string } };
    expect(first).toMatchObject({ type: 'response.created', sequence_number: 0, response: { status: 'queued' } });
    const done = await eventually(() => client.responses.retrieve(first.response.id), (r) => r.status === 'completed');
    expect(done.output_text).toBe('[anthropic] you said: keep going without me');
    expect(bed.mocks.anthropic.disconnects).toBe(disconnects);
  });

  it('GET ?stream=true replays a stored response that was not run in the background, after starting_after', async () => {
    const r = await client.responses.create({ model: 'claude', input: 'replay me' });
    const replay = client.responses.stream({ response_id: r.id, starting_after: 3 });
    const seqs: number[] = [];
    for await (const ev of replay) seqs.push(ev.sequence_number);
    expect(seqs[0]).toBe(4);
    expect(seqs).toEqual(seqs.map((_, i) => i + 4));
    const final = await replay.finalResponse();
    expect(final.id).toBe(r.id);
    expect(final.output.map((o) => o.id)).toEqual(r.output.map((o) => o.id));
    expect(final.output_text).toBe(r.output_text);
  });
});

describe('refusals, in OpenAI error shape', () => {
  const post = (body: unknown, key = 'mg-responses-key-a-0001') =>
    fetch(`${bed.server.url}/v1/responses`, { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' }, body: JSON.stringify(body) });

  it('401 without a key, 403 for a model the key may not use, 404 for an unknown model', async () => {
    await expect(new OpenAI({ baseURL: `${bed.server.url}/v1`, apiKey: 'wrong-key-000000', maxRetries: 0 }).responses.create({ model: 'claude', input: 'x' })).rejects.toMatchObject({ status: 401 });
    await expect(bed.client(RESP_KEY_CLAUDE).responses.create({ model: 'gemini', input: 'x' })).rejects.toMatchObject({ status: 403, param: 'model' });
    await expect(client.responses.create({ model: 'nope', input: 'x' })).rejects.toMatchObject({ status: 404, code: 'model_not_found' });
  });

  it.each([
    [{ model: 'claude', input: 'x', temperature: 3 }, 'temperature'],
    [{ model: 'claude', input: 'x', tools: [{ type: 'file_search', vector_store_ids: ['vs_1'] }] }, 'tools[0]'],
    [{ model: 'claude', input: 'x', tools: [{ type: 'tool_search' }] }, 'tools[0]'],
    [{ model: 'gemini', input: [{ type: 'computer_call_output', call_id: 'c', output: {} }] }, 'input[0].type'],
    [{ model: 'gemini', input: [{ role: 'user', content: [{ type: 'input_image', file_id: 'file_1', detail: 'auto' }] }] }, 'input[0].content[0]'],
    [{ model: 'claude', input: [{ role: 'user', content: [{ type: 'input_text' }] }] }, 'input[0].content[0].text'],
    [{ model: 'claude', input: 'x', tools: [{ type: 'function', name: 'bad name!' }] }, 'tools[0].name'],
    [{ model: 'claude', input: 'x', tools: [{ type: 'function', name: 'f' }], tool_choice: { type: 'function', name: 'g' } }, 'tool_choice.name'],
    [{ model: 'claude', input: 'x', conversation: 'conv_1' }, 'conversation'],
    [{ model: 'claude', input: 'x', background: true, store: false }, 'background'],
    [{ model: 'claude', input: [] }, 'input'],
  ])('400 naming %j -> %s', async (body, param) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    const json = (await res.json()) as { error: { param: string; type: string; message: string } };
    expect(json.error.param).toBe(param);
    expect(json.error.type).toBe('invalid_request_error');
    expect(json.error.message.length).toBeGreaterThan(10);
  });

  it("another key's responses are 404: retrieve, delete, cancel, input_items and previous_response_id", async () => {
    const mine = await client.responses.create({ model: 'claude', input: 'private', background: true });
    const other = bed.client(RESP_KEY_B);
    await expect(other.responses.retrieve(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.delete(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.cancel(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.inputItems.list(mine.id)).rejects.toMatchObject({ status: 404 });
    await expect(other.responses.create({ model: 'claude', previous_response_id: mine.id, input: 'x' })).rejects.toMatchObject({ status: 404, param: 'previous_response_id' });
    expect((await client.responses.retrieve(mine.id)).id).toBe(mine.id);
  });

  it('store: false is not kept; only background responses can be cancelled', async () => {
    const r = await client.responses.create({ model: 'mock', input: 'forget me', store: false });
    expect((r as unknown as { store: boolean }).store).toBe(false);
    await expect(client.responses.retrieve(r.id)).rejects.toMatchObject({ status: 404 });
    const kept = await client.responses.create({ model: 'mock', input: 'keep me' });
    await expect(client.responses.cancel(kept.id)).rejects.toMatchObject({ status: 400 });
  });

  it('an upstream error keeps its status and reaches the client without the upstream key', async () => {
    bed.mocks.responses.failNext(429, { error: { message: `Rate limit reached for key ${bed.mocks.responses.apiKey}`, type: 'requests', param: null, code: 'rate_limit_exceeded' } });
    const err = await client.responses.create({ model: 'gpt-4.1', input: 'x' }).catch((e: unknown) => e as { status?: number; error?: unknown });
    expect(err).toMatchObject({ status: 429 });
    expect(JSON.stringify(err.error)).not.toContain(bed.mocks.responses.apiKey);
  });
});
