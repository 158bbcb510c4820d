/**
 * Reasoning is a model capability in the config (issue 21, item 6): `reasoning: true` sends a
 * client's reasoning setting to an OpenAI-compatible server whatever the model is called (a
 * self-hosted `qwen3-32b`), `reasoning: false` drops it, and a dropped setting is named in
 * `x-modelgate-warnings`. Through the official openai and @anthropic-ai/sdk clients, against the
 * strict OpenAI mock (which, like vLLM for a non-reasoning model, may refuse reasoning_effort).
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';

const KEY = 'mg-reasoning-capability-0001';

let upstream: MockOpenAI;
let gateway: Gateway;
let server: RunningServer;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  // The self-hosted server reasons with qwen3 (and refuses reasoning_effort for other names, as OpenAI does).
  upstream = await startMockOpenAI({ reasoningModels: /^(o\d|gpt-5|qwen3)/ });
  gateway = createShippedGateway({
    providers: [{ id: 'local', type: 'openai-compatible', baseURL: upstream.baseURL, apiKey: upstream.apiKey }],
    models: [
      { id: 'qwen', provider: 'local', upstreamModel: 'qwen3-32b', reasoning: true },
      // Named like an OpenAI reasoning model, configured as one that is not.
      { id: 'plain', provider: 'local', upstreamModel: 'o4-mini', reasoning: false },
      // Not configured: guessed from the name (qwen3 is not recognised).
      { id: 'qwen-unsaid', provider: 'local', upstreamModel: 'qwen3-32b' },
    ],
    keys: [{ id: 'k', key: KEY }],
    retry: { attempts: 1 },
  });
  server = await serve(gateway, { port: 0 });
  openai = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
  anthropic = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
});
afterAll(async () => {
  await server?.close();
  await gateway?.close();
  await upstream?.close();
});

function lastBody(): Record<string, unknown> {
  return upstream.requests.at(-1)?.body as Record<string, unknown>;
}

describe('reasoning: true reaches a self-hosted reasoning model', () => {
  it("a Responses client's reasoning.effort arrives as reasoning_effort", async () => {
    const { data, response } = await openai.responses.create({ model: 'qwen', input: 'Why is the sky blue?', reasoning: { effort: 'high' } }).withResponse();
    expect(data.status).toBe('completed');
    expect(lastBody()).toMatchObject({ model: 'qwen3-32b', reasoning_effort: 'high' });
    expect(response.headers.get('x-modelgate-warnings')).toBeNull();
  });

  it("an Anthropic client's thinking budget arrives as the nearest reasoning_effort", async () => {
    const { response } = await anthropic.messages
      .create({ model: 'qwen', max_tokens: 20000, thinking: { type: 'enabled', budget_tokens: 8000 }, messages: [{ role: 'user', content: 'Think about it.' }] })
      .withResponse();
    expect(lastBody()).toMatchObject({ model: 'qwen3-32b', reasoning_effort: 'medium' });
    expect(response.headers.get('x-modelgate-warnings')).toContain('thinking: budget 8000 sent as reasoning_effort medium');
  });

  it('a chat client streaming with reasoning_effort gets it through', async () => {
    const stream = await openai.chat.completions.create({ model: 'qwen', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low', stream: true });
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(lastBody()).toMatchObject({ model: 'qwen3-32b', reasoning_effort: 'low' });
  });
});

describe('reasoning: false drops the setting and says so', () => {
  it('chat completions (sync): not sent although the name looks like a reasoning model; x-modelgate-warnings names reasoning_effort', async () => {
    const { data, response } = await openai.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'high' }).withResponse();
    expect(data.choices[0]?.message.content).toBeTruthy();
    expect(lastBody().model).toBe('o4-mini');
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-modelgate-warnings')).toBe('reasoning_effort: dropped (the model takes no reasoning effort)');
  });

  it('chat completions (stream): the header is on the stream', async () => {
    const { data: stream, response } = await openai.chat.completions
      .create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'medium', stream: true })
      .withResponse();
    let text = '';
    for await (const chunk of stream) text += chunk.choices[0]?.delta?.content ?? '';
    expect(text.length).toBeGreaterThan(0);
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-modelgate-warnings')).toBe('reasoning_effort: dropped (the model takes no reasoning effort)');
  });

  it('a Responses client: reasoning.effort is named', async () => {
    const { response } = await openai.responses.create({ model: 'plain', input: 'hi', reasoning: { effort: 'low' } }).withResponse();
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-modelgate-warnings')).toBe('reasoning.effort: dropped (the model takes no reasoning effort)');
  });

  it('a chat request without reasoning settings still passes through untouched (no warning)', async () => {
    const { response } = await openai.chat.completions.create({ model: 'plain', messages: [{ role: 'user', content: 'hi' }], temperature: 0.5 }).withResponse();
    expect(lastBody()).toMatchObject({ model: 'o4-mini', temperature: 0.5 });
    expect(response.headers.get('x-modelgate-warnings')).toBeNull();
  });
});

describe('reasoning not configured: guessed from the name', () => {
  it('a name not recognised drops a translated reasoning setting, with the warning', async () => {
    const { response } = await openai.responses.create({ model: 'qwen-unsaid', input: 'hi', reasoning: { effort: 'high' } }).withResponse();
    expect(lastBody()).not.toHaveProperty('reasoning_effort');
    expect(response.headers.get('x-modelgate-warnings')).toBe('reasoning.effort: dropped (the model takes no reasoning effort)');
  });
});
