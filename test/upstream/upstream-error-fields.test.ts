/**
 * An OpenAI-shaped upstream's error `code` and `param` reach an OpenAI client (SDK users branch on
 * `err.code`: `context_length_exceeded`, `invalid_value`, ...), through the shipped node server and
 * upstream client with the official SDK; other client shapes keep their own error fields.
 */
import Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { serveShipped } from '../helpers/shipped-gateway.js';

const KEY = 'mg-error-fields-test-0001';

let chat: MockOpenAI;
let server: { url: string; close: () => Promise<void> };

beforeAll(async () => {
  chat = await startMockOpenAI();
  server = await serveShipped({
    providers: [{ id: 'openai', type: 'openai', baseURL: chat.baseURL, apiKey: chat.apiKey }],
    // Declared a reasoning model, so reasoning_effort is sent; the upstream (gpt-4o) refuses it as the real API does.
    models: [{ id: 'gpt', provider: 'openai', upstreamModel: 'gpt-4o', reasoning: true }],
    retry: { attempts: 1 },
    keys: [{ id: 'caller', key: KEY }],
  });
});

afterAll(async () => {
  await server?.close();
  await chat?.close();
});


describe('upstream error fields', () => {
  it("an OpenAI client gets the upstream's code and param", async () => {
    const client = new OpenAI({ apiKey: KEY, baseURL: `${server.url}/v1`, maxRetries: 0 });
    const err = await client.chat.completions.create({ model: 'gpt', messages: [{ role: 'user', content: 'hi' }], reasoning_effort: 'low' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(OpenAI.BadRequestError);
    const e = err as InstanceType<typeof OpenAI.BadRequestError>;
    expect(e.status).toBe(400);
    expect(e.code).toBe('unsupported_parameter');
    expect(e.param).toBe('reasoning_effort');
    expect(e.message).toContain("Unsupported parameter: 'reasoning_effort'");
    expect(e.message).not.toContain(chat.apiKey);
  });

  it('an Anthropic client gets its own error shape for the same upstream refusal', async () => {
    const client = new Anthropic({ apiKey: KEY, baseURL: server.url, maxRetries: 0 });
    const err = await client.messages
      .create({ model: 'gpt', max_tokens: 16, messages: [{ role: 'user', content: 'hi' }], thinking: { type: 'enabled', budget_tokens: 1024 } })
      .then(
        () => undefined,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(Anthropic.APIError);
    const e = err as InstanceType<typeof Anthropic.APIError>;
    expect(e.status).toBe(400);
    expect((e.error as { type?: string; error?: { type?: string } }).error?.type).toBe('invalid_request_error');
  });
});
