/**
 * One gateway (node:http, port 0) in front of the three strict vendor mocks, a model id per upstream
 * (`up-openai`, `up-anthropic`, `up-gemini`), and one official SDK client + driver per protocol.
 */
import Anthropic from '@anthropic-ai/sdk';
import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { serve, type RunningServer } from '../../node/index.js';
import type { Gateway } from '../../src/index.js';
import { startMockAnthropic, type MockAnthropic } from '../helpers/mock-anthropic.js';
import { startMockGemini, type MockGemini } from '../helpers/mock-gemini.js';
import { startMockOpenAI, type MockOpenAI, type RecordedRequest } from '../helpers/mock-openai.js';
import { createShippedGateway } from '../helpers/shipped-gateway.js';
import { anthropicDriver } from './anthropic-driver.js';
import { geminiDriver } from './gemini-driver.js';
import { openAIDriver } from './openai-driver.js';
import type { ClientName, Driver, UpstreamName } from './types.js';

const CONFORMANCE_KEY = 'mg-conformance-key-0001';

/** The concrete upstream model behind each gateway model id. */
export const UPSTREAM_MODEL: Record<UpstreamName, string> = { openai: 'gpt-4o', anthropic: 'claude-sonnet-4-5', gemini: 'gemini-2.5-flash' };

/** One gateway answer as the SDK's fetch received it (the body read from a clone, streams included). */
export interface Exchange {
  url: string;
  status: number;
  contentType: string;
  traceIdHeader: string | null;
  body: Promise<string>;
}

export interface ConformanceBed {
  mocks: { openai: MockOpenAI; anthropic: MockAnthropic; gemini: MockGemini };
  /** Every answer any SDK client received, in order. */
  exchanges: Exchange[];
  gateway: Gateway;
  server: RunningServer;
  drivers: Record<ClientName, Driver>;
  /** Requests an upstream mock received since `mark` was taken. */
  mark(upstream: UpstreamName): () => RecordedRequest[];
  close(): Promise<void>;
}

export async function startConformanceBed(): Promise<ConformanceBed> {
  const [openai, anthropic, gemini] = await Promise.all([startMockOpenAI(), startMockAnthropic(), startMockGemini()]);
  const gateway = createShippedGateway({
    providers: [
      { id: 'p-openai', type: 'openai', baseURL: openai.baseURL, apiKey: openai.apiKey },
      { id: 'p-anthropic', type: 'anthropic', baseURL: anthropic.baseURL, apiKey: anthropic.apiKey },
      { id: 'p-gemini', type: 'gemini', baseURL: gemini.baseURL, apiKey: gemini.apiKey },
    ],
    models: [
      { id: 'up-openai', provider: 'p-openai', upstreamModel: UPSTREAM_MODEL.openai },
      { id: 'up-anthropic', provider: 'p-anthropic', upstreamModel: UPSTREAM_MODEL.anthropic },
      { id: 'up-gemini', provider: 'p-gemini', upstreamModel: UPSTREAM_MODEL.gemini },
    ],
    keys: [{ id: 'conformance', key: CONFORMANCE_KEY, models: ['*'] }],
  });
  const server = await serve(gateway, { port: 0 });
  const mocks = { openai, anthropic, gemini };
  const exchanges: Exchange[] = [];
  // The SDKs' own fetch, recording what came back while the SDK reads the original body.
  const recordingFetch = async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> => {
    const res = await fetch(input, init);
    exchanges.push({ url: res.url, status: res.status, contentType: res.headers.get('content-type') ?? '', traceIdHeader: res.headers.get('x-trace-id'), body: res.clone().text() });
    return res;
  };
  return {
    mocks,
    exchanges,
    gateway,
    server,
    drivers: {
      openai: openAIDriver(new OpenAI({ baseURL: `${server.url}/v1`, apiKey: CONFORMANCE_KEY, maxRetries: 0, fetch: recordingFetch })),
      anthropic: anthropicDriver(new Anthropic({ baseURL: server.url, apiKey: CONFORMANCE_KEY, maxRetries: 0, fetch: recordingFetch })),
      gemini: geminiDriver(new GoogleGenAI({ apiKey: CONFORMANCE_KEY, httpOptions: { baseUrl: server.url, retryOptions: { attempts: 1 }, fetch: recordingFetch } })),
    },
    mark(upstream) {
      const requests = mocks[upstream].requests as RecordedRequest[];
      const from = requests.length;
      return () => requests.slice(from);
    },
    async close() {
      await server.close();
      await gateway.close();
      await Promise.all([openai.close(), anthropic.close(), gemini.close()]);
    },
  };
}
