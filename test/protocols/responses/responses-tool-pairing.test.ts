/**
 * On translated upstreams the gateway holds a Responses request to OpenAI's pairing rules itself,
 * so every vendor answers alike (Anthropic refused with its own wording, Gemini answered without
 * the result): a call output must answer an earlier call (400 naming its call_id), and a call
 * cannot be left without its output (400 naming the call, or `input` for the previous response's).
 * Through the openai SDK against the gateway with the strict Anthropic and Gemini mocks.
 */
import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openAIRefusal } from '../../helpers/openai-refusal.js';
import { startResponsesBed, WEATHER_TOOLS, type ResponsesBed } from '../../helpers/responses-gateway.js';

let bed: ResponsesBed;
let client: OpenAI;

beforeAll(async () => {
  bed = await startResponsesBed();
  client = bed.client();
});
afterAll(async () => {
  await bed?.close();
});

const CALL = { type: 'function_call' as const, call_id: 'call_w1', name: 'get_weather', arguments: '{"city":"Paris"}' };

describe('tool call pairing on translated upstreams', () => {
  for (const model of ['claude', 'gemini']) {
    it(`${model}: an output without its call is a 400 naming its call_id, before any upstream call`, async () => {
      const before = bed.mocks.anthropic.requests.length + bed.mocks.gemini.requests.length;
      const r = await openAIRefusal(client.responses.create({ model, tools: WEATHER_TOOLS, input: [{ role: 'user', content: 'weather?' }, { type: 'function_call_output', call_id: 'nope', output: '18C' }] }));
      expect(r).toMatchObject({ status: 400, param: 'input[1].call_id' });
      expect(r.message).toContain("'nope'");
      expect(bed.mocks.anthropic.requests.length + bed.mocks.gemini.requests.length).toBe(before);
    });

    it(`${model}: a call left without its output is a 400 naming the call`, async () => {
      const r = await openAIRefusal(client.responses.create({ model, tools: WEATHER_TOOLS, input: [{ role: 'user', content: 'weather?' }, CALL, { role: 'user', content: 'never mind' }] }));
      expect(r).toMatchObject({ status: 400, param: 'input[1]' });
      expect(r.message).toContain('call_w1');
      // Answered, the same input goes through.
      const ok = await client.responses.create({ model, tools: WEATHER_TOOLS, input: [{ role: 'user', content: 'weather?' }, CALL, { type: 'function_call_output', call_id: 'call_w1', output: '18C' }] });
      expect(ok.status).toBe('completed');
    });
  }

  it("the previous response's calls must be answered by the next input", async () => {
    const t1 = await client.responses.create({ model: 'claude', input: 'weather in Paris', tools: WEATHER_TOOLS });
    expect(t1.output.filter((o) => o.type === 'function_call').length).toBeGreaterThan(0);
    const r = await openAIRefusal(client.responses.create({ model: 'gemini', previous_response_id: t1.id, tools: WEATHER_TOOLS, input: 'just chat instead' }));
    expect(r).toMatchObject({ status: 400, param: 'input' });
    expect(r.message).toContain('previous response');
  });
});
