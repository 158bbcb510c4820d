/**
 * The standalone server's Prometheus endpoint (node/prometheus.ts) over the gateway's own
 * instruments: every instrument measured in seconds is named with `_seconds`, counters end in
 * `_total`, the series carry only the gateway's labels (no otel_scope_*, no target_info), and the
 * endpoint answers 404 off /metrics, 405 to other methods, and an empty body to HEAD.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { serveMetrics, type MetricsEndpoint } from '../../node/prometheus.js';
import { SECONDS_INSTRUMENTS, Telemetry } from '../../src/observability/telemetry.js';

let endpoint: MetricsEndpoint;
let text: string;

beforeAll(async () => {
  endpoint = await serveMetrics(0, '127.0.0.1');
  const m = new Telemetry({ meterProvider: endpoint.meterProvider }).instruments;
  const attrs = { 'gen_ai.operation.name': 'chat', 'gen_ai.request.model': 'gpt-4o' };
  m.requests.add(3, { 'http.request.method': 'POST', 'http.route': '/v1/chat/completions', 'http.response.status_code': 200 });
  m.duration.record(0.05, attrs);
  m.timeToFirstToken.record(0.2, attrs);
  m.timePerOutputToken.record(0.02, attrs);
  m.tokens.record(12, { ...attrs, 'gen_ai.token.type': 'input' });
  m.openStreams.add(2, attrs);
  m.openStreams.add(-1, attrs);
  m.upstreamAttempts.add(1, { 'modelgate.outcome': 'success' });
  const res = await fetch(endpoint.url);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  text = await res.text();
});
afterAll(async () => {
  await endpoint?.close();
});

describe('Prometheus exposition', () => {
  it('names each instrument measured in seconds with _seconds, and no other', () => {
    expect(SECONDS_INSTRUMENTS).toHaveLength(3);
    for (const name of SECONDS_INSTRUMENTS) expect(text).toContain(`# TYPE ${name.replace(/\./g, '_')}_seconds histogram\n`);
    const secondsUnits = [...text.matchAll(/^# UNIT (\S+) s$/gm)].map((m) => m[1]);
    expect(secondsUnits.sort()).toEqual(['gen_ai_client_operation_duration_seconds', 'gen_ai_server_time_per_output_token_seconds', 'gen_ai_server_time_to_first_token_seconds']);
    expect(text).toContain('# TYPE gen_ai_client_token_usage histogram\n');
  });

  it('writes counters, gauges and histogram series with only the gateway labels', () => {
    expect(text).toContain('# TYPE modelgate_requests_total counter\n');
    expect(text).toContain('modelgate_requests_total{http_request_method="POST",http_route="/v1/chat/completions",http_response_status_code="200"} 3\n');
    expect(text).toContain('# TYPE modelgate_streams_open gauge\n');
    expect(text).toContain('modelgate_streams_open{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o"} 1\n');
    expect(text).toContain('modelgate_upstream_attempts_total{modelgate_outcome="success"} 1\n');
    expect(text).toContain('gen_ai_client_operation_duration_seconds_bucket{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o",le="0.08"} 1\n');
    expect(text).toContain('gen_ai_client_operation_duration_seconds_bucket{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o",le="0.04"} 0\n');
    expect(text).toContain('gen_ai_client_operation_duration_seconds_bucket{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o",le="+Inf"} 1\n');
    expect(text).toContain('gen_ai_client_operation_duration_seconds_count{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o"} 1\n');
    expect(text).toContain('gen_ai_client_token_usage_sum{gen_ai_operation_name="chat",gen_ai_request_model="gpt-4o",gen_ai_token_type="input"} 12\n');
    expect(text).not.toContain('otel_scope');
    expect(text).not.toContain('target_info');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('answers 404 off /metrics, 405 to POST and an empty 200 to HEAD', async () => {
    const other = await fetch(endpoint.url.replace('/metrics', '/other'));
    expect(other.status).toBe(404);
    expect(await other.text()).toBe('Not found; metrics are at /metrics\n');
    const post = await fetch(endpoint.url, { method: 'POST' });
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toBe('GET, HEAD');
    await post.text();
    const head = await fetch(endpoint.url, { method: 'HEAD' });
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});
