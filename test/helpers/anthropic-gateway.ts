/** A gateway with an Anthropic and an OpenAI upstream, served on node:http, for the Anthropic SDK tests. */
import Anthropic from '@anthropic-ai/sdk';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway, GatewayConfigInput, ResponseEvent } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from './mock-anthropic.js';
import { startMockOpenAI, type MockOpenAI } from './mock-openai.js';
import { createShippedGateway } from './shipped-gateway.js';

export const KEY_ALL = 'mg-anthropic-key-all-01';
/** May use only `claude-*` models. */
export const KEY_CLAUDE = 'mg-anthropic-key-claude-02';

export interface AnthropicHarness {
  anthropic: MockAnthropic;
  openai: MockOpenAI;
  gateway: Gateway;
  server: RunningServer;
  client: Anthropic;
  /** Every onResponse hook event, in order. */
  responses: ResponseEvent[];
  close(): Promise<void>;
}

function anthropicGatewayConfig(anthropic: MockAnthropic, openai: MockOpenAI): GatewayConfigInput {
  return {
    providers: [
      { id: 'anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
    ],
    models: [
      { id: 'claude-pass', provider: 'anthropic', upstreamModel: 'claude-sonnet-4-5-20250929' },
      { id: 'claude-gpt', provider: 'openai', upstreamModel: 'gpt-4o' },
      { id: 'gpt-4o', provider: 'openai' },
    ],
    // One upstream call per request: these suites assert what a single upstream failure does (retries: test/routing/resilience.test.ts).
    retry: { attempts: 1 },
    keys: [
      { id: 'all', key: KEY_ALL, models: ['*'] },
      { id: 'claude-only', key: KEY_CLAUDE, models: ['claude-*'] },
    ],
  };
}

export async function startAnthropicHarness(): Promise<AnthropicHarness> {
  const anthropic = await startMockAnthropic();
  const openai = await startMockOpenAI();
  const responses: ResponseEvent[] = [];
  const gateway = createShippedGateway(anthropicGatewayConfig(anthropic, openai), { hooks: { onResponse: (e) => void responses.push(e) } });
  const server = await serve(gateway, { port: 0 });
  const client = new Anthropic({ baseURL: server.url, apiKey: KEY_ALL, maxRetries: 0 });
  return {
    anthropic,
    openai,
    gateway,
    server,
    client,
    responses,
    async close() {
      await server.close();
      await gateway.close();
      await anthropic.close();
      await openai.close();
    },
  };
}

/** Raw POST to the gateway with Anthropic headers (for bodies the SDK's types would not allow). */
export function postRaw(h: AnthropicHarness, path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${h.server.url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': KEY_ALL, 'anthropic-version': '2023-06-01', ...headers },
    body,
  });
}

import { PDF, PNG } from './samples.js';

export { PDF, PNG };

/** Two function tools: `get_weather(city: string, days: integer)` and `get_time(utc: boolean)`. */
export const WEATHER_TOOLS: Anthropic.Tool[] = [
  { name: 'get_weather', description: 'Weather', input_schema: { type: 'object', properties: { city: { type: 'string' }, days: { type: 'integer' } } } },
  { name: 'get_time', input_schema: { type: 'object', properties: { utc: { type: 'boolean' } } } },
];

/**
 * The second turn of a WEATHER_TOOLS round trip: the question, the assistant's tool_use blocks, and
 * the results `18C` (a string) and `noon` (a text block) for the two tool_use ids, in order.
 */
export function weatherToolResults(toolUse: Anthropic.ContentBlock[], ids: readonly [string, string]): Anthropic.MessageParam[] {
  return [
    { role: 'user', content: 'weather?' },
    { role: 'assistant', content: toolUse },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: ids[0], content: '18C' }, { type: 'tool_result', tool_use_id: ids[1], content: [{ type: 'text', text: 'noon' }] }] },
  ];
}

/** A user message with a PNG image, a PDF document and the text `Describe`. */
export const IMAGE_AND_PDF_MESSAGE: Anthropic.MessageParam = {
  role: 'user',
  content: [
    { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } },
    { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } },
    { type: 'text', text: 'Describe' },
  ],
};
