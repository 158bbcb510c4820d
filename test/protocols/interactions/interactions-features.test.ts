/**
 * Interactions API through the @google/genai SDK: background runs (create, GET, follow as a stream,
 * cancel, which stops the upstream call), agents (Gemini only; the key's model permissions apply),
 * errors in Gemini shape (401/403/404, 400 naming what another vendor cannot take), and failures in
 * the middle of a stream (the protocol's `error` event, the interaction stored as failed).
 */
import { ApiError, type GoogleGenAI, type Interactions } from '@google/genai';
import { describe, expect, it } from 'vitest';
import {
  AGENT,
  collect,
  eventually,
  IX_KEY_A,
  IX_KEY_B,
  IX_KEY_LIMITED,
  rawCall,
  useInteractionsGateway,
  WEATHER_TOOL,
} from '../../helpers/interactions-gateway.js';

const ix = useInteractionsGateway({ conversations: { pollIntervalMs: 10, cancelCheckMs: 20 } });

interface GeminiErrorBody {
  error: { code: number; message: string; status: string };
  traceId: string;
}

/** The SDK's error for a failed call: its HTTP status and the Gemini-shaped body. */
async function failure(p: Promise<unknown>): Promise<{ status: number; body: GeminiErrorBody }> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err, 'the call should have failed').toBeDefined();
  const e = err as { status?: number; error?: unknown };
  expect(err).not.toBeInstanceOf(ApiError);
  return { status: e.status as number, body: e.error as GeminiErrorBody };
}

async function rawError(res: Response): Promise<GeminiErrorBody> {
  expect(res.headers.get('content-type')).toContain('application/json');
  return (await res.json()) as GeminiErrorBody;
}

function until(id: string, statuses: string[], key = IX_KEY_A): Promise<Interactions.Interaction> {
  const client = ix.gw.client(key);
  return eventually(
    () => client.interactions.get(id),
    (r) => statuses.includes(r.status),
  );
}

describe('background interactions', () => {
  it.each([
    { model: 'gemini', text: '[gemini-interactions] turn 1, you said: work on this later', asked: 'gemini-2.5-flash', answered: 'gemini-2.5-flash' },
    { model: 'gpt', text: '[openai] you said: work on this later', asked: 'gpt-4o', answered: 'gpt-4o-2024-08-06' },
    { model: 'claude', text: '[anthropic] you said: work on this later', asked: 'claude-sonnet-4-5', answered: 'claude-sonnet-4-5' },
  ])('$model: create answers in_progress at once; GET follows it to completed', async ({ model, text, asked, answered }) => {
    const r = await ix.ai.interactions.create({ model, input: 'work on this later', background: true });
    expect(r.status).toBe('in_progress');
    expect(r.steps).toEqual([]);
    // Never the caller's alias: the model the upstream is asked for, then the version it reports.
    expect(r.model).toBe(asked);
    const done = await until(r.id, ['completed']);
    expect(done.model).toBe(answered);
    expect(done.output_text).toBe(text);
    expect(done.usage?.total_input_tokens).toBe(10);
  });

  it('the Gemini upstream gets background and stream: the gateway follows its event stream', async () => {
    const r = await ix.ai.interactions.create({ model: 'gemini', input: 'in the background', background: true });
    await until(r.id, ['completed']);
    const sent = ix.mocks.gemini.requests.filter((q) => q.path === '/v1beta/interactions').at(-1)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ model: 'gemini-2.5-flash', background: true, stream: true, input: 'in the background' });
  });

  it('background + stream: the run streams from the store, ending with interaction.completed', async () => {
    const events = await collect(await ix.ai.interactions.create({ model: 'gpt', input: 'stream in the background', background: true, stream: true }));
    expect(events[0]!.event_type).toBe('interaction.created');
    const last = events.at(-1) as Interactions.InteractionCompletedEvent;
    expect(last.event_type).toBe('interaction.completed');
    expect(last.interaction.status).toBe('completed');
    const id = (events[0] as Interactions.InteractionCreatedEvent).interaction.id;
    const resumed = await collect(await ix.ai.interactions.get(id, { stream: true, last_event_id: events[1]!.event_id as string }));
    expect(resumed).toEqual(events.slice(2));
  });

  it('GET ?stream=true follows a running background interaction live', async () => {
    const gate = ix.mocks.openai.pauseStreamNext();
    const r = await ix.ai.interactions.create({ model: 'gpt', input: 'follow me', background: true });
    const stream = await ix.ai.interactions.get(r.id, { stream: true });
    const seen: Interactions.InteractionSSEEvent[] = [];
    const reading = (async () => {
      for await (const ev of stream) {
        seen.push(ev);
        if (seen.length === 1) gate.release();
      }
    })();
    await reading;
    expect(seen[0]!.event_type).toBe('interaction.created');
    expect((seen.at(-1) as Interactions.InteractionCompletedEvent).interaction.status).toBe('completed');
    const text = seen.flatMap((e) => (e.event_type === 'step.delta' && e.delta.type === 'text' ? [e.delta.text] : [])).join('');
    expect(text).toBe('[openai] you said: follow me');
  });

  it('cancel (translated upstream): the run stops, its upstream call is aborted, status cancelled', async () => {
    ix.mocks.openai.holdStreamNext();
    const disconnected = ix.mocks.openai.nextDisconnect();
    const r = await ix.ai.interactions.create({ model: 'gpt', input: 'hold on', background: true });
    await until(r.id, ['in_progress']);
    await eventually(
      async () => ix.mocks.openai.requests.filter((q) => (q.body as { messages?: Array<{ content?: unknown }> })?.messages?.some((m) => m.content === 'hold on')).length,
      (n) => n > 0,
    );
    const cancelled = await ix.ai.interactions.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    await disconnected;
    const after = await until(r.id, ['cancelled']);
    expect(after.status).toBe('cancelled');
  });

  it('cancel (Gemini pass-through): the gateway cancels the interaction at Gemini too', async () => {
    ix.mocks.gemini.interactions.holdNext();
    const r = await ix.ai.interactions.create({ model: 'gemini', input: 'long task', background: true });
    const upstream = await eventually(
      async () => [...ix.mocks.gemini.interactions.interactions.values()].find((i) => i.inputSteps.length && JSON.stringify(i.inputSteps).includes('long task')),
      (i) => i !== undefined && i.status === 'in_progress',
    );
    await until(r.id, ['in_progress']);
    const cancelled = await ix.ai.interactions.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    await eventually(
      async () => ix.mocks.gemini.requests.some((q) => q.method === 'POST' && q.path === `/v1beta/interactions/${upstream!.id}/cancel`),
      (x) => x,
    );
    expect(upstream!.status).toBe('cancelled');
    expect((await ix.ai.interactions.get(r.id)).status).toBe('cancelled');
  });

  it('cancel of an interaction that was not a background one is a 400; of a finished one returns it as it is', async () => {
    const plain = await ix.ai.interactions.create({ model: 'gpt', input: 'quick' });
    const { status, body } = await failure(ix.ai.interactions.cancel(plain.id));
    expect(status).toBe(400);
    expect(body.error.status).toBe('INVALID_ARGUMENT');
    const bg = await ix.ai.interactions.create({ model: 'gpt', input: 'quick too', background: true });
    await until(bg.id, ['completed']);
    expect((await ix.ai.interactions.cancel(bg.id)).status).toBe('completed');
  });

  it('background: true with store: false is a 400', async () => {
    const { status, body } = await failure(ix.ai.interactions.create({ model: 'gpt', input: 'x', background: true, store: false }));
    expect(status).toBe(400);
    expect(body.error.message).toContain('store');
  });
});

describe('agents', () => {
  it('an agent runs on Gemini: background pass-through, GET follows it, the agent name is reported', async () => {
    const r = await ix.ai.interactions.create({ agent: AGENT, input: 'solid-state battery startups', background: true });
    expect(r.status).toBe('in_progress');
    expect(r.agent).toBe(AGENT);
    const done = await until(r.id, ['completed']);
    expect(done.output_text).toBe('[gemini-interactions] research report on: solid-state battery startups');
    expect(done.agent).toBe(AGENT);
    const sent = ix.mocks.gemini.requests.filter((q) => q.path === '/v1beta/interactions').at(-1)!.body as Record<string, unknown>;
    expect(sent).toMatchObject({ agent: AGENT, background: true });
    expect(sent.model).toBeUndefined();
  });

  it('an agent on another vendor is a 400; model and agent together is a 400', async () => {
    const a = await failure(ix.ai.interactions.create({ agent: 'openai-agent', input: 'x', background: true }));
    expect(a.status).toBe(400);
    expect(a.body.error.message).toContain('Agents run only on Gemini upstreams');
    const b = await rawError(await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'gemini', agent: AGENT, input: 'x' }));
    expect(b.error.code).toBe(400);
  });

  it("the key's model permissions apply to agents (403), unknown agents fail with Gemini's 404", async () => {
    const limited = ix.gw.client(IX_KEY_LIMITED);
    const forbidden = await failure(limited.interactions.create({ agent: AGENT, input: 'x', background: true }));
    expect(forbidden.status).toBe(403);
    expect(forbidden.body.error.status).toBe('PERMISSION_DENIED');
    // Agent names not declared as models go to the Gemini provider, which knows its agents.
    const unknown = await ix.ai.interactions.create({ agent: 'no-such-agent', input: 'x', background: true });
    const failed = await until(unknown.id, ['failed']);
    expect((failed as unknown as { errors: Array<{ code: string }> }).errors[0]?.code).toBe('NOT_FOUND');
  });
});

describe('errors in Gemini shape', () => {
  it('401 without a key or with a wrong one', async () => {
    const missing = await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'gpt', input: 'x' }, null);
    expect(missing.status).toBe(401);
    expect((await rawError(missing)).error).toMatchObject({ code: 401, status: 'UNAUTHENTICATED' });
    const wrong = await failure(ix.gw.client('mg-not-a-valid-key-999').interactions.create({ model: 'gpt', input: 'x' }));
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.status).toBe('UNAUTHENTICATED');
  });

  it('credentials by ?key= and by Bearer work too', async () => {
    const byQuery = await fetch(`${ix.gw.server.url}/v1beta/interactions?key=${IX_KEY_A}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt', input: 'q' }) });
    expect(byQuery.status).toBe(200);
    const byBearer = await fetch(`${ix.gw.server.url}/v1beta/interactions`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${IX_KEY_A}` }, body: JSON.stringify({ model: 'gpt', input: 'b' }) });
    expect(byBearer.status).toBe(200);
    expect(((await byBearer.json()) as { status: string }).status).toBe('completed');
  });

  it('403 for a model the key may not use', async () => {
    const { status, body } = await failure(ix.gw.client(IX_KEY_LIMITED).interactions.create({ model: 'gpt', input: 'x' }));
    expect(status).toBe(403);
    expect(body.error).toMatchObject({ code: 403, status: 'PERMISSION_DENIED' });
  });

  it("404 for an unknown model, an unknown interaction, and another key's interaction (GET, DELETE, cancel, previous_interaction_id)", async () => {
    expect((await failure(ix.ai.interactions.create({ model: 'no-such-model', input: 'x' }))).status).toBe(404);
    expect((await failure(ix.ai.interactions.get('v1_doesnotexist'))).status).toBe(404);
    const mine = await ix.ai.interactions.create({ model: 'gpt', input: 'mine', background: true });
    const other = ix.gw.client(IX_KEY_B);
    const get = await failure(other.interactions.get(mine.id));
    expect(get.status).toBe(404);
    expect(get.body.error.status).toBe('NOT_FOUND');
    expect((await failure(other.interactions.cancel(mine.id))).status).toBe(404);
    expect((await failure(other.interactions.delete(mine.id))).status).toBe(404);
    await until(mine.id, ['completed']);
    const cont = await failure(other.interactions.create({ model: 'gpt', input: 'go on', previous_interaction_id: mine.id }));
    expect(cont.status).toBe(404);
    expect((await ix.ai.interactions.get(mine.id)).status).toBe('completed');
  });

  it.each([
    { model: 'gpt', field: 'tools[0]', body: { tools: [{ type: 'google_search' }] }, says: 'google_search' },
    { model: 'claude', field: 'tools[0]', body: { tools: [{ type: 'code_execution' }] }, says: 'code_execution' },
    { model: 'mock', field: 'tools[1]', body: { tools: [WEATHER_TOOL, { type: 'url_context' }] }, says: 'url_context' },
    { model: 'gpt', field: 'response_modalities[0]', body: { response_modalities: ['image'] }, says: 'image' },
    { model: 'claude', field: 'safety_settings', body: { safety_settings: [{ category: 'HARM_CATEGORY_HARASSMENT', threshold: 'BLOCK_NONE' }] }, says: 'safety' },
    { model: 'gpt', field: 'generation_config.speech_config', body: { generation_config: { speech_config: { voice: 'Kore' } } }, says: 'speech_config' },
    { model: 'claude', field: 'generation_config.tool_choice', body: { tools: [WEATHER_TOOL], generation_config: { tool_choice: 'validated' } }, says: 'validated' },
    { model: 'gpt', field: 'response_format', body: { response_format: { type: 'image', mime_type: 'image/png' } }, says: 'image' },
    { model: 'gpt', field: 'generation_config.stop_sequences', body: { generation_config: { stop_sequences: ['a', 'b', 'c', 'd', 'e'] } }, says: 'stop sequences' },
  ])('400 naming $field for $model', async ({ model, field, body, says }) => {
    const res = await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model, input: 'x', ...body });
    expect(res.status).toBe(400);
    const err = await rawError(res);
    expect(err.error.status).toBe('INVALID_ARGUMENT');
    expect(err.error.message).toContain(field);
    expect(err.error.message).toContain(says);
  });

  it('the same built-in tool passes through to Gemini', async () => {
    const r = await ix.ai.interactions.create({ model: 'gemini', input: 'search this', tools: [{ type: 'google_search' }] });
    expect(r.status).toBe('completed');
    const sent = ix.mocks.gemini.requests.at(-1)!.body as { tools: unknown[] };
    expect(sent.tools).toEqual([{ type: 'google_search' }]);
  });

  it('400 for a function_result that answers no function_call, and for contents mixed with steps', async () => {
    const orphan = await rawError(
      await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'claude', input: [{ type: 'function_result', call_id: 'nope', result: 'x' }] }),
    );
    expect(orphan.error.code).toBe(400);
    expect(orphan.error.message).toContain("'nope'");
    const mixed = await rawError(
      await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'gemini', input: [{ type: 'text', text: 'a' }, { type: 'user_input', content: [] }] }),
    );
    expect(mixed.error.code).toBe(400);
    expect(mixed.error.message).toContain('input[1].type');
  });
});

describe('request details', () => {
  it('a JSON schema response_format reaches another vendor as its structured output; include_input shows the input', async () => {
    const schema = { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] };
    const r = await ix.ai.interactions.create({ model: 'gpt', input: 'json please', response_format: { type: 'text', mime_type: 'application/json', schema } });
    expect(r.status).toBe('completed');
    expect(r.response_format).toEqual({ type: 'text', mime_type: 'application/json', schema });
    const sent = ix.mocks.openai.requests.at(-1)!.body as { response_format: { type: string; json_schema: { schema: unknown } } };
    expect(sent.response_format.type).toBe('json_schema');
    expect(sent.response_format.json_schema.schema).toEqual(schema);
    const withInput = await ix.ai.interactions.get(r.id, { include_input: true });
    expect(withInput.input).toEqual([{ type: 'user_input', content: [{ type: 'text', text: 'json please' }] }]);
    expect((await ix.ai.interactions.get(r.id)).input).toBeUndefined();
  });

  it('generation settings reach another vendor in its own terms', async () => {
    await ix.ai.interactions.create({
      model: 'claude',
      input: 'settings',
      system_instruction: 'be terse',
      generation_config: { temperature: 0.5, top_p: 0.9, max_output_tokens: 300, stop_sequences: ['END'] },
    });
    expect(ix.mocks.anthropic.requests.at(-1)!.body).toMatchObject({ system: 'be terse', temperature: 0.5, top_p: 0.9, max_tokens: 300, stop_sequences: ['END'] });
  });

  it('a setting the vendor has no field for is reported in the request terms (header and body), not dropped silently', async () => {
    const res = await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'claude', input: 'seeded', generation_config: { seed: 7 } });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-modelgate-warnings')).toContain('generation_config.seed: dropped');
    const body = (await res.json()) as { warnings?: Array<{ setting: string }> };
    expect(body.warnings?.map((w) => w.setting)).toEqual(['generation_config.seed']);
  });
});

describe('failures in the middle of a stream', () => {
  it('Gemini pass-through: the upstream error event is relayed; the interaction is stored as failed', async () => {
    ix.mocks.gemini.interactions.failNext('upstream exploded');
    const events = await collect(await ix.ai.interactions.create({ model: 'gemini', input: 'fail please', stream: true }));
    const last = events.at(-1) as Interactions.ErrorEvent;
    expect(last.event_type).toBe('error');
    expect(last.error?.message).toBe('upstream exploded');
    const id = (events[0] as Interactions.InteractionCreatedEvent).interaction.id;
    const stored = await ix.ai.interactions.get(id);
    expect(stored.status).toBe('failed');
    expect(stored.errors?.[0]?.message).toBe('upstream exploded');
  });

  it('translated: a broken upstream stream ends with the protocol error event (no upstream key in it)', async () => {
    ix.mocks.openai.breakStreamNext();
    const events = await collect(await ix.ai.interactions.create({ model: 'gpt', input: 'break please', stream: true }));
    const last = events.at(-1) as Interactions.ErrorEvent;
    expect(last.event_type).toBe('error');
    expect(last.error?.code).toBe('UNAVAILABLE');
    expect(JSON.stringify(events)).not.toContain(ix.mocks.openai.apiKey);
    const id = (events[0] as Interactions.InteractionCreatedEvent).interaction.id;
    expect((await ix.ai.interactions.get(id)).status).toBe('failed');
  });

  it('an upstream error before the stream starts is an HTTP error in Gemini shape', async () => {
    ix.mocks.openai.failNext(400, { error: { message: 'bad things', type: 'invalid_request_error', param: null, code: null } });
    const { status, body } = await failure(ix.ai.interactions.create({ model: 'gpt', input: 'x', stream: true }));
    expect(status).toBe(400);
    expect(body.error.message).toContain('bad things');
  });
});
