/**
 * The one place a request is observed. The gateway creates a RequestObserver per request; handlers
 * only report what they learn (usage, cost, a mid-stream error, the answer's id and model); the
 * upstream seam opens one attempt per upstream call. The observer fires the host's hooks exactly
 * once each, whatever the route and outcome: `onRequest` right before the first upstream attempt
 * (or, for a request that never goes upstream, right before `onResponse`), `onResponse` when the
 * response is complete (for a streamed body: when it ended, failed or was cancelled by the client).
 * The same moments open and close the server span, the client span of each attempt and the metrics.
 */
import { context, ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Span } from '@opentelemetry/api';
import type { ProtocolName } from '../ir/types.js';
import { ATTR, genAiProviderName, operationOfProtocol, requestSettings, routeFacts, type RequestSettings, type ResponseFacts } from './genai.js';
import { isTextStream, Reply } from '../reply/reply.js';
import { fireHook, type GatewayHooks, type RequestEvent, type ResponseEvent } from './hooks.js';
import { extractParent, injectContext, NOOP_SPAN, NOOP_SPAN_CONTEXT, type Telemetry } from './telemetry.js';
import { finishing, finishingBytes } from './finishing.js';
import { UNOBSERVED, type AttemptTarget, type UpstreamAttempt } from './attempt.js';
import { responseEndOf, responseEventOf, type RequestOutcome, type ResponseEnd } from './response-event.js';

export type { AttemptTarget, UpstreamAttempt } from './attempt.js';

export type { RequestOutcome } from './response-event.js';

export interface ObserverDeps {
  hooks: GatewayHooks;
  now: () => number;
  telemetry: Telemetry;
  /** Secrets scrubbed from captured content (only read when content capture is on). */
  scrub: (text: string) => string;
  /**
   * The usage ledger: handed the facts and the end of every request whose key is known, when the
   * response is complete (it only queues; see control/ledger/ledger-queue.ts).
   */
  ledger?: (event: RequestEvent, end: ResponseEnd) => void;
}

const MAX_CONTENT_CHARS = 64_000;

interface OpenAttempt {
  span: Span;
  ended: boolean;
  /** When the exchange ended (epoch ms): the span ends with this time once the answer's facts are in. */
  doneAt?: number;
}

const epochMs = () => performance.timeOrigin + performance.now();

/** Sets an attribute only when it has a value. */
function put(a: Attributes, key: string, value: string | number | boolean | undefined): void {
  if (value !== undefined) a[key] = value;
}

export class RequestObserver {
  private requested = false;
  private finished = false;
  private readonly outcome: RequestOutcome = {};
  private readonly span: Span;
  private readonly spanContext: Context;
  private upstreamProtocol: ProtocolName | undefined;
  private passthrough: boolean | undefined;
  private body: Record<string, unknown> | undefined;
  private settings: RequestSettings | undefined; // read from `body` only when a recording span needs them
  private response: ResponseFacts = {};
  private attempts = 0;
  private openAttempt: OpenAttempt | undefined;
  private firstTokenAt: number | undefined;
  private firstChunkAt: number | undefined;
  private inputContent: string | undefined;
  private outputContent: string | undefined;
  private serverAddress: string | undefined;
  private providerName: string | undefined;
  /** The model the caller asked for (retries may end on a fallback model: `modelgate.model`). */
  private requestedModel: string | undefined;

  constructor(
    private readonly deps: ObserverDeps,
    /** Filled in as the request is routed (key id, model, provider, warnings). */
    readonly event: RequestEvent,
    readonly startedAt: number,
    headers: Headers,
  ) {
    const parent = extractParent(headers);
    if (parent === ROOT_CONTEXT && deps.telemetry.tracingOff) {
      // What the no-op tracer would start under no parent, without starting it.
      this.span = NOOP_SPAN;
      this.spanContext = NOOP_SPAN_CONTEXT;
      return;
    }
    this.span = deps.telemetry.tracer.startSpan(event.method, { kind: SpanKind.SERVER }, parent);
    if (this.span.isRecording()) this.span.setAttributes({ [ATTR.httpMethod]: event.method, [ATTR.urlPath]: event.path, [ATTR.traceId]: event.traceId });
    this.spanContext = trace.setSpan(parent, this.span);
  }

  /** The request is ready to go upstream: fires onRequest (once). */
  requestReady(): void {
    if (this.requested) return;
    this.requested = true;
    if (this.deps.hooks.onRequest) fireHook(this.deps.hooks.onRequest, Object.assign({}, this.event));
  }

  /** Merges what a handler learned; the last report of a field wins. */
  report(outcome: RequestOutcome): void {
    Object.assign(this.outcome, outcome);
  }

  /** How a model call is routed: the upstream's protocol, and whether bytes pass through untranslated. */
  routed(upstreamProtocol: ProtocolName, passthrough: boolean): void {
    this.upstreamProtocol = upstreamProtocol;
    this.passthrough = passthrough;
  }

  /** The client's parsed request body: max tokens, temperature, top_p (and the prompt, with content capture on). */
  requestBody(body: Record<string, unknown>): void {
    this.body = body;
    this.settings = undefined;
    if (this.deps.telemetry.captureContent && this.span.isRecording()) {
      const messages = body.messages ?? body.contents ?? body.input ?? body.prompt;
      if (messages !== undefined) this.inputContent = this.deps.scrub(JSON.stringify(messages).slice(0, MAX_CONTENT_CHARS));
    }
  }

  /** The answer's id, model and finish reasons (also from a stream's events; a function is called only if a span or metrics hear them); later values win. */
  answer(facts: ResponseFacts | (() => ResponseFacts)): void {
    const more = typeof facts !== 'function' ? facts : this.wantsFacts() ? facts() : undefined;
    // Object.assign rather than spreads (slow on Node 20; see response-event.ts).
    if (more !== undefined) this.response = Object.assign({}, this.response, more);
  }

  /** Whether anyone hears the answer's facts: a recording span, the metrics, or the ledger (for a known key). */
  private wantsFacts(): boolean {
    return (this.deps.ledger !== undefined && this.event.keyId !== undefined) || this.span.isRecording() || this.openAttempt?.span.isRecording() === true || this.deps.telemetry.instruments.enabled;
  }

  /** A whole (non-streamed) answer, for content capture only. */
  answerContent(json: unknown): void {
    if (!this.deps.telemetry.captureContent || !this.span.isRecording()) return;
    this.outputContent = this.deps.scrub(JSON.stringify(json).slice(0, MAX_CONTENT_CHARS));
  }

  /** The first generated token of a stream reached the encoder (time to first token). */
  firstToken(): void {
    if (this.firstTokenAt === undefined) this.firstTokenAt = this.deps.now();
  }

  /**
   * One upstream call starts: a client span under the request's server span, its traceparent set
   * in `headers`, onRequest fired if this is the first. Run the fetch inside `context` so a host's
   * own HTTP instrumentation nests under the attempt.
   */
  startAttempt(target: AttemptTarget, url: string, headers: Headers): { attempt: UpstreamAttempt; context: Context } {
    this.requestReady();
    this.closeAttempt();
    this.attempts += 1;
    this.requestedModel ??= this.event.model;
    const telemetry = this.deps.telemetry;
    this.providerName = genAiProviderName(target.type);
    const metrics = telemetry.instruments;
    if (this.span === NOOP_SPAN && !metrics.enabled && telemetry.tracingOff) {
      // Its span would be a no-op without a trace to carry on, and nothing counts it.
      this.openAttempt = undefined;
      return UNOBSERVED;
    }
    const protocol = this.upstreamProtocol ?? target.chatProtocol;
    // A chat call is named by the upstream's protocol; images and video by the route.
    const operation = this.upstreamProtocol ? operationOfProtocol(protocol) : (routeFacts(this.event.route, this.event.path)?.operation ?? operationOfProtocol(protocol));
    const model = this.event.upstreamModel;
    const span = telemetry.tracer.startSpan(model ? `${operation} ${model}` : operation, { kind: SpanKind.CLIENT }, this.spanContext);
    let port: number | undefined;
    if (span.isRecording() || metrics.enabled) {
      try {
        const u = new URL(url);
        this.serverAddress = u.hostname;
        port = u.port ? Number(u.port) : u.protocol === 'https:' ? 443 : 80;
      } catch {
        // an unparsable URL fails in fetch; the span just lacks the address
      }
    }
    if (span.isRecording()) {
      const a: Attributes = { [ATTR.operation]: operation, [ATTR.providerName]: this.providerName, [ATTR.providerId]: target.id, [ATTR.upstreamProtocol]: protocol, [ATTR.attempt]: this.attempts };
      put(a, ATTR.requestModel, model);
      put(a, ATTR.serverAddress, this.serverAddress);
      put(a, ATTR.serverPort, port);
      this.putSettings(a);
      span.setAttributes(a);
    }
    const open: OpenAttempt = { span, ended: false };
    this.openAttempt = open;
    const ctx = trace.setSpan(this.spanContext, span);
    injectContext(ctx, span, headers);
    const providerName = this.providerName;
    const count = (outcome: string) => {
      if (metrics.enabled) metrics.upstreamAttempts.add(1, { [ATTR.operation]: operation, [ATTR.providerName]: providerName, [ATTR.providerId]: target.id, [ATTR.outcome]: outcome });
    };
    const attempt: UpstreamAttempt = {
      failed: (err) => {
        if (open.ended) return;
        open.ended = true;
        span.setAttribute(ATTR.errorType, err.code);
        if (err.status !== undefined) span.setAttribute(ATTR.httpStatus, err.status);
        span.setStatus({ code: SpanStatusCode.ERROR });
        span.end();
        count(err.code);
      },
      answered: (status) => {
        span.setAttribute(ATTR.httpStatus, status);
        count('success');
      },
      // The answer's id, model and usage are read after the body: the span is ended, with this
      // time, at the next attempt or when the request completes.
      ended: () => {
        open.doneAt ??= epochMs();
        // Work that outlives its response (a background run) ends its attempt's span at once.
        if (this.finished) this.closeAttempt(open);
      },
    };
    return { attempt, context: ctx };
  }

  /** Runs `fn` with an attempt's context active (so a host's own instrumentation of fetch nests under it). */
  static within<T>(ctx: Context, fn: () => T): T {
    return context.with(ctx, fn);
  }

  /** Ends the open attempt's span with what is known of the answer. */
  private closeAttempt(which = this.openAttempt): void {
    if (!which || which.ended) return;
    which.ended = true;
    const span = which.span;
    if (span.isRecording()) {
      const a: Attributes = {};
      this.putAnswer(a);
      if (this.outcome.error) {
        a[ATTR.errorType] = this.outcome.error.code;
        span.setStatus({ code: SpanStatusCode.ERROR });
      }
      span.setAttributes(a);
    }
    span.end(which.doneAt);
  }

  private putSettings(a: Attributes): void {
    const s = (this.settings ??= this.body ? requestSettings(this.body) : {});
    put(a, ATTR.maxTokens, s.maxTokens);
    put(a, ATTR.temperature, s.temperature);
    put(a, ATTR.topP, s.topP);
  }

  private putAnswer(a: Attributes): void {
    const r = this.response;
    const u = this.outcome.usage;
    put(a, ATTR.responseId, r.id);
    put(a, ATTR.responseModel, r.model);
    const fr = this.outcome.finishReason;
    if (r.finishReasons?.length) a[ATTR.finishReasons] = r.finishReasons;
    else if (fr) a[ATTR.finishReasons] = [fr.raw ?? fr.unified];
    put(a, ATTR.inputTokens, u?.inputTokens);
    put(a, ATTR.outputTokens, u?.outputTokens);
  }

  /**
   * The reply leaves the gateway. A body that is already whole (JSON, error, empty) completes the
   * request now; a streamed body is wrapped so the request completes when it ends, fails or is
   * cancelled. `ended`, when given, is called once, as soon as a streamed body is over or the
   * client cancels it (before onResponse).
   */
  observe(reply: Reply, ended?: () => void): Reply {
    const body = reply.body;
    const textStream = isTextStream(body);
    if (!textStream && !(body instanceof ReadableStream)) {
      this.finish(reply.status);
      return reply;
    }
    const metrics = this.deps.telemetry.instruments;
    const streamAttrs = metrics.enabled ? this.metricBase() : undefined;
    if (streamAttrs) metrics.openStreams.add(1, streamAttrs);
    // `ended` runs once: on the client's cancel or at the finish, whichever comes first.
    let end = ended;
    const finish = () => {
      if (this.finished) return;
      if (streamAttrs) metrics.openStreams.add(-1, streamAttrs);
      if (end) {
        const f = end;
        end = undefined;
        f();
      }
      this.finish(reply.status);
    };
    const chunkSeen = () => {
      if (this.firstChunkAt === undefined) this.firstChunkAt = this.deps.now();
    };
    if (textStream) {
      const cancel = ended
        ? () => {
            body.cancel();
            const f = end;
            end = undefined;
            f?.();
          }
        : body.cancel;
      return new Reply(reply.status, reply.headers, { ...body, chunks: finishing(body.chunks, chunkSeen, finish), cancel });
    }
    const wrapped = finishingBytes(body, chunkSeen, finish);
    return new Reply(reply.status, reply.headers, wrapped);
  }

  private metricBase(): Attributes {
    return { [ATTR.httpMethod]: this.event.method, [ATTR.httpRoute]: this.event.route ?? 'unknown' };
  }

  /** Fires onResponse (once), after onRequest if that has not fired yet; ends the spans; records the metrics. */
  private finish(status: number): void {
    if (this.finished) return;
    this.finished = true;
    this.requestReady();
    const now = this.deps.now();
    const latencyMs = now - this.startedAt;
    const o = this.outcome;
    this.closeAttempt();
    this.record(status, latencyMs, now);
    const hook = this.deps.hooks.onResponse;
    const ledger = this.event.keyId !== undefined ? this.deps.ledger : undefined;
    if (!hook && !ledger) return;
    const e = this.event;
    const first = e.stream ? (this.firstTokenAt ?? this.firstChunkAt) : undefined;
    const protocol = routeFacts(e.route, e.path)?.clientProtocol;
    const ttftMs = first !== undefined ? first - this.startedAt : undefined;
    const facts = { resolvedModel: this.response.model, protocol, ttftMs };
    if (ledger) {
      try {
        ledger(e, responseEndOf(status, latencyMs, o, facts));
      } catch {
        // the ledger only queues; nothing it does may break the request
      }
    }
    if (hook) fireHook(hook, responseEventOf(e, status, latencyMs, o, facts));
  }

  private record(status: number, latencyMs: number, now: number): void {
    const e = this.event;
    const o = this.outcome;
    const facts = routeFacts(e.route, e.path);
    const errorType = o.error?.code ?? (status >= 500 ? String(status) : undefined);
    const span = this.span;
    if (span.isRecording()) {
      span.updateName(e.route ? `${e.method} ${e.route}` : e.method);
      const a: Attributes = { [ATTR.httpStatus]: status };
      put(a, ATTR.httpRoute, e.route);
      put(a, ATTR.keyId, e.keyId);
      put(a, ATTR.clientProtocol, facts?.clientProtocol);
      if (facts?.operation && e.model) a[ATTR.operation] = facts.operation;
      put(a, ATTR.requestModel, this.requestedModel ?? e.model);
      put(a, ATTR.model, e.model);
      put(a, ATTR.providerId, e.provider);
      put(a, ATTR.providerName, this.providerName);
      put(a, ATTR.upstreamProtocol, this.upstreamProtocol);
      put(a, ATTR.passthrough, this.passthrough);
      put(a, ATTR.stream, e.stream);
      put(a, ATTR.streamCompleted, o.streamCompleted);
      if (this.attempts) a[ATTR.attempt] = this.attempts;
      put(a, ATTR.serverAddress, this.serverAddress);
      put(a, ATTR.errorType, errorType);
      put(a, ATTR.inputMessages, this.inputContent);
      put(a, ATTR.outputMessages, this.outputContent);
      this.putSettings(a);
      this.putAnswer(a);
      span.setAttributes(a);
      if (errorType && (status >= 500 || o.error)) span.setStatus({ code: SpanStatusCode.ERROR, message: o.error?.message ?? `HTTP ${status}` });
    }
    span.end();

    const m = this.deps.telemetry.instruments;
    if (!m.enabled) return;
    const req: Attributes = { [ATTR.httpMethod]: e.method, [ATTR.httpRoute]: e.route ?? 'unknown', [ATTR.httpStatus]: status };
    put(req, ATTR.errorType, errorType);
    m.requests.add(1, req);
    if (!facts?.operation || !e.model) return;
    const genAi: Attributes = { [ATTR.operation]: facts.operation, [ATTR.requestModel]: this.requestedModel ?? e.model };
    put(genAi, ATTR.providerId, e.provider);
    put(genAi, ATTR.providerName, this.providerName);
    put(genAi, ATTR.responseModel, this.response.model);
    put(genAi, ATTR.serverAddress, this.serverAddress);
    const duration = errorType ? { ...genAi, [ATTR.errorType]: errorType } : genAi;
    m.duration.record(latencyMs / 1000, duration);
    const u = o.usage;
    if (u?.inputTokens !== undefined) m.tokens.record(u.inputTokens, { ...genAi, [ATTR.tokenType]: 'input' });
    if (u?.outputTokens !== undefined) m.tokens.record(u.outputTokens, { ...genAi, [ATTR.tokenType]: 'output' });
    if (!e.stream) return;
    const first = this.firstTokenAt ?? this.firstChunkAt;
    if (first === undefined) return;
    m.timeToFirstToken.record((first - this.startedAt) / 1000, genAi);
    const out = u?.outputTokens;
    if (out !== undefined && out > 1 && o.streamCompleted !== false) m.timePerOutputToken.record((now - first) / 1000 / (out - 1), genAi);
  }
}
