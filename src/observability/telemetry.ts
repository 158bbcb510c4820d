/**
 * Tracing and metrics through `@opentelemetry/api` only: a no-op until the host registers an SDK
 * (or passes its own providers), so the core stays runtime-agnostic and costs next to nothing when
 * nobody listens. Instruments follow the OpenTelemetry GenAI semantic conventions where they
 * define one; the gateway's own are named `modelgate.*`.
 */
import {
  createNoopMeter,
  INVALID_SPAN_CONTEXT,
  metrics,
  propagation,
  ProxyTracer,
  ProxyTracerProvider,
  ROOT_CONTEXT,
  trace,
  ValueType,
  type Context,
  type Counter,
  type Histogram,
  type MeterProvider,
  type Span,
  type Tracer,
  type TracerProvider,
  type UpDownCounter,
} from '@opentelemetry/api';
import { ATTR } from './genai.js';

export interface TelemetryOptions {
  /** Where spans go (default: the global tracer provider, a no-op until the host registers an SDK). */
  tracerProvider?: TracerProvider;
  /** Where metrics go (default: the global meter provider, looked up again when the host registers one later). */
  meterProvider?: MeterProvider;
  /**
   * Record prompts and whole answers on the server span (`gen_ai.input.messages`,
   * `gen_ai.output.messages`, secrets scrubbed). Off by default: spans carry no content.
   */
  captureContent?: boolean;
}

const SCOPE = 'modelgate';
const VERSION = '0.1.0';

// Bucket boundaries advised by the GenAI semantic conventions.
const DURATION_BUCKETS = [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864];
const TTFT_BUCKETS = [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1.0, 2.5, 5.0, 7.5, 10.0];
const TPOT_BUCKETS = [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1.0, 2.5];

const DURATION = 'gen_ai.client.operation.duration';
const TTFT = 'gen_ai.server.time_to_first_token';
const TPOT = 'gen_ai.server.time_per_output_token';
/** The instruments measured in seconds (unit `s`): a Prometheus exposition names them with `_seconds`. */
export const SECONDS_INSTRUMENTS: readonly string[] = [DURATION, TTFT, TPOT];

export interface Instruments {
  /** False while the meter provider is the API's no-op: callers then skip building attributes. */
  enabled: boolean;
  /** Requests by method, route, status and error type. */
  requests: Counter;
  /** gen_ai.client.operation.duration, seconds, per model call (retries and fallbacks included). */
  duration: Histogram;
  /** gen_ai.client.token.usage by gen_ai.token.type (input/output). */
  tokens: Histogram;
  /** gen_ai.server.time_to_first_token of streamed answers, seconds. */
  timeToFirstToken: Histogram;
  /** gen_ai.server.time_per_output_token of streamed answers, seconds. */
  timePerOutputToken: Histogram;
  /** Upstream attempts by provider and outcome (success, or the error type). */
  upstreamAttempts: Counter;
  /** Streamed answers being sent right now. */
  openStreams: UpDownCounter;
  /** Video task state changes by the state entered. */
  videoTasks: Counter;
}

const NOOP_COUNTER = createNoopMeter().createCounter('noop');

/** The API's no-op tracer provider: what the global proxy delegates to until an SDK registers. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();

/**
 * What the no-op tracer makes of a span without a parent (a non-recording span with the invalid
 * span context), and the root context holding it: one of each serves every request while no SDK
 * listens, since neither holds state.
 */
export const NOOP_SPAN: Span = trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
export const NOOP_SPAN_CONTEXT: Context = trace.setSpan(ROOT_CONTEXT, NOOP_SPAN);

function createInstruments(provider: MeterProvider): Instruments {
  const meter = provider.getMeter(SCOPE, VERSION);
  const requests = meter.createCounter('modelgate.requests', { description: 'Requests served, by route and status.', unit: '{request}', valueType: ValueType.INT });
  return {
    enabled: requests !== NOOP_COUNTER,
    requests,
    duration: meter.createHistogram(DURATION, {
      description: 'Duration of GenAI operations served through the gateway.',
      unit: 's',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS },
    }),
    tokens: meter.createHistogram('gen_ai.client.token.usage', {
      description: 'Input and output tokens per GenAI operation.',
      unit: '{token}',
      valueType: ValueType.INT,
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    timeToFirstToken: meter.createHistogram(TTFT, {
      description: 'Time from the request to the first streamed token.',
      unit: 's',
      advice: { explicitBucketBoundaries: TTFT_BUCKETS },
    }),
    timePerOutputToken: meter.createHistogram(TPOT, {
      description: 'Time per output token after the first, for streamed answers.',
      unit: 's',
      advice: { explicitBucketBoundaries: TPOT_BUCKETS },
    }),
    upstreamAttempts: meter.createCounter('modelgate.upstream.attempts', { description: 'Upstream attempts (each retry and fallback counts), by outcome.', unit: '{attempt}', valueType: ValueType.INT }),
    openStreams: meter.createUpDownCounter('modelgate.streams.open', { description: 'Streamed answers in progress.', unit: '{stream}', valueType: ValueType.INT }),
    videoTasks: meter.createCounter('modelgate.video.tasks', { description: 'Video task state changes, by the state entered.', unit: '{task}', valueType: ValueType.INT }),
  };
}

/** One per gateway: the tracer, the instruments, the content switch. */
export class Telemetry {
  readonly tracer: Tracer;
  readonly captureContent: boolean;
  private meterProvider: MeterProvider | undefined;
  private cached: Instruments | undefined;
  /** The API's proxy provider when `tracer` is its proxy tracer (no SDK yet when the gateway was made). */
  private readonly proxy: ProxyTracerProvider | undefined;

  constructor(private readonly options: TelemetryOptions = {}) {
    const provider = options.tracerProvider ?? trace.getTracerProvider();
    this.tracer = provider.getTracer(SCOPE, VERSION);
    this.proxy = provider instanceof ProxyTracerProvider && this.tracer instanceof ProxyTracer ? provider : undefined;
    this.captureContent = options.captureContent === true;
  }

  /**
   * True while `tracer` is the API's no-op (no SDK registered yet): every span it starts is then
   * a non-recording one that only carries its parent's span context. Asked per request, so an SDK
   * registered later is heard at once.
   */
  get tracingOff(): boolean {
    return this.proxy !== undefined && this.proxy.getDelegate() === NOOP_TRACER_PROVIDER;
  }

  /** The instruments of the current meter provider (a host that registers its SDK after creating the gateway is still heard). */
  get instruments(): Instruments {
    const provider = this.options.meterProvider ?? metrics.getMeterProvider();
    if (provider !== this.meterProvider || !this.cached) {
      this.meterProvider = provider;
      this.cached = createInstruments(provider);
    }
    return this.cached;
  }

  /** A video task entered `state` (called by the video task service). */
  videoTaskState(state: string, attrs: { model?: string; providerId?: string } = {}): void {
    const m = this.instruments;
    if (!m.enabled) return;
    m.videoTasks.add(1, {
      [ATTR.videoState]: state,
      ...(attrs.model ? { [ATTR.model]: attrs.model } : {}),
      ...(attrs.providerId ? { [ATTR.providerId]: attrs.providerId } : {}),
    });
  }
}

const headerGetter = {
  keys: (h: Headers) => [...h.keys()],
  get: (h: Headers, key: string) => h.get(key) ?? undefined,
};

const headerSetter = {
  set: (h: Headers, key: string, value: string) => h.set(key, value),
};

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(?:-.*)?$/;

/**
 * The caller's trace context from the request headers: the host's registered propagator first;
 * without one (the API's default is a no-op), a W3C `traceparent` is read here, so a caller's
 * trace continues even when the host registered only a tracer provider.
 */
export function extractParent(headers: Headers): Context {
  const extracted = propagation.extract(ROOT_CONTEXT, headers, headerGetter);
  if (trace.getSpanContext(extracted)) return extracted;
  const m = TRACEPARENT.exec((headers.get('traceparent') ?? '').trim().toLowerCase());
  if (!m || m[1] === 'ff' || /^0+$/.test(m[2] as string) || /^0+$/.test(m[3] as string)) return ROOT_CONTEXT;
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: m[2] as string, spanId: m[3] as string, traceFlags: parseInt(m[4] as string, 16) & 1, isRemote: true });
}

/**
 * Writes the trace context of `ctx` (the upstream attempt's span) into upstream request headers.
 * Without a valid span context (no SDK and no caller trace) there is nothing to send.
 */
export function injectContext(ctx: Context, span: Span, headers: Headers): void {
  const sc = span.spanContext();
  if (!trace.isSpanContextValid(sc)) return;
  propagation.inject(ctx, headers, headerSetter);
  if (headers.has('traceparent')) return;
  headers.set('traceparent', `00-${sc.traceId}-${sc.spanId}-${(sc.traceFlags & 1) === 1 ? '01' : '00'}`);
}
