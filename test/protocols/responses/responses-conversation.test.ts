/**
 * Stored conversations through the `openai` SDK: a `previous_response_id` chain that switches
 * vendor at every turn (each upstream receives the whole history in its own protocol; back on the
 * same OpenAI upstream the upstream's own response id is used), tool calls across vendors, thinking
 * replayed with its signature (stored and stateless), Gemini thought signatures, and what another
 * vendor's reasoning must never reach.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mockSignature } from '../../helpers/mock-anthropic-validate.js';
import { signatureFor } from '../../helpers/mock-gemini-reply.js';
import { startResponsesBed, WEATHER_TOOLS, type ResponsesBed } from '../../helpers/responses-gateway.js';

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

const lastBody = (m: { requests: Array<{ body: unknown; path: string }> }, path?: string): Json =>
  [...m.requests].reverse().find((r) => path === undefined || r.path.endsWith(path))?.body as Json;

const calls = (r: OpenAI.Responses.Response) => r.output.filter((o): o is OpenAI.Responses.ResponseFunctionToolCall => o.type === 'function_call');

describe('a conversation that switches vendor at every turn', () => {
  it('gives each upstream the whole history in its own protocol, and the OpenAI upstream its own id when it answered last', async () => {
    const t1 = await client.responses.create({ model: 'gpt-4.1', input: 'my name is Ada' });
    expect(t1.output_text).toBe('[responses] you said: my name is Ada');

    const t2 = await client.responses.create({ model: 'claude', previous_response_id: t1.id, instructions: 'Be kind.', input: 'what is my name?' });
    expect(t2.output_text).toBe('[anthropic] you said: what is my name?');
    const toClaude = lastBody(bed.mocks.anthropic);
    expect(toClaude.system).toBe('Be kind.');
    expect(toClaude.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'my name is Ada' }] },
      { role: 'assistant', content: [{ type: 'text', text: '[responses] you said: my name is Ada' }] },
      { role: 'user', content: [{ type: 'text', text: 'what is my name?' }] },
    ]);
    // Input tokens as Anthropic counted them: three messages.
    expect(t2.usage?.input_tokens).toBe(30);

    const t3 = await client.responses.create({ model: 'gemini', previous_response_id: t2.id, input: 'and again?' });
    expect(t3.output_text).toBe('[gemini] you said: and again?');
    const toGemini = lastBody(bed.mocks.gemini);
    // Instructions are not inherited.
    expect(toGemini.systemInstruction).toBeUndefined();
    expect((toGemini.contents as Json[]).map((c) => [c.role, (c.parts as Json[]).map((p) => p.text).join('')])).toEqual([
      ['user', 'my name is Ada'],
      ['model', '[responses] you said: my name is Ada'],
      ['user', 'what is my name?'],
      ['model', '[anthropic] you said: what is my name?'],
      ['user', 'and again?'],
    ]);

    const t4 = await client.responses.create({ model: 'compat', previous_response_id: t3.id, input: 'fourth' });
    expect(t4.output_text).toBe('[openai] you said: fourth');
    expect((lastBody(bed.mocks.chat).messages as Json[]).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user', 'assistant', 'user']);

    const t5 = await client.responses.create({ model: 'mock', previous_response_id: t4.id, input: 'fifth' });
    expect(t5.output_text).toBe('This is a mock response to: fifth');

    // Back to OpenAI: it never saw turns 2-5, so the gateway sends the history as input items.
    const t6 = await client.responses.create({ model: 'gpt-4.1', previous_response_id: t5.id, input: 'sixth' });
    expect(t6.previous_response_id).toBe(t5.id);
    const toOpenAI = lastBody(bed.mocks.responses, '/responses');
    expect(toOpenAI.previous_response_id).toBeUndefined();
    const items = toOpenAI.input as Json[];
    expect(items.map((i) => i.role)).toEqual([...Array.from({ length: 5 }, () => ['user', 'assistant']).flat(), 'user']);
    expect(items[3]).toMatchObject({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: '[anthropic] you said: what is my name?' }] });
    expect(items.every((i) => i.id === undefined)).toBe(true);
    expect(items.at(-1)).toEqual({ role: 'user', content: 'sixth' });
    expect(t6.output_text).toBe('[responses] you said: sixth');

    // OpenAI answered t6: t7 goes there with OpenAI's own id and only the new input.
    const t7 = await client.responses.create({ model: 'gpt-4.1', previous_response_id: t6.id, input: 'seventh' });
    const chained = lastBody(bed.mocks.responses, '/responses');
    const upstreamT6 = [...bed.mocks.responses.stored.entries()].find(([, s]) => (s.final.output as Json[]).some((o) => JSON.stringify(o).includes('you said: sixth')))?.[0];
    expect(upstreamT6).toMatch(/^resp_/);
    expect(upstreamT6).not.toBe(t6.id);
    expect(chained.previous_response_id).toBe(upstreamT6);
    expect(chained.input).toBe('seventh');
    // Usage exactly as OpenAI reported it, cached tokens included.
    const reported = [...bed.mocks.responses.stored.values()].find((s) => JSON.stringify(s.final.output).includes('you said: seventh'))?.final.usage;
    expect(t7.usage).toEqual(reported);
    expect(t7.usage?.input_tokens_details.cached_tokens).toBeGreaterThan(0);
  });

  it('carries tool calls across vendors: Anthropic calls, Gemini answers the results, OpenAI continues', async () => {
    const t1 = await client.responses.create({ model: 'claude', input: 'weather in Paris', tools: WEATHER_TOOLS });
    const ids = calls(t1).map((c) => c.call_id);
    expect(ids).toEqual(['toolu_1', 'toolu_2']);
    const t2 = await client.responses.create({
      model: 'gemini',
      previous_response_id: t1.id,
      tools: WEATHER_TOOLS,
      input: ids.map((call_id, i) => ({ type: 'function_call_output' as const, call_id, output: i === 0 ? '18C' : 'noon' })),
    });
    expect(t2.output_text).toBe('[gemini] tool results: 18C; noon');
    const contents = lastBody(bed.mocks.gemini).contents as Json[];
    expect(contents[1]?.parts).toEqual([
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: 'skip_thought_signature_validator' },
      { functionCall: { name: 'get_time', args: { utc: true } } },
    ]);
    expect(contents[2]?.parts).toEqual([
      { functionResponse: { name: 'get_weather', response: { result: '18C' } } },
      { functionResponse: { name: 'get_time', response: { result: 'noon' } } },
    ]);
    const t3 = await client.responses.create({ model: 'gpt-4.1', previous_response_id: t2.id, tools: WEATHER_TOOLS, tool_choice: 'none', input: 'thanks' });
    expect(t3.output_text).toBe('[responses] you said: thanks');
    const types = (lastBody(bed.mocks.responses, '/responses').input as Json[]).map((i) => i.type ?? 'message');
    expect(types).toEqual(['message', 'function_call', 'function_call', 'function_call_output', 'function_call_output', 'message', 'message']);
  });
});

describe('reasoning', () => {
  it('replays Anthropic thinking with its signature across a tool round trip (stored conversation)', async () => {
    const t1 = await client.responses.create({ model: 'claude', input: 'weather in Paris', tools: WEATHER_TOOLS, reasoning: { effort: 'low' } });
    const reasoning = t1.output[0] as OpenAI.Responses.ResponseReasoningItem;
    expect(reasoning).toMatchObject({ type: 'reasoning', summary: [{ type: 'summary_text', text: 'Let me think about this.' }] });
    expect(reasoning.encrypted_content).toMatch(/^mg1\./);
    await client.responses.create({
      model: 'claude',
      previous_response_id: t1.id,
      tools: WEATHER_TOOLS,
      reasoning: { effort: 'low' },
      input: calls(t1).map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: 'ok' })),
    });
    const body = lastBody(bed.mocks.anthropic);
    expect(body.thinking).toEqual({ type: 'enabled', budget_tokens: 2048 });
    const assistant = (body.messages as Json[])[1] as { content: Json[] };
    expect(assistant.content[0]).toEqual({ type: 'thinking', thinking: 'Let me think about this.', signature: mockSignature('Let me think about this.') });
  });

  it('replays it statelessly too (store: false, reasoning items sent back with encrypted_content, as Codex does)', async () => {
    const t1 = await client.responses.create({ model: 'claude', store: false, include: ['reasoning.encrypted_content'], input: 'weather in Paris', tools: WEATHER_TOOLS, reasoning: { effort: 'low' } });
    await expect(client.responses.retrieve(t1.id)).rejects.toMatchObject({ status: 404 });
    const replay = t1.output.map(({ id: _id, ...item }) => item) as OpenAI.Responses.ResponseInputItem[];
    const t2 = await client.responses.create({
      model: 'claude',
      store: false,
      tools: WEATHER_TOOLS,
      reasoning: { effort: 'low' },
      input: [{ role: 'user', content: 'weather in Paris' }, ...replay, ...calls(t1).map((c) => ({ type: 'function_call_output' as const, call_id: c.call_id, output: 'fine' }))],
    });
    expect(t2.output_text).toBe('[anthropic] tool results: fine; fine');
    const assistant = (lastBody(bed.mocks.anthropic).messages as Json[])[1] as { content: Json[] };
    expect(assistant.content.map((b) => b.type)).toEqual(['thinking', 'tool_use', 'tool_use']);
  });

  it("carries Gemini's thought signature in the call id, so a stateless next turn replays it", async () => {
    const t1 = await client.responses.create({ model: 'gemini', store: false, input: 'weather in Paris', tools: WEATHER_TOOLS, reasoning: { effort: 'low' } });
    const [first, second] = calls(t1);
    expect(first?.call_id).toContain('__thought__');
    await client.responses.create({
      model: 'gemini',
      store: false,
      tools: WEATHER_TOOLS,
      input: [
        { role: 'user', content: 'weather in Paris' },
        ...calls(t1).map(({ id: _id, ...c }) => c),
        { type: 'function_call_output', call_id: first?.call_id as string, output: '18C' },
        { type: 'function_call_output', call_id: second?.call_id as string, output: 'noon' },
      ],
    });
    const model = (lastBody(bed.mocks.gemini).contents as Json[])[1] as { parts: Json[] };
    expect(model.parts[0]?.thoughtSignature).toBe(signatureFor('get_weather'));
  });

  it("never sends one vendor's signature to another: Anthropic thinking continued on Gemini, Anthropic and OpenAI reasoning back on OpenAI", async () => {
    const t1 = await client.responses.create({ model: 'claude', input: 'hello', reasoning: { effort: 'low' } });
    const t2 = await client.responses.create({ model: 'gemini', previous_response_id: t1.id, input: 'next', reasoning: { effort: 'low' } });
    expect(t2.status).toBe('completed');
    const toGemini = (lastBody(bed.mocks.gemini).contents as Json[])[1] as { parts: Json[] };
    expect(toGemini.parts).toEqual([{ text: '[anthropic] you said: hello' }]);

    // OpenAI reasoning (mock-issued encrypted content) and Anthropic thinking (mg1 token), stateless.
    const o1 = await client.responses.create({ model: 'gpt-5', store: false, include: ['reasoning.encrypted_content'], reasoning: { effort: 'low' }, input: 'think' });
    const openaiReasoning = o1.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    expect(openaiReasoning.encrypted_content).toBeTruthy();
    const anthropicReasoning = t1.output.find((o) => o.type === 'reasoning') as OpenAI.Responses.ResponseReasoningItem;
    const o2 = await client.responses.create({
      model: 'gpt-5',
      store: false,
      include: ['reasoning.encrypted_content'],
      reasoning: { effort: 'low' },
      input: [
        { role: 'user', content: 'think' },
        { ...openaiReasoning, id: openaiReasoning.id },
        { role: 'assistant', content: o1.output_text },
        { ...anthropicReasoning },
        { role: 'user', content: 'again' },
      ],
    });
    expect(o2.status).toBe('completed');
    const sent = (lastBody(bed.mocks.responses, '/responses').input as Json[]).filter((i) => i.type === 'reasoning');
    expect(sent.map((i) => i.encrypted_content)).toEqual([openaiReasoning.encrypted_content]);
  });
});

describe('input_tokens', () => {
  it('is forwarded to OpenAI upstreams and estimated for others', async () => {
    const openai = await client.responses.inputTokens.count({ model: 'gpt-4.1', input: 'count these words please' });
    expect(openai).toEqual({ object: 'response.input_tokens', input_tokens: 10, traceId: expect.any(String) });
    expect(lastBody(bed.mocks.responses, '/responses/input_tokens').model).toBe('gpt-4.1');
    const claude = await client.responses.inputTokens.count({ model: 'claude', input: 'x'.repeat(400) });
    expect(claude).toEqual({ object: 'response.input_tokens', input_tokens: 100, traceId: expect.any(String) });
  });
});
