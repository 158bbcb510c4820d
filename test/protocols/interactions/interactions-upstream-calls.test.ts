/**
 * Cancel and delete of Gemini's own copy of a stored interaction go the way every upstream call
 * goes: a client span under the request's (with the upstream's status), the provider's credential
 * (or the caller's own), redirects refused; and when Gemini fails them, the gateway's record is
 * still cancelled or deleted, and the failure is a warning through the gateway's logger, not lost.
 * Through the shipped node server, the official @google/genai client and the Gemini mock.
 */
import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider, type ReadableSpan } from '@opentelemetry/sdk-trace';
import type { GoogleGenAI } from '@google/genai';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { closeInteractionMocks, eventually, rawCall, startInteractionMocks, startInteractionsGateway, type InteractionsGateway, type InteractionsMocks } from '../../helpers/interactions-gateway.js';

let mocks: InteractionsMocks;
let gw: InteractionsGateway;
let ai: GoogleGenAI;
const warnings: string[] = [];
const exporter = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter })] });

beforeAll(async () => {
  mocks = await startInteractionMocks();
  gw = await startInteractionsGateway(mocks, { logger: { warn: (m) => warnings.push(m) }, telemetry: { tracerProvider } });
  ai = gw.client();
});
afterAll(async () => {
  await gw?.close();
  await closeInteractionMocks(mocks);
});
beforeEach(() => {
  warnings.length = 0;
  exporter.reset();
});

/** The client spans of calls to `path` at the Gemini mock (by their status and provider). */
function upstreamSpans(): ReadableSpan[] {
  return exporter.getFinishedSpans().filter((s) => s.kind === SpanKind.CLIENT && s.attributes['modelgate.provider.id'] === 'google');
}

async function status(id: string): Promise<string> {
  const res = await rawCall(gw.server.url, 'GET', `/v1beta/interactions/${id}`);
  return ((await res.json()) as { status: string }).status;
}

describe('delete of a Gemini pass-through interaction', () => {
  it('reaches Gemini with the provider credential, under a client span', async () => {
    const r = await ai.interactions.create({ model: 'gemini', input: 'forget me' });
    const upstreamId = [...mocks.gemini.interactions.interactions.keys()].at(-1) as string;
    exporter.reset();
    await ai.interactions.delete(r.id);
    const sent = mocks.gemini.requests.at(-1);
    expect(sent).toMatchObject({ method: 'DELETE', path: `/v1beta/interactions/${upstreamId}` });
    expect(sent?.headers['x-goog-api-key']).toBe(mocks.gemini.apiKey);
    expect(mocks.gemini.interactions.interactions.has(upstreamId)).toBe(false);
    const span = upstreamSpans().at(-1);
    expect(span?.attributes['http.response.status_code']).toBe(200);
    expect(warnings).toEqual([]);
  });

  it('a failing Gemini delete: the record is deleted anyway, a warning is logged, the span has the error', async () => {
    const r = await ai.interactions.create({ model: 'gemini', input: 'forget me too' });
    exporter.reset();
    mocks.gemini.failNext(500, { error: { code: 500, message: 'backend exploded', status: 'INTERNAL' } });
    await ai.interactions.delete(r.id);
    expect((await rawCall(gw.server.url, 'GET', `/v1beta/interactions/${r.id}`)).status).toBe(404);
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatch(/the delete of the interaction '[^']+' at provider 'google' failed \(upstream_error: Upstream provider 'google' returned 500: backend exploded\)/);
    expect(warnings[0]).not.toContain(mocks.gemini.apiKey);
    const span = upstreamSpans().at(-1);
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(span?.attributes['http.response.status_code']).toBe(500);
    expect(span?.attributes['error.type']).toBe('upstream_error');
  });
});

describe('cancel of a Gemini pass-through background interaction', () => {
  it('a failing Gemini cancel: the interaction is cancelled at the gateway, a warning is logged, the span has the error', async () => {
    mocks.gemini.interactions.holdNext();
    const r = await ai.interactions.create({ model: 'gemini', input: 'long task to cancel', background: true });
    const upstream = await eventually(
      async () => [...mocks.gemini.interactions.interactions.values()].find((i) => JSON.stringify(i.inputSteps).includes('long task to cancel')),
      (i) => i !== undefined && i.status === 'in_progress',
    );
    await eventually(() => status(r.id), (s) => s === 'in_progress');
    exporter.reset();
    mocks.gemini.failNext(503, { error: { code: 503, message: 'try later', status: 'UNAVAILABLE' } });
    const cancelled = await ai.interactions.cancel(r.id);
    expect(cancelled.status).toBe('cancelled');
    await eventually(async () => warnings.length, (n) => n > 0);
    expect(mocks.gemini.requests.some((q) => q.method === 'POST' && q.path === `/v1beta/interactions/${upstream!.id}/cancel`)).toBe(true);
    expect(warnings[0]).toMatch(/the cancel of the interaction '[^']+' at provider 'google' failed \(unavailable: Upstream provider 'google' returned 503: try later\)/);
    const span = await eventually(async () => upstreamSpans().find((s) => s.attributes['http.response.status_code'] === 503), (s) => s !== undefined);
    expect(span?.status.code).toBe(SpanStatusCode.ERROR);
    expect(await status(r.id)).toBe('cancelled');
  });
});
