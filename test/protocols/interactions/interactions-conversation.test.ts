/**
 * Interactions conversations through the @google/genai SDK: `previous_interaction_id` continues a
 * conversation whichever vendor the next turn names (the gateway rebuilds the history for each
 * upstream, or sends Gemini its own interaction id when Gemini answered the previous turn), tool
 * calls answered on another vendor, thinking signatures that travel with the history (Gemini's
 * thoughts replay to Gemini, Anthropic's to Anthropic, neither to the other), and stateless
 * clients that send the whole conversation as steps.
 */
import type { Interactions } from '@google/genai';
import { describe, expect, it } from 'vitest';
import { mockTokens } from '../../../src/providers/mock/chat.js';
import { mockSignature } from '../../helpers/mock-anthropic-validate.js';
import type { RecordedRequest } from '../../helpers/mock-vendor-base.js';
import { IX_KEY_A, rawCall, useInteractionsGateway, WEATHER_TOOL } from '../../helpers/interactions-gateway.js';

type Json = Record<string, unknown>;

const ix = useInteractionsGateway();

function lastBody(reqs: RecordedRequest[], path?: string): Json {
  const r = path ? reqs.filter((q) => q.path === path).at(-1) : reqs.at(-1);
  return r!.body as Json;
}

function thoughtOf(steps: Interactions.Step[] | undefined): Interactions.ThoughtStep | undefined {
  return (steps ?? []).find((s): s is Interactions.ThoughtStep => s.type === 'thought');
}

describe('previous_interaction_id across vendors', () => {
  it('switches vendor at every turn; each upstream gets the whole conversation', async () => {
    const t1 = await ix.ai.interactions.create({ model: 'gemini', input: 'my name is Ada' });
    expect(t1.output_text).toBe('[gemini-interactions] turn 1, you said: my name is Ada');

    const t2 = await ix.ai.interactions.create({ model: 'gpt', input: 'what is my name?', previous_interaction_id: t1.id });
    expect(t2.output_text).toBe('[openai] you said: what is my name?');
    expect(t2.previous_interaction_id).toBe(t1.id);
    expect((lastBody(ix.mocks.openai.requests).messages as Json[]).map((m) => [m.role, m.content])).toEqual([
      ['user', 'my name is Ada'],
      ['assistant', '[gemini-interactions] turn 1, you said: my name is Ada'],
      ['user', 'what is my name?'],
    ]);

    const t3 = await ix.ai.interactions.create({ model: 'claude', input: 'and my age?', previous_interaction_id: t2.id });
    expect(t3.output_text).toBe('[anthropic] you said: and my age?');
    expect((lastBody(ix.mocks.anthropic.requests).messages as Json[]).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);

    // Gemini did not answer the previous turn: it gets the conversation as steps, no previous id.
    const t4 = await ix.ai.interactions.create({ model: 'gemini', input: 'summarize', previous_interaction_id: t3.id });
    expect(t4.output_text).toBe('[gemini-interactions] turn 4, you said: summarize');
    const sent4 = lastBody(ix.mocks.gemini.requests, '/v1beta/interactions');
    expect(sent4.previous_interaction_id).toBeUndefined();
    expect((sent4.input as Json[]).map((s) => s.type)).toEqual(['user_input', 'model_output', 'user_input', 'model_output', 'user_input', 'model_output', 'user_input']);

    // Gemini answered the previous turn: it continues its own stored interaction.
    const t5 = await ix.ai.interactions.create({ model: 'gemini', input: 'once more', previous_interaction_id: t4.id });
    expect(t5.output_text).toBe('[gemini-interactions] turn 5, you said: once more');
    const sent5 = lastBody(ix.mocks.gemini.requests, '/v1beta/interactions');
    expect(sent5.previous_interaction_id).toMatch(/^v1_mock/);
    expect(sent5.previous_interaction_id).not.toBe(t4.id);
    expect(sent5.input).toBe('once more');
    expect(t5.previous_interaction_id).toBe(t4.id);

    const t6 = await ix.ai.interactions.create({ model: 'mock', input: 'still there?', previous_interaction_id: t5.id });
    const said = [t1, t2, t3, t4, t5].flatMap((t, i) => [['my name is Ada', 'what is my name?', 'and my age?', 'summarize', 'once more'][i]!, t.output_text!]);
    const prompt = [...said, 'still there?'].reduce((n, text) => n + mockTokens(text) + 3, 0);
    expect(t6.usage?.total_input_tokens).toBe(prompt);

    const t7 = await ix.ai.interactions.create({ model: 'gpt-pro', input: 'last one', previous_interaction_id: t6.id });
    expect(t7.output_text).toBe('[responses] you said: last one');
    const items = lastBody(ix.mocks.responses.requests).input as Json[];
    expect(items.filter((i) => i.role === 'user')).toHaveLength(7);

    const got = await ix.ai.interactions.get(t7.id);
    expect(got.previous_interaction_id).toBe(t6.id);
  });

  it('a function call made by one vendor is answered on another', async () => {
    const call = await ix.ai.interactions.create({ model: 'claude', input: 'weather in Paris?', tools: [WEATHER_TOOL] });
    expect(call.status).toBe('requires_action');
    const fc = call.steps.find((s): s is Interactions.FunctionCallStep => s.type === 'function_call')!;
    const answered = await ix.ai.interactions.create({
      model: 'gemini',
      previous_interaction_id: call.id,
      tools: [WEATHER_TOOL],
      input: [{ type: 'function_result', call_id: fc.id, name: 'get_weather', result: 'rainy' }],
    });
    expect(answered.output_text).toBe('[gemini-interactions] tool results: rainy');
    const steps = lastBody(ix.mocks.gemini.requests, '/v1beta/interactions').input as Json[];
    expect(steps.map((s) => s.type)).toEqual(['user_input', 'function_call', 'function_result']);
    expect(steps[1]).toMatchObject({ id: fc.id, name: 'get_weather' });

    const gcall = await ix.ai.interactions.create({ model: 'gemini', input: 'weather in Oslo?', tools: [WEATHER_TOOL] });
    const gfc = gcall.steps.find((s): s is Interactions.FunctionCallStep => s.type === 'function_call')!;
    const ganswered = await ix.ai.interactions.create({
      model: 'gpt',
      previous_interaction_id: gcall.id,
      tools: [WEATHER_TOOL],
      input: [{ type: 'function_result', call_id: gfc.id, result: [{ type: 'text', text: 'snow' }] }],
    });
    expect(ganswered.output_text).toBe('[openai] tool results: snow');
    const messages = lastBody(ix.mocks.openai.requests).messages as Json[];
    expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
    expect(messages[2]).toMatchObject({ tool_call_id: gfc.id });
  });

  it("an id of another API (a Responses response) is not an interaction: 404", async () => {
    const res = await fetch(`${ix.gw.server.url}/v1/responses`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${IX_KEY_A}` }, body: JSON.stringify({ model: 'claude', input: 'hi' }) });
    const { id } = (await res.json()) as { id: string };
    expect(id).toMatch(/^resp_/);
    const cont = await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'gpt', input: 'x', previous_interaction_id: id });
    expect(cont.status).toBe(404);
    expect((await rawCall(ix.gw.server.url, 'GET', `/v1beta/interactions/${id}`)).status).toBe(404);
  });

  it("Gemini's own tool steps continue on Gemini only; another vendor is a 400 naming previous_interaction_id", async () => {
    const withSearch = await ix.ai.interactions.create({
      model: 'gemini',
      input: [
        { type: 'user_input', content: [{ type: 'text', text: 'news?' }] },
        { type: 'google_search_call', id: 'gs_1', arguments: { queries: ['news'] } } as unknown as Interactions.Step,
        { type: 'google_search_result', call_id: 'gs_1', result: [] } as unknown as Interactions.Step,
        { type: 'user_input', content: [{ type: 'text', text: 'and today?' }] },
      ],
    });
    expect(withSearch.status).toBe('completed');
    const other = await rawCall(ix.gw.server.url, 'POST', '/v1beta/interactions', { model: 'gpt', input: 'x', previous_interaction_id: withSearch.id });
    expect(other.status).toBe(400);
    const err = (await other.json()) as { error: { message: string } };
    expect(err.error.message).toContain('previous_interaction_id');
    expect(err.error.message).toContain('google_search_call');
    const same = await ix.ai.interactions.create({ model: 'gemini', input: 'go on', previous_interaction_id: withSearch.id });
    expect(same.status).toBe('completed');
  });
});

describe('thinking signatures travel with the conversation', () => {
  it("Anthropic's signed thinking replays to Anthropic, never to Gemini", async () => {
    const t1 = await ix.ai.interactions.create({ model: 'claude', input: 'think first', generation_config: { thinking_level: 'low', thinking_summaries: 'auto' } });
    const thought = thoughtOf(t1.steps)!;
    expect(thought.summary).toEqual([{ type: 'text', text: 'Let me think about this.' }]);
    expect(thought.signature).toMatch(/^mg1\./);

    // The strict Gemini mock rejects any signature it did not issue: the gateway leaves this one out.
    const t2 = await ix.ai.interactions.create({ model: 'gemini', input: 'your turn', previous_interaction_id: t1.id });
    expect(t2.status).toBe('completed');
    const toGemini = lastBody(ix.mocks.gemini.requests, '/v1beta/interactions').input as Json[];
    expect(toGemini.some((s) => s.type === 'thought')).toBe(false);

    const t3 = await ix.ai.interactions.create({ model: 'claude', input: 'back to you', previous_interaction_id: t2.id, generation_config: { thinking_level: 'low' } });
    expect(t3.status).toBe('completed');
    const first = (lastBody(ix.mocks.anthropic.requests).messages as Json[])[1] as { content: Json[] };
    expect(first.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') });
  });

  it('thinking_summaries none hides the summary; the signature still replays the thinking to Anthropic', async () => {
    const t1 = await ix.ai.interactions.create({ model: 'claude', input: 'quietly', generation_config: { thinking_level: 'low', thinking_summaries: 'none' } });
    const thought = thoughtOf(t1.steps)!;
    expect(thought.summary).toBeUndefined();
    expect(thought.signature).toMatch(/^mg1\./);
    await ix.ai.interactions.create({ model: 'claude', input: 'go on', previous_interaction_id: t1.id, generation_config: { thinking_level: 'low' } });
    const first = (lastBody(ix.mocks.anthropic.requests).messages as Array<{ content: Json[] }>)[1]!.content[0];
    expect(first).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') });
  });

  it("Gemini's thought signatures replay to Gemini after turns on other vendors", async () => {
    const t1 = await ix.ai.interactions.create({ model: 'gemini', input: 'ponder', generation_config: { thinking_level: 'high', thinking_summaries: 'auto' } });
    const thought = thoughtOf(t1.steps)!;
    expect(thought.signature).toMatch(/^mockthought:/);
    expect(t1.usage?.total_thought_tokens).toBe(3);
    const t2 = await ix.ai.interactions.create({ model: 'gpt', input: 'and you?', previous_interaction_id: t1.id });
    // OpenAI chat models never get earlier reasoning.
    expect((lastBody(ix.mocks.openai.requests).messages as Json[]).map((m) => m.role)).toEqual(['user', 'assistant', 'user']);
    const t3 = await ix.ai.interactions.create({ model: 'gemini', input: 'back', previous_interaction_id: t2.id });
    expect(t3.output_text).toBe('[gemini-interactions] turn 3, you said: back');
    const steps = lastBody(ix.mocks.gemini.requests, '/v1beta/interactions').input as Json[];
    expect(steps[1]).toEqual({ type: 'thought', signature: thought.signature, summary: thought.summary });
  });

  it('a stateless client resends the steps: Anthropic gets its thinking back, Gemini does not get it', async () => {
    const t1 = await ix.ai.interactions.create({ model: 'claude', input: 'hi', store: false, generation_config: { thinking_level: 'low' } });
    const steps = [{ type: 'user_input', content: [{ type: 'text', text: 'hi' }] }, ...t1.steps, { type: 'user_input', content: [{ type: 'text', text: 'again' }] }] as Interactions.Step[];
    const claude = await ix.ai.interactions.create({ model: 'claude', input: steps, store: false, generation_config: { thinking_level: 'low' } });
    expect(claude.output_text).toBe('[anthropic] you said: again');
    const replayed = (lastBody(ix.mocks.anthropic.requests).messages as Array<{ content: Json[] }>)[1]!.content[0];
    expect(replayed).toMatchObject({ type: 'thinking', signature: mockSignature('Let me think about this.') });
    const gemini = await ix.ai.interactions.create({ model: 'gemini', input: steps, store: false });
    expect(gemini.output_text).toBe('[gemini-interactions] turn 2, you said: again');
    expect((lastBody(ix.mocks.gemini.requests, '/v1beta/interactions').input as Json[]).map((s) => s.type)).toEqual(['user_input', 'model_output', 'user_input']);
  });
});
