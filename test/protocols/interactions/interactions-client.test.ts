/**
 * The official @google/genai SDK's `interactions` client against POST /v1beta/interactions on every
 * upstream: Gemini (pass-through to its Interactions API), OpenAI Chat Completions, Anthropic, an
 * OpenAI Responses-only model and the built-in mock (translated through the IR). Create with a
 * string and with a content list (image + PDF), stream (event ids, replay and resume through GET),
 * a function-call round trip, a token cut-off, usage as the upstream reported it, delete.
 */
import type { Interactions } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { mockTokens } from '../../../src/providers/mock/chat.js';
import { collect, PDF, PNG, rawCall, useInteractionsGateway, WEATHER_TOOL } from '../../helpers/interactions-gateway.js';

const ix = useInteractionsGateway();

type Event = Interactions.InteractionSSEEvent;
type Step = Interactions.Step;

interface Vendor {
  name: string;
  model: string;
  /** The concrete model the upstream reports answering with (the answer's `model`, never the alias). */
  concrete: string;
  /** The upstream's answer to "you said: <text>" (without media markers). */
  said: (text: string) => string;
  toolResults: (text: string) => string;
  /** Usage the upstream reports for a one-message prompt (with the system text, if any) answered with `words` words. */
  usage: (words: number, prompt: string[]) => Record<string, number>;
  /** More usage fields a sync answer reports. */
  syncUsage?: Record<string, number>;
  /** Whether the model thinks on its own (the answer starts with a thought step). */
  thinks?: boolean;
  /** What the upstream marks for an image and a PDF in the prompt. */
  media: string;
}

const VENDORS: Vendor[] = [
  {
    name: 'gemini (pass-through)',
    model: 'gemini',
    concrete: 'gemini-2.5-flash',
    said: (t) => `[gemini-interactions] turn 1, you said: ${t}`,
    toolResults: (t) => `[gemini-interactions] tool results: ${t}`,
    usage: (w) => ({ total_input_tokens: 10, total_output_tokens: w, total_tokens: 10 + w }),
    media: ' [image] [pdf]',
  },
  {
    name: 'openai',
    model: 'gpt',
    concrete: 'gpt-4o-2024-08-06',
    said: (t) => `[openai] you said: ${t}`,
    toolResults: (t) => `[openai] tool results: ${t}`,
    usage: (w) => ({ total_input_tokens: 10, total_output_tokens: w, total_tokens: 10 + w }),
    syncUsage: { total_thought_tokens: 0, total_cached_tokens: 0 },
    media: ' [image] [pdf]',
  },
  {
    name: 'anthropic',
    model: 'claude',
    concrete: 'claude-sonnet-4-5',
    said: (t) => `[anthropic] you said: ${t}`,
    toolResults: (t) => `[anthropic] tool results: ${t}`,
    usage: (w) => ({ total_input_tokens: 10, total_output_tokens: w, total_cached_tokens: 0, total_tokens: 10 + w }),
    media: ' [image] [pdf]',
  },
  {
    name: 'openai responses-only model',
    model: 'gpt-pro',
    concrete: 'gpt-5-pro-2025-08-07',
    said: (t) => `[responses] you said: ${t}`,
    toolResults: (t) => `[responses] tool results: ${t}`,
    // A reasoning model: its reasoning item comes back as a thought step, its tokens as thought tokens.
    usage: (w) => ({ total_input_tokens: 10, total_output_tokens: w, total_thought_tokens: 8, total_tokens: 18 + w }),
    thinks: true,
    media: ' [image] [pdf]',
  },
  {
    name: 'built-in mock',
    model: 'mock',
    concrete: 'mock-chat',
    said: (t) => `This is a mock response to: ${t}`,
    toolResults: (t) => `Tool results received: ${t}.`,
    usage: (w, prompt) => {
      const input = prompt.reduce((n, t) => n + mockTokens(t) + 3, 0);
      return { total_input_tokens: input, total_output_tokens: w, total_tokens: input + w };
    },
    media: ' [image] [file]',
  },
];

function words(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

function textOf(steps: Step[] | undefined): string {
  return (steps ?? [])
    .filter((s): s is Interactions.ModelOutputStep => s.type === 'model_output')
    .flatMap((s) => s.content ?? [])
    .map((c) => (c.type === 'text' ? c.text : ''))
    .join('');
}

/** The text a stream carried: step.start contents plus text deltas. */
function streamedText(events: Event[]): string {
  let text = '';
  for (const ev of events) {
    if (ev.event_type === 'step.start' && ev.step.type === 'model_output') text += (ev.step.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
    if (ev.event_type === 'step.delta' && ev.delta.type === 'text') text += ev.delta.text;
  }
  return text;
}

describe.each(VENDORS)('$name', (v) => {
  it('create with a string input: output steps, status, usage as the upstream reported, model and ids', async () => {
    const r = await ix.ai.interactions.create({ model: v.model, input: 'hello there', system_instruction: 'be brief' });
    const expected = v.said('hello there');
    expect(r.status).toBe('completed');
    expect(r.id).toMatch(/^v1_/);
    // The concrete model version that answered, never the caller's alias (here, the alias differs from it).
    expect(r.model).not.toBe(v.model);
    expect(r.model).toBe(v.concrete);
    const output = { type: 'model_output', content: [{ type: 'text', text: expected }] };
    if (v.thinks) {
      expect(r.steps).toEqual([{ type: 'thought', signature: expect.stringMatching(/^mg1\./) }, output]);
    } else expect(r.steps).toEqual([output]);
    expect(r.output_text).toBe(expected);
    expect(r.usage).toMatchObject({ ...v.usage(words(expected), ['hello there', 'be brief']), ...v.syncUsage });
    expect((r as unknown as { traceId: string }).traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(r.created).toBeDefined();
    expect(r.updated).toBeDefined();

    const got = await ix.ai.interactions.get(r.id);
    expect(got.id).toBe(r.id);
    expect(got.model).toBe(v.concrete);
    expect(got.status).toBe('completed');
    expect(got.steps).toEqual([{ type: 'user_input', content: [{ type: 'text', text: 'hello there' }] }, ...(r.steps ?? [])]);
    expect(got.output_text).toBe(expected);
    // The SDK adds initial_input_tokens on create (automatic continuation bookkeeping).
    expect(r.usage).toMatchObject(got.usage ?? {});
  });

  it('create with a content list holding an image and a PDF', async () => {
    const r = await ix.ai.interactions.create({
      model: v.model,
      input: [
        { type: 'text', text: 'describe these' },
        { type: 'image', data: PNG, mime_type: 'image/png' },
        { type: 'document', data: PDF, mime_type: 'application/pdf' },
      ],
    });
    expect(r.status).toBe('completed');
    expect(r.output_text).toBe(`${v.said('describe these')}${v.media}`);
  });

  it('stream: created, step events with event ids, completed with usage, [DONE]; GET replays and resumes after last_event_id', async () => {
    const stream = await ix.ai.interactions.create({ model: v.model, input: 'stream me please', stream: true });
    const events = await collect(stream);
    const types = events.map((e) => e.event_type);
    expect(types[0]).toBe('interaction.created');
    expect(types.at(-1)).toBe('interaction.completed');
    expect(types).toContain('step.start');
    expect(types).toContain('step.stop');
    expect(types.filter((t) => t === 'step.delta').length).toBeGreaterThanOrEqual(1);
    const ids = events.map((e) => e.event_id);
    expect(ids.every((id) => typeof id === 'string' && id.length > 0)).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    const expected = v.said('stream me please');
    expect(streamedText(events)).toBe(expected);
    const created = events[0] as Interactions.InteractionCreatedEvent;
    const completed = events.at(-1) as Interactions.InteractionCompletedEvent;
    expect(created.interaction.status).toBe('in_progress');
    expect(created.interaction.model).toBe(v.concrete);
    expect(completed.interaction.model).toBe(v.concrete);
    expect(completed.interaction.id).toBe(created.interaction.id);
    expect(completed.interaction.status).toBe('completed');
    expect(completed.interaction.usage).toMatchObject(v.usage(words(expected), ['stream me please']));

    const id = created.interaction.id;
    const got = await ix.ai.interactions.get(id);
    expect(got.output_text).toBe(expected);
    const replay = await collect(await ix.ai.interactions.get(id, { stream: true }));
    expect(replay).toEqual(events);
    const cut = 2;
    const resumed = await collect(await ix.ai.interactions.get(id, { stream: true, last_event_id: events[cut]!.event_id as string }));
    expect(resumed).toEqual(events.slice(cut + 1));
  });

  it('a function call round trip: requires_action -> function_result -> completed', async () => {
    const first = await ix.ai.interactions.create({ model: v.model, input: 'weather in Paris?', tools: [WEATHER_TOOL] });
    expect(first.status).toBe('requires_action');
    const calls = (first.steps ?? []).filter((s): s is Interactions.FunctionCallStep => s.type === 'function_call');
    expect(calls).toHaveLength(1);
    expect(calls[0]!.name).toBe('get_weather');
    expect(typeof calls[0]!.arguments.city).toBe('string');
    expect(calls[0]!.id).toBeTruthy();

    const second = await ix.ai.interactions.create({
      model: v.model,
      previous_interaction_id: first.id,
      tools: [WEATHER_TOOL],
      input: [{ type: 'function_result', call_id: calls[0]!.id, name: 'get_weather', result: [{ type: 'text', text: 'sunny, 21C' }] }],
    });
    expect(second.status).toBe('completed');
    expect(second.previous_interaction_id).toBe(first.id);
    expect(second.output_text).toBe(v.toolResults('sunny, 21C'));
  });

  it('a function call round trip while streaming: the call arguments arrive as arguments_delta', async () => {
    const events = await collect(await ix.ai.interactions.create({ model: v.model, input: 'weather in Rome?', tools: [WEATHER_TOOL], stream: true }));
    const start = events.find((e): e is Interactions.StepStart => e.event_type === 'step.start' && e.step.type === 'function_call');
    expect(start).toBeDefined();
    const args = events
      .filter((e): e is Interactions.StepDelta => e.event_type === 'step.delta' && e.index === start!.index && e.delta.type === 'arguments_delta')
      .map((e) => (e.delta as { arguments?: string }).arguments ?? '')
      .join('');
    expect(JSON.parse(args)).toHaveProperty('city');
    const completed = events.at(-1) as Interactions.InteractionCompletedEvent;
    expect(completed.interaction.status).toBe('requires_action');
    const stored = await ix.ai.interactions.get(completed.interaction.id);
    const call = stored.steps.find((s): s is Interactions.FunctionCallStep => s.type === 'function_call');
    expect(call?.arguments).toEqual(JSON.parse(args));
  });

  it('a token cut-off is status incomplete', async () => {
    // 16: the least a Responses-only model takes; every upstream's answer here is longer.
    const input = 'tell me a very long story about dragons and knights and castles and rivers and the sea';
    const r = await ix.ai.interactions.create({ model: v.model, input, generation_config: { max_output_tokens: 16 } });
    expect(r.status).toBe('incomplete');
    expect(words(r.output_text ?? '')).toBeLessThanOrEqual(16);
    expect(r.output_text).toBeTruthy();
  });

  it('delete: the interaction is gone afterwards (404 in Gemini shape)', async () => {
    const r = await ix.ai.interactions.create({ model: v.model, input: 'forget me' });
    await ix.ai.interactions.delete(r.id);
    const res = await rawCall(ix.gw.server.url, 'GET', `/v1beta/interactions/${r.id}`);
    expect(res.status).toBe(404);
    const body = (await res.json()) as { error: { code: number; status: string; message: string } };
    expect(body.error).toMatchObject({ code: 404, status: 'NOT_FOUND' });
    expect(body.error.message).toContain(r.id);
  });

  it('store: false is answered but not kept', async () => {
    const r = await ix.ai.interactions.create({ model: v.model, input: 'ephemeral', store: false });
    expect(r.status).toBe('completed');
    const res = await rawCall(ix.gw.server.url, 'GET', `/v1beta/interactions/${r.id}`);
    expect(res.status).toBe(404);
  });
});
