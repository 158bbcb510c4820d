/**
 * Google's ADK on the Interactions API continues with `previous_interaction_id` and sends the
 * model's `function_call` steps again next to their `function_result`s. The gateway matches them to
 * the stored calls by id and keeps each call once: in what every upstream receives (the mock OpenAI
 * and Anthropic refuse duplicate tool call ids, as the real ones do), in the stored turn (GET) and in
 * the history of later turns. Through the official @google/genai SDK.
 */
import type { Interactions } from '@google/genai';
import { describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../../helpers/mock-vendor-base.js';
import { useInteractionsGateway, WEATHER_TOOL } from '../../helpers/interactions-gateway.js';

type Json = Record<string, unknown>;

const ix = useInteractionsGateway();

const lastBody = (reqs: RecordedRequest[], path?: string): Json => (path ? reqs.filter((q) => q.path === path) : reqs).at(-1)!.body as Json;
const callsOf = (steps: Interactions.Step[] | undefined) => (steps ?? []).filter((s): s is Interactions.FunctionCallStep => s.type === 'function_call');

/** What an ADK agent sends after running the tools: the calls again, then their results. */
function adkInput(calls: Interactions.FunctionCallStep[]): Interactions.Step[] {
  return [...calls, ...calls.map((c) => ({ type: 'function_result' as const, call_id: c.id, name: c.name, result: 'sunny, 21C' }))];
}

const VENDORS = [
  { model: 'gemini', tag: 'gemini-interactions' },
  { model: 'gpt', tag: 'openai' },
  { model: 'claude', tag: 'anthropic' },
  { model: 'gpt-pro', tag: 'responses' },
  { model: 'mock', tag: 'mock' },
];

describe.each(VENDORS)('$model', ({ model, tag }) => {
  it('function calls sent again with their results are kept once', async () => {
    const first = await ix.ai.interactions.create({ model, input: 'weather in Paris?', tools: [WEATHER_TOOL] });
    expect(first.status).toBe('requires_action');
    const calls = callsOf(first.steps);
    expect(calls).toHaveLength(1);

    const second = await ix.ai.interactions.create({ model, previous_interaction_id: first.id, tools: [WEATHER_TOOL], input: adkInput(calls) });
    expect(second.status).toBe('completed');
    expect(second.output_text).toBe(tag === 'mock' ? 'Tool results received: sunny, 21C.' : `[${tag}] tool results: sunny, 21C`);
    if (model === 'gemini') {
      // Gemini holds the conversation (continued by its own id): only the results go.
      expect((lastBody(ix.mocks.gemini.requests, '/v1beta/interactions').input as Json[]).map((s) => s.type)).toEqual(['function_result']);
    }

    // Stored once: the second turn's input is the results only.
    const stored = await ix.ai.interactions.get(second.id);
    expect((stored.steps ?? []).map((s) => s.type).filter((t) => t !== 'thought')).toEqual(['function_result', 'model_output']);

    // Later turns on strict upstreams get the history with each call once.
    for (const next of ['gpt', 'claude']) {
      const later = await ix.ai.interactions.create({ model: next, previous_interaction_id: second.id, input: 'thanks' });
      expect(later.status).toBe('completed');
    }
    const toOpenAI = (lastBody(ix.mocks.openai.requests).messages as Json[]).flatMap((m) => (Array.isArray(m.tool_calls) ? (m.tool_calls as Json[]) : []));
    expect(toOpenAI.map((t) => t.id)).toEqual([calls[0]!.id]);
  });
});

it('a call made by one vendor, sent again with its result to another, reaches it once', async () => {
  const first = await ix.ai.interactions.create({ model: 'claude', input: 'weather in Oslo?', tools: [WEATHER_TOOL] });
  const calls = callsOf(first.steps);
  const second = await ix.ai.interactions.create({ model: 'gpt', previous_interaction_id: first.id, tools: [WEATHER_TOOL], input: adkInput(calls) });
  expect(second.output_text).toBe('[openai] tool results: sunny, 21C');
  const messages = lastBody(ix.mocks.openai.requests).messages as Json[];
  expect(messages.map((m) => m.role)).toEqual(['user', 'assistant', 'tool']);
  expect((messages[1]!.tool_calls as Json[]).map((t) => t.id)).toEqual([calls[0]!.id]);
});
