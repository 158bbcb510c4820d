/**
 * OpenTelemetry spans and metrics through the SDK's in-memory exporters: one server span per
 * request and one client span per upstream attempt, named and attributed per the GenAI semantic
 * conventions; the caller's traceparent continued and carried upstream; metric values after a
 * known sequence of requests; no secret and no content in any attribute unless content capture is on.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import { MeterProvider, MetricReader, DataPointType, type HistogramMetricData, type MetricData, type SumMetricData } from '@opentelemetry/sdk-metrics';
import { createGateway, type Gateway } from '../../src/index.js';
import { KEY_ALL, KEY_GPT, openAIConfig } from '../helpers/gateway-config.js';
import { startMockOpenAI, type MockOpenAI } from '../helpers/mock-openai.js';
import { jsonRequest } from '../helpers/requests.js';

class TestReader extends MetricReader {
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

const PROMPT = 'the secret plan is purple elephants';
let mock: MockOpenAI;
let gateway: Gateway;
let contentGateway: Gateway;
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
let reader: TestReader;
let metricsGateway: Gateway;
let oneShotGateway: Gateway;
let clock = 1_000_000;

beforeAll(async () => {
  mock = await startMockOpenAI();
  reader = new TestReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  gateway = createGateway(openAIConfig(mock), { telemetry: { tracerProvider } });
  metricsGateway = createGateway(openAIConfig(mock), {
    // Each reading of the clock advances it by 5 ms: durations are known in advance.
    now: () => (clock += 5),
    telemetry: { meterProvider },
  });
  contentGateway = createGateway(openAIConfig(mock), { telemetry: { tracerProvider, captureContent: true } });
  // One upstream call per request: a failure is the request's failure.
  oneShotGateway = createGateway(openAIConfig(mock, { retry: { attempts: 1 } }), { telemetry: { tracerProvider } });
});
afterAll(async () => {
  await gateway?.close();
  await contentGateway?.close();
  await metricsGateway?.close();
  await oneShotGateway?.close();
  await mock?.close();
});
beforeEach(() => exporter.reset());

function post(gw: Gateway, path: string, body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Response> {
  return gw.handle(jsonRequest(path, body, { key: KEY_ALL, headers }));
}

async function spans(): Promise<{ server: ReadableSpan[]; client: ReadableSpan[] }> {
  await tracerProvider.forceFlush();
  const all = exporter.getFinishedSpans();
  return { server: all.filter((s) => s.kind === SpanKind.SERVER), client: all.filter((s) => s.kind === SpanKind.CLIENT) };
}

function expectClean(list: ReadableSpan[]): void {
  const text = JSON.stringify(list.map((s) => ({ name: s.name, attributes: s.attributes, events: s.events, status: s.status })));
  for (const secret of [KEY_ALL, KEY_GPT, mock.apiKey]) expect(text).not.toContain(secret);
  expect(text).not.toContain('purple elephants');
}

describe('spans', () => {
  it('pass-through stream: a server span and one client span under it, GenAI attributes, no content', async () => {
    const res = await post(gateway, '/v1/chat/completions', { model: 'gpt-4o', stream: true, max_tokens: 50, temperature: 0.3, top_p: 0.9, messages: [{ role: 'user', content: PROMPT }] });
    expect(res.status).toBe(200);
    await res.text();
    const { server, client } = await spans();
    expect(server).toHaveLength(1);
    expect(client).toHaveLength(1);
    const s = server[0] as ReadableSpan;
    const c = client[0] as ReadableSpan;
    expect(s.name).toBe('POST /v1/chat/completions');
    expect(c.name).toBe('chat gpt-4o');
    expect(c.parentSpanContext?.spanId).toBe(s.spanContext().spanId);
    expect(c.spanContext().traceId).toBe(s.spanContext().traceId);
    expect(s.attributes).toMatchObject({
      'http.request.method': 'POST',
      'http.route': '/v1/chat/completions',
      'http.response.status_code': 200,
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'gen_ai.request.max_tokens': 50,
      'gen_ai.request.temperature': 0.3,
      'gen_ai.request.top_p': 0.9,
      'gen_ai.usage.input_tokens': 10,
      'modelgate.key.id': 'team-all',
      'modelgate.trace_id': res.headers.get('x-trace-id'),
      'modelgate.protocol.client': 'openai-chat',
      'modelgate.protocol.upstream': 'openai-chat',
      'modelgate.passthrough': true,
      'modelgate.stream': true,
      'modelgate.stream.completed': true,
      'server.address': '127.0.0.1',
    });
    expect(s.attributes['gen_ai.usage.output_tokens']).toBeGreaterThan(0);
    // The first event of the relayed stream names the answer; the rest is relayed unparsed.
    expect(s.attributes['gen_ai.response.model']).toBe('gpt-4o-2024-08-06');
    expect(String(s.attributes['gen_ai.response.id'])).toMatch(/^chatcmpl-/);
    expect(s.attributes['error.type']).toBeUndefined();
    expect(c.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.request.model': 'gpt-4o',
      'server.address': '127.0.0.1',
      'server.port': Number(new URL(mock.baseURL).port),
      'http.response.status_code': 200,
      'modelgate.attempt': 1,
      'modelgate.provider.id': 'openai',
    });
    expect(c.status.code).not.toBe(SpanStatusCode.ERROR);
    expectClean([s, c]);
  });

  it('translated call (Anthropic client, OpenAI upstream): response id, model and finish reasons', async () => {
    const res = await post(gateway, '/v1/messages', { model: 'fast', max_tokens: 64, messages: [{ role: 'user', content: PROMPT }] }, { 'anthropic-version': '2023-06-01' });
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: string };
    const { server, client } = await spans();
    expect(server).toHaveLength(1);
    expect(client).toHaveLength(1);
    const s = server[0] as ReadableSpan;
    const c = client[0] as ReadableSpan;
    expect(s.name).toBe('POST /v1/messages');
    expect(c.name).toBe('chat llama-3.1-8b');
    expect(s.attributes).toMatchObject({
      'gen_ai.operation.name': 'chat',
      'gen_ai.request.model': 'fast',
      'gen_ai.response.model': 'llama-3.1-8b-2024-08-06',
      'gen_ai.response.finish_reasons': ['stop'],
      'gen_ai.usage.input_tokens': 10,
      'gen_ai.request.max_tokens': 64,
      'modelgate.protocol.client': 'anthropic-messages',
      'modelgate.protocol.upstream': 'openai-chat',
      'modelgate.passthrough': false,
      'modelgate.provider.id': 'local',
    });
    expect(typeof s.attributes['gen_ai.response.id']).toBe('string');
    expect(body.id).toBeTruthy();
    expect(c.attributes).toMatchObject({ 'gen_ai.request.model': 'llama-3.1-8b', 'gen_ai.response.model': 'llama-3.1-8b-2024-08-06', 'gen_ai.response.finish_reasons': ['stop'] });
    expectClean([s, c]);
  });

  it('failed call: the upstream 500 ends the client span and the server span with error.type', async () => {
    mock.failNext(500, { error: { message: `boom with ${mock.apiKey}`, type: 'server_error', param: null, code: null } });
    const res = await post(oneShotGateway, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] });
    expect(res.status).toBeGreaterThanOrEqual(500);
    await res.text();
    const { server, client } = await spans();
    expect(server).toHaveLength(1);
    expect(client).toHaveLength(1);
    const s = server[0] as ReadableSpan;
    for (const c of client) {
      expect(c.status.code).toBe(SpanStatusCode.ERROR);
      expect(c.attributes['error.type']).toBeTruthy();
      expect(c.parentSpanContext?.spanId).toBe(s.spanContext().spanId);
    }
    expect(s.status.code).toBe(SpanStatusCode.ERROR);
    expect(s.attributes['error.type']).toBe((client[0] as ReadableSpan).attributes['error.type']);
    expect(s.attributes['http.response.status_code']).toBe(res.status);
    expectClean([...server, ...client]);
  });

  it('a request that never goes upstream is a plain HTTP server span; a 401 has no key id', async () => {
    const res = await gateway.handle(new Request('http://gw.test/v1/models', { headers: { authorization: `Bearer ${KEY_ALL}` } }));
    await res.text();
    const bad = await gateway.handle(new Request('http://gw.test/v1/models', { headers: { authorization: 'Bearer mg-not-a-key-0000000000' } }));
    expect(bad.status).toBe(401);
    const { server, client } = await spans();
    expect(client).toHaveLength(0);
    expect(server.map((s) => s.name)).toEqual(['GET /v1/models', 'GET /v1/models']);
    expect(server[0]?.attributes).toMatchObject({ 'http.response.status_code': 200, 'modelgate.key.id': 'team-all' });
    expect(server[0]?.attributes['gen_ai.operation.name']).toBeUndefined();
    expect(server[1]?.attributes).toMatchObject({ 'http.response.status_code': 401, 'error.type': 'authentication' });
    expect(server[1]?.attributes['modelgate.key.id']).toBeUndefined();
    expect(JSON.stringify(server.map((s) => s.attributes))).not.toContain('mg-not-a-key');
  });

  it("an incoming traceparent continues the caller's trace, and the upstream call carries it onward", async () => {
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parent = '00f067aa0ba902b7';
    const before = mock.requests.length;
    const res = await post(gateway, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: 'hi' }] }, { traceparent: `00-${traceId}-${parent}-01` });
    await res.text();
    const { server, client } = await spans();
    const s = server[0] as ReadableSpan;
    const c = client[0] as ReadableSpan;
    expect(s.spanContext().traceId).toBe(traceId);
    expect(s.parentSpanContext?.spanId).toBe(parent);
    const sent = mock.requests[before]?.headers.traceparent;
    expect(sent).toBe(`00-${traceId}-${c.spanContext().spanId}-01`);
  });

  it('content capture (opt-in): the prompt and the whole answer on the server span, secrets still scrubbed', async () => {
    const res = await post(contentGateway, '/v1/chat/completions', { model: 'gpt-4o', messages: [{ role: 'user', content: `${PROMPT} ${mock.apiKey}` }] });
    expect(res.status).toBe(200);
    await res.text();
    const s = (await spans()).server[0] as ReadableSpan;
    expect(String(s.attributes['gen_ai.input.messages'])).toContain('purple elephants');
    expect(String(s.attributes['gen_ai.output.messages'])).toContain('purple elephants');
    expect(JSON.stringify(s.attributes)).not.toContain(mock.apiKey);
  });
});

describe('metrics', () => {
  function find(all: MetricData[], name: string): MetricData | undefined {
    return all.find((m) => m.descriptor.name === name);
  }

  it('values after a known sequence: 2 sync calls, 1 stream, 1 upstream failure, 1 model list', async () => {
    const sync = async () => (await post(metricsGateway, '/v1/chat/completions', { model: 'fast', messages: [{ role: 'user', content: 'one two' }] })).text();
    await sync();
    await sync();
    const stream = await post(metricsGateway, '/v1/chat/completions', { model: 'fast', stream: true, messages: [{ role: 'user', content: 'one two three' }] });
    await stream.text();
    mock.failNext(400, { error: { message: 'bad', type: 'invalid_request_error', param: null, code: null } });
    await (await post(metricsGateway, '/v1/chat/completions', { model: 'fast', messages: [{ role: 'user', content: 'x' }] })).text();
    await (await metricsGateway.handle(new Request('http://gw.test/v1/models', { headers: { authorization: `Bearer ${KEY_ALL}` } }))).text();

    const { resourceMetrics } = await reader.collect();
    const all = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics);
    const requests = find(all, 'modelgate.requests') as SumMetricData;
    const total = requests.dataPoints.reduce((n, p) => n + p.value, 0);
    expect(total).toBe(5);
    const byStatus = (route: string, status: number) =>
      requests.dataPoints.filter((p) => p.attributes['http.route'] === route && p.attributes['http.response.status_code'] === status).reduce((n, p) => n + p.value, 0);
    expect(byStatus('/v1/models', 200)).toBe(1);
    expect(byStatus('/v1/chat/completions', 200)).toBe(3);
    expect(byStatus('/v1/chat/completions', 400)).toBe(1);

    const duration = find(all, 'gen_ai.client.operation.duration') as HistogramMetricData;
    expect(duration.descriptor.unit).toBe('s');
    const fast = duration.dataPoints.filter((p) => p.attributes['gen_ai.request.model'] === 'fast');
    const ok = fast.filter((p) => p.attributes['error.type'] === undefined);
    const failed = fast.filter((p) => p.attributes['error.type'] !== undefined);
    expect(ok.reduce((n, p) => n + p.value.count, 0)).toBe(3);
    expect(failed.map((p) => [p.attributes['error.type'], p.value.count])).toEqual([['invalid_request', 1]]);
    for (const p of ok) expect(p.attributes).toMatchObject({ 'gen_ai.operation.name': 'chat', 'gen_ai.provider.name': 'openai', 'server.address': '127.0.0.1' });
    expect(ok.map((p) => p.attributes['gen_ai.response.model'])).toEqual(['llama-3.1-8b-2024-08-06']);
    // Durations are counted in clock reads of 5 ms each: positive, and far below a second.
    for (const p of ok) {
      expect(p.value.min).toBeGreaterThan(0);
      expect(p.value.max).toBeLessThan(1);
    }

    const tokens = find(all, 'gen_ai.client.token.usage') as HistogramMetricData;
    const tokenSum = (type: string) =>
      tokens.dataPoints
        .filter((p) => p.attributes['gen_ai.request.model'] === 'fast' && p.attributes['gen_ai.token.type'] === type)
        .reduce((a, p) => ({ count: a.count + p.value.count, sum: a.sum + (p.value.sum ?? 0) }), { count: 0, sum: 0 });
    // The mock counts 10 input tokens per user message and one output token per word of "[openai] you said: <prompt>".
    expect(tokenSum('input')).toEqual({ count: 3, sum: 30 });
    expect(tokenSum('output')).toEqual({ count: 3, sum: 5 + 5 + 6 });

    const ttft = find(all, 'gen_ai.server.time_to_first_token') as HistogramMetricData;
    expect(ttft.dataPoints.find((p) => p.attributes['gen_ai.request.model'] === 'fast')?.value.count).toBe(1);
    const tpot = find(all, 'gen_ai.server.time_per_output_token') as HistogramMetricData;
    expect(tpot.dataPoints.find((p) => p.attributes['gen_ai.request.model'] === 'fast')?.value.count).toBe(1);

    const attempts = find(all, 'modelgate.upstream.attempts') as SumMetricData;
    const local = (outcome: string) => attempts.dataPoints.find((p) => p.attributes['modelgate.provider.id'] === 'local' && p.attributes['modelgate.outcome'] === outcome)?.value;
    expect(local('success')).toBe(3);
    expect(local('invalid_request')).toBe(1);

    const open = find(all, 'modelgate.streams.open') as SumMetricData;
    expect(open.dataPointType).toBe(DataPointType.SUM);
    expect(open.dataPoints.reduce((n, p) => n + p.value, 0)).toBe(0);
  });
});

describe('video tasks by state', () => {
  it('counts every stored state change of a task, from accepted to succeeded; the submission is a client span', async () => {
    const videoReader = new TestReader();
    let now = 1_767_225_600_000;
    const gw = createGateway(
      { providers: [{ id: 'mock', type: 'mock' }], models: [{ id: 'mock-video', provider: 'mock', capabilities: ['video'] }], keys: [{ id: 'team', key: 'mg-video-metrics-000001' }] },
      { env: {}, now: () => now, video: { pollerTickMs: false, staleAfterMs: 0 }, telemetry: { tracerProvider, meterProvider: new MeterProvider({ readers: [videoReader] }) } },
    );
    const auth = { authorization: 'Bearer mg-video-metrics-000001' };
    const submit = await gw.handle(new Request('http://gw.test/v1/video/generations', { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ model: 'mock-video', prompt: 'a fox' }) }));
    expect(submit.status).toBe(202);
    const { task_id } = (await submit.json()) as { task_id: string };
    // The submission is a client span of the request that made it.
    const submitted = await spans();
    expect(submitted.server.map((x) => x.name)).toEqual(['POST /v1/video/generations']);
    expect(submitted.client.map((x) => [x.name, x.attributes['modelgate.provider.id'], x.parentSpanContext?.spanId])).toEqual([
      ['generate_content mock-video', 'mock', submitted.server[0]?.spanContext().spanId],
    ]);
    for (const expected of ['in_progress', 'succeeded']) {
      now += 2000;
      const read = await gw.handle(new Request(`http://gw.test/v1/video/generations/${task_id}`, { headers: auth }));
      expect(((await read.json()) as { status: string }).status).toBe(expected);
    }
    const { resourceMetrics } = await videoReader.collect();
    const tasks = resourceMetrics.scopeMetrics.flatMap((s) => s.metrics).find((m) => m.descriptor.name === 'modelgate.video.tasks') as SumMetricData;
    const byState = Object.fromEntries(tasks.dataPoints.map((p) => [p.attributes['modelgate.video.state'], p.value]));
    expect(byState).toEqual({ accepted: 1, queued: 1, in_progress: 1, succeeded: 1 });
    expect(tasks.dataPoints.every((p) => p.attributes['modelgate.model'] === 'mock-video' && p.attributes['modelgate.provider.id'] === 'mock')).toBe(true);
    await gw.close();
  });
});
