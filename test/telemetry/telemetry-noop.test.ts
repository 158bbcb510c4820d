/**
 * The request observer's path for when nobody listens (no SDK registered, no caller trace, no
 * metrics): it starts no span and builds no context, so it must give exactly what the no-op tracer
 * gives (upstream headers, the attempt's context, the active span inside it), and an SDK registered
 * later, even in the middle of a request, must be heard at once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { context, ProxyTracerProvider, SpanKind, trace, type Context } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { RequestObserver, type AttemptTarget } from '../../src/observability/request-observer.js';
import { Telemetry } from '../../src/observability/telemetry.js';

const TARGET: AttemptTarget = { id: 'openai', type: 'openai', chatProtocol: 'openai-chat' };

afterEach(() => {
  trace.disable();
  context.disable();
});

function observer(telemetry: Telemetry, headers: Record<string, string>): RequestObserver {
  const event = { traceId: 't', method: 'POST', path: '/v1/chat/completions', endpoint: 'POST /v1/chat/completions', route: '/v1/chat/completions', model: 'gpt-4o', upstreamModel: 'gpt-4o' };
  return new RequestObserver({ hooks: {}, now: () => 0, telemetry, scrub: (t) => t }, event, 0, new Headers(headers));
}

/** What one attempt leaves visible: the upstream headers, its context's span, the span active while the fetch runs. */
function attemptView(telemetry: Telemetry, headers: Record<string, string>): unknown {
  const obs = observer(telemetry, headers);
  const upstream = new Headers({ 'content-type': 'application/json' });
  const { attempt, context: ctx } = obs.startAttempt(TARGET, 'https://api.example/v1/chat/completions', upstream);
  const active = RequestObserver.within(ctx, () => trace.getActiveSpan());
  attempt.answered(200);
  attempt.ended();
  return {
    headers: [...upstream.entries()],
    span: spanView(ctx),
    active: active ? { context: active.spanContext(), recording: active.isRecording() } : undefined,
  };
}

function spanView(ctx: Context): unknown {
  const span = trace.getSpan(ctx);
  return span ? { context: span.spanContext(), recording: span.isRecording() } : undefined;
}

const CALLER_HEADERS: Array<Record<string, string>> = [
  {},
  { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  { traceparent: '00-0AF7651916CD43DD8448EB211C80319C-B7AD6B7169203331-00 ' },
  { traceparent: 'ff-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
  { traceparent: '00-00000000000000000000000000000000-b7ad6b7169203331-01' },
  { traceparent: 'garbage' },
  { tracestate: 'a=b' },
];

describe('telemetry without an SDK', () => {
  it('tracingOff: the global proxy without a delegate only; an SDK registered later turns it off', () => {
    const global = new Telemetry();
    expect(global.tracingOff).toBe(true);
    expect(new Telemetry({ tracerProvider: new TracerProvider() }).tracingOff).toBe(false);
    // The API's no-op provider passed in: spans are no-ops, but the slow path runs (nothing to ask).
    expect(new Telemetry({ tracerProvider: new ProxyTracerProvider().getDelegate() }).tracingOff).toBe(false);
    trace.setGlobalTracerProvider(new TracerProvider());
    expect(global.tracingOff).toBe(false);
    expect(new Telemetry().tracingOff).toBe(false);
  });

  it('gives what the no-op tracer gives, for any caller trace headers, with and without a context manager', () => {
    const fast = new Telemetry();
    // The same no-op tracer, not behind the global proxy: always the slow path.
    const slow = new Telemetry({ tracerProvider: new ProxyTracerProvider().getDelegate() });
    expect(fast.tracingOff).toBe(true);
    for (const withManager of [false, true]) {
      if (withManager) context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
      for (const headers of CALLER_HEADERS) expect(attemptView(fast, headers), JSON.stringify({ headers, withManager })).toEqual(attemptView(slow, headers));
    }
    // The caller's trace still travels upstream on the fast telemetry.
    const view = attemptView(fast, { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }) as { headers: Array<[string, string]> };
    expect(view.headers).toContainEqual(['traceparent', '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01']);
  });

  it('an SDK registered after the request started gets the attempt span, and spans for the next request', async () => {
    const telemetry = new Telemetry();
    const obs = observer(telemetry, {});
    const exporter = new InMemorySpanExporter();
    const provider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });
    trace.setGlobalTracerProvider(provider);
    const upstream = new Headers();
    const { attempt } = obs.startAttempt(TARGET, 'https://api.example/v1/chat/completions', upstream);
    attempt.answered(200);
    attempt.ended();
    obs.observe({ status: 200, headers: new Headers(), body: '{}' } as Parameters<RequestObserver['observe']>[0]);
    // The request's server span was a no-op (no SDK when it started); its attempt's span is a new trace.
    expect(upstream.get('traceparent')).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-01$/);
    const next = observer(telemetry, {});
    next.startAttempt(TARGET, 'https://api.example/v1/chat/completions', new Headers()).attempt.ended();
    next.observe({ status: 200, headers: new Headers(), body: '{}' } as Parameters<RequestObserver['observe']>[0]);
    await provider.forceFlush();
    expect(exporter.getFinishedSpans().map((s) => [s.kind, s.name])).toEqual([
      [SpanKind.CLIENT, 'chat gpt-4o'],
      [SpanKind.CLIENT, 'chat gpt-4o'],
      [SpanKind.SERVER, 'POST /v1/chat/completions'],
    ]);
  });
});
