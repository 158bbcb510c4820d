/**
 * Retries and fallbacks in the trace: every upstream attempt is its own client span under the
 * request's server span (attempt number, provider, upstream address, the failure's error type and
 * upstream status), and the attempts metric counts each by outcome.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { MeterProvider, MetricReader, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { createGateway, type Gateway } from '../../src/index.js';
import { KEY_ALL, KEY_GPT } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const PROMPT = 'purple elephants at the retry desk';
let first: MockOpenAI;
let second: MockOpenAI;
let gateway: Gateway;
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
const reader = new TestReader();

beforeAll(async () => {
  first = await startMockOpenAI();
  second = await startMockOpenAI();
  gateway = createGateway(
    {
      providers: [
        { id: 'first', type: 'openai', baseURL: first.baseURL, apiKey: first.apiKey },
        { id: 'second', type: 'openai', baseURL: second.baseURL, apiKey: second.apiKey },
      ],
      models: [
        { id: 'primary', provider: 'first', upstreamModel: 'gpt-4o', fallbacks: ['backup'] },
        { id: 'backup', provider: 'second', upstreamModel: 'gpt-4o-mini' },
      ],
      keys: [{ id: 'team-all', key: KEY_ALL }],
      // Three calls per model, no backoff (and no cooldown within these few failures).
      retry: { attempts: 3, initialDelayMs: 0, maxDelayMs: 0 },
      cooldown: { failures: 10, cooldownMs: 1000 },
    },
    { telemetry: { tracerProvider, meterProvider: new MeterProvider({ readers: [reader] }) } },
  );
});
afterAll(async () => {
  await gateway?.close();
  await first?.close();
  await second?.close();
});
beforeEach(() => exporter.reset());

function chat(): Promise<Response> {
  return gateway.handle(jsonRequest('/v1/chat/completions', chatBody('primary', {}, PROMPT), { key: KEY_ALL }));
}

async function spans(): Promise<{ server: ReadableSpan; client: ReadableSpan[] }> {
  await tracerProvider.forceFlush();
  const all = exporter.getFinishedSpans();
  const server = all.filter((s) => s.kind === SpanKind.SERVER);
  expect(server).toHaveLength(1);
  return { server: server[0] as ReadableSpan, client: all.filter((s) => s.kind === SpanKind.CLIENT) };
}

const failure = { error: { message: 'overloaded', type: 'server_error', param: null, code: null } };

describe('retries and fallbacks as client spans', () => {
  it('a retried call: one client span per attempt, siblings under the server span, failures with error type and status', async () => {
    first.failNext(500, failure);
    first.failNext(503, failure);
    const res = await chat();
    expect(res.status).toBe(200);
    await res.text();
    const { server, client } = await spans();
    expect(client.map((c) => [c.name, c.attributes['modelgate.attempt'], c.attributes['http.response.status_code'], c.status.code])).toEqual([
      ['chat gpt-4o', 1, 500, SpanStatusCode.ERROR],
      ['chat gpt-4o', 2, 503, SpanStatusCode.ERROR],
      ['chat gpt-4o', 3, 200, SpanStatusCode.UNSET],
    ]);
    expect(client.slice(0, 2).every((c) => typeof c.attributes['error.type'] === 'string')).toBe(true);
    expect(client[2]?.attributes['error.type']).toBeUndefined();
    for (const c of client) {
      expect(c.parentSpanContext?.spanId).toBe(server.spanContext().spanId);
      expect(c.attributes['modelgate.provider.id']).toBe('first');
    }
    expect(server.attributes).toMatchObject({ 'modelgate.attempt': 3, 'http.response.status_code': 200, 'gen_ai.request.model': 'primary', 'modelgate.model': 'primary' });
    expect(server.attributes['error.type']).toBeUndefined();
    expect(server.status.code).toBe(SpanStatusCode.UNSET);
    const text = JSON.stringify([server, ...client].map((s) => s.attributes));
    for (const secret of [KEY_ALL, KEY_GPT, first.apiKey, second.apiKey, 'purple elephants']) expect(text).not.toContain(secret);
  });

  it("a fallback: the model's failed attempts, then the fallback's attempt to its own upstream", async () => {
    for (let i = 0; i < 3; i++) first.failNext(500, failure);
    const res = await chat();
    expect(res.status).toBe(200);
    await res.text();
    const { server, client } = await spans();
    const port = (m: MockOpenAI) => Number(new URL(m.baseURL).port);
    expect(client.map((c) => [c.name, c.attributes['modelgate.provider.id'], c.attributes['server.port'], c.status.code])).toEqual([
      ['chat gpt-4o', 'first', port(first), SpanStatusCode.ERROR],
      ['chat gpt-4o', 'first', port(first), SpanStatusCode.ERROR],
      ['chat gpt-4o', 'first', port(first), SpanStatusCode.ERROR],
      ['chat gpt-4o-mini', 'second', port(second), SpanStatusCode.UNSET],
    ]);
    expect(server.attributes).toMatchObject({ 'gen_ai.request.model': 'primary', 'modelgate.model': 'backup', 'modelgate.provider.id': 'second', 'modelgate.attempt': 4 });
  });

  it('the attempts metric counts every attempt by outcome', async () => {
    const { resourceMetrics } = await reader.collect();
    const attempts = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'modelgate.upstream.attempts') as SumMetricData;
    const count = (provider: string, success: boolean) =>
      attempts.dataPoints.filter((p) => p.attributes['modelgate.provider.id'] === provider && (p.attributes['modelgate.outcome'] === 'success') === success).reduce((n, p) => n + p.value, 0);
    expect([count('first', true), count('first', false), count('second', true), count('second', false)]).toEqual([1, 5, 1, 0]);
  });
});
