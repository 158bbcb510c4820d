/**
 * The access-log hook's lines: one JSON object (or text line) per request with the request's time
 * to the millisecond (one time string per millisecond, shared by the requests finishing in it),
 * never a key or prompt (the event carries none; the line is built field by field).
 */
import { describe, expect, it } from 'vitest';
import { accessLogger } from '../../node/access-log.js';
import type { ResponseEvent } from '../../src/observability/hooks.js';

const T = Date.UTC(2026, 10, 28, 1, 2, 3, 456);

function event(over: Partial<ResponseEvent> = {}): ResponseEvent {
  return { traceId: 'tr1', method: 'POST', path: '/v1/chat/completions', endpoint: 'POST /v1/chat/completions', route: '/v1/chat/completions', keyId: 'key_a', model: 'gpt', status: 200, latencyMs: 12, usage: { inputTokens: 3, outputTokens: 4 }, costUsd: 0.001, ...over };
}

describe('the access log', () => {
  it('writes one JSON line per request, the time of the millisecond it finished in', () => {
    let now = T;
    const lines: string[] = [];
    const log = accessLogger('json', (l) => lines.push(l), () => now);
    log(event());
    log(event({ traceId: 'tr2', status: 429, error: { code: 'rate_limited', message: 'slow down' } }));
    now = T + 1;
    log(event({ traceId: 'tr3' }));
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(parsed.map((p) => [p.time, p.traceId, p.status])).toEqual([
      ['2026-11-28T01:02:03.456Z', 'tr1', 200],
      ['2026-11-28T01:02:03.456Z', 'tr2', 429],
      ['2026-11-28T01:02:03.457Z', 'tr3', 200],
    ]);
    expect(parsed[0]).toEqual({ time: '2026-11-28T01:02:03.456Z', traceId: 'tr1', method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions', status: 200, latencyMs: 12, keyId: 'key_a', model: 'gpt', inputTokens: 3, outputTokens: 4, costUsd: 0.001 });
    expect(parsed[1]?.error).toBe('rate_limited');
    expect(lines[1]).not.toContain('slow down');
  });

  it('text lines carry the same facts', () => {
    const lines: string[] = [];
    accessLogger('text', (l) => lines.push(l), () => T)(event());
    expect(lines).toEqual(['2026-11-28T01:02:03.456Z POST /v1/chat/completions 200 12ms key=key_a model=gpt tokens=3/4 cost=0.001 trace=tr1']);
  });
});
