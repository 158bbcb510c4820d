/**
 * The default telemetry: the global OpenTelemetry API. Without an SDK it records nothing and costs
 * the request nothing visible; an SDK the host registers after creating the gateway is heard at once.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { metrics, SpanKind, trace } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { MeterProvider, MetricReader, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { createGateway, type Gateway } from '../../src/index.js';
import { KEY_ALL, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { chatBody, jsonRequest } from '../helpers/requests.js';

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

let mock: MockOpenAI;
let gateway: Gateway;

beforeAll(async () => {
  mock = await startMockOpenAI();
  gateway = createGateway(openAIConfig(mock));
});
afterAll(async () => {
  trace.disable();
  metrics.disable();
  await gateway?.close();
  await mock?.close();
});

function chat(headers: Record<string, string> = {}): Promise<Response> {
  return gateway.handle(jsonRequest('/v1/chat/completions', chatBody('gpt-4o', {}, 'hello'), { key: KEY_ALL, headers }));
}

describe('global OpenTelemetry API', () => {
  it('without an SDK: requests are served, no traceparent is invented for the upstream', async () => {
    const before = mock.requests.length;
    const res = await chat();
    expect(res.status).toBe(200);
    await res.text();
    expect(mock.requests[before]?.headers.traceparent).toBeUndefined();
  });

  it("without an SDK, a caller's traceparent still travels upstream unchanged", async () => {
    const before = mock.requests.length;
    const tp = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    await (await chat({ traceparent: tp })).text();
    expect(mock.requests[before]?.headers.traceparent).toBe(tp);
  });

  it('an SDK registered after the gateway was created receives spans and metrics', async () => {
    const exporter = new InMemorySpanExporter();
    const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    const reader = new TestReader();
    trace.setGlobalTracerProvider(tracerProvider);
    metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
    await (await chat()).text();
    await tracerProvider.forceFlush();
    const spans = exporter.getFinishedSpans();
    expect(spans.map((s) => [s.kind, s.name])).toEqual([
      [SpanKind.CLIENT, 'chat gpt-4o'],
      [SpanKind.SERVER, 'POST /v1/chat/completions'],
    ]);
    const { resourceMetrics } = await reader.collect();
    const requests = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'modelgate.requests') as SumMetricData;
    expect(requests.dataPoints.map((p) => p.value)).toEqual([1]);
  });
});
