/**
 * The standalone server observable out of the box (`node dist/node/cli.js`, as `npm start` runs
 * it): one access-log line per request on stdout (JSON by default, text with --log-format text,
 * none with --quiet) that never holds a key or a prompt; the Prometheus scrape endpoint on
 * --metrics-port; GET /healthz and GET /readyz on the main port (readiness follows Redis).
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';
import { startTcpRelay, type TcpRelay } from '../../helpers/tcp-relay.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { postJson } from '../../helpers/requests.js';

const KEY = 'mg-cli-observability-key-01';
const PROMPT = 'purple elephants dance at midnight';
const REDIS_URL = process.env.REDIS_URL;
if (!REDIS_URL) console.warn('[cli-observability.test] REDIS_URL is not set: the /readyz-with-Redis case is skipped (set REDIS_URL=redis://127.0.0.1:6379 to run it).');

let mock: MockOpenAI;
let config: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  mock = await startMockOpenAI();
  const dir = mkdtempSync(join(tmpdir(), 'mg-cli-obs-'));
  config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
      models: [{ id: 'gpt-4o', provider: 'openai', pricing: { inputPerMTok: 2.5, outputPerMTok: 10 } }],
      keys: [{ id: 'team-obs', key: KEY }],
    }),
  );
}, 120_000);
afterAll(async () => {
  for (const c of children) await stopChild(c);
  await mock?.close();
});

async function start(args: string[], env: Record<string, string> = {}) {
  const started = await spawnCli(['--config', config, ...args], env);
  children.push(started.child);
  return started;
}

const chat = (url: string, body: Record<string, unknown>, key = KEY): Promise<Response> => postJson(`${url}/v1/chat/completions`, body, { key });

/** The JSON lines of the output (the startup lines are plain text). */
function jsonLines(output: string): Array<Record<string, unknown>> {
  return output
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

describe('access log, metrics port, health endpoints', () => {
  it('writes one JSON line per request (no key, no prompt) and serves Prometheus metrics on --metrics-port', async () => {
    const { url, output, child } = await start(['--metrics-port', '0']);
    const metricsUrl = /metrics at (http\S+)/.exec(output())?.[1];
    expect(metricsUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);

    const sync = await chat(url, { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] });
    expect(sync.status).toBe(200);
    await sync.text();
    const stream = await chat(url, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: PROMPT }] });
    await stream.text();
    const denied = await chat(url, { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] }, 'mg-wrong-key-0000000001');
    expect(denied.status).toBe(401);
    await denied.text();
    const health = await fetch(`${url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok' });

    const scrape = await fetch(metricsUrl as string);
    expect(scrape.status).toBe(200);
    expect(scrape.headers.get('content-type')).toContain('text/plain; version=0.0.4');
    const text = await scrape.text();
    expect(text).toContain('# TYPE modelgate_requests_total counter');
    expect(text).toContain('modelgate_requests_total{http_request_method="POST",http_route="/v1/chat/completions",http_response_status_code="200"} 2');
    expect(text).toMatch(/modelgate_requests_total\{http_request_method="POST",http_route="\/v1\/chat\/completions",http_response_status_code="401",error_type="authentication"\} 1/);
    expect(text).toContain('# TYPE gen_ai_client_operation_duration_seconds histogram');
    // The sync answer and the stream name the same concrete model: one series, 10 input tokens each.
    expect(text).toMatch(/gen_ai_client_token_usage_sum\{[^}]*gen_ai_response_model="gpt-4o-2024-08-06"[^}]*gen_ai_token_type="input"\} 20\n/);
    expect(text).toMatch(/gen_ai_client_token_usage_count\{[^}]*gen_ai_token_type="input"\} 2\n/);
    expect(text).toMatch(/gen_ai_server_time_to_first_token_seconds_count\{[^}]*\} 1\n/);
    expect(text).toMatch(/modelgate_streams_open\{[^}]*\} 0\n/);
    expect(text).toMatch(/modelgate_upstream_attempts_total\{[^}]*modelgate_outcome="success"\} 2\n/);
    expect((await fetch(metricsUrl!.replace('/metrics', '/other'))).status).toBe(404);

    await stopChild(child);
    const lines = jsonLines(output());
    expect(lines).toHaveLength(3);
    const [first, second, third] = lines;
    expect(first).toMatchObject({ method: 'POST', path: '/v1/chat/completions', route: '/v1/chat/completions', status: 200, keyId: 'team-obs', model: 'gpt-4o', provider: 'openai', stream: false, inputTokens: 10 });
    expect(first?.traceId).toBe(sync.headers.get('x-trace-id'));
    expect(typeof first?.latencyMs).toBe('number');
    expect(first?.costUsd).toBeGreaterThan(0);
    expect(Number.isNaN(Date.parse(String(first?.time)))).toBe(false);
    expect(second).toMatchObject({ status: 200, stream: true, streamCompleted: true, inputTokens: 10 });
    expect(third).toMatchObject({ status: 401, error: 'authentication' });
    expect(third?.keyId).toBeUndefined();
    const all = output();
    for (const secret of [KEY, mock.apiKey, 'mg-wrong-key-0000000001', 'purple elephants']) expect(all).not.toContain(secret);
  });

  it('--log-format text writes one readable line per request; --quiet writes none', async () => {
    const text = await start(['--log-format', 'text']);
    await (await chat(text.url, { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] })).text();
    await stopChild(text.child);
    const lines = text.output().split('\n').filter((l) => / POST \/v1\/chat\/completions /.test(l));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^\d{4}-\d\d-\d\dT\S+Z POST \/v1\/chat\/completions 200 \d+ms key=team-obs model=gpt-4o provider=openai tokens=10\/\d+ cost=[\d.e-]+ trace=[0-9a-f]{32}$/);
    expect(jsonLines(text.output())).toHaveLength(0);

    const quiet = await start(['--quiet']);
    const res = await chat(quiet.url, { model: 'gpt-4o', messages: [{ role: 'user', content: PROMPT }] });
    expect(res.status).toBe(200);
    await res.text();
    await stopChild(quiet.child);
    expect(jsonLines(quiet.output())).toHaveLength(0);
    expect(quiet.output()).not.toContain('/v1/chat/completions');
  });

  it('refuses a bad --log-format or --metrics-port with a message naming the flag', async () => {
    await expect(start(['--log-format', 'xml'])).rejects.toThrow(/--log-format must be json or text/);
    await expect(start(['--metrics-port', 'abc'])).rejects.toThrow(/--metrics-port .* must be 0-65535/);
  });
});

describe.skipIf(!REDIS_URL)('/readyz with Redis', () => {
  let relay: TcpRelay | undefined;
  afterAll(() => {
    void relay?.cut();
  });

  it('is ready while Redis answers and answers 503 naming Redis once it does not; /healthz stays 200', async () => {
    const target = new URL(REDIS_URL ?? 'redis://127.0.0.1:6379');
    relay = await startTcpRelay(target, 6379);
    const port = relay.port;
    const { url } = await start([], { REDIS_URL: `redis://127.0.0.1:${port}`, MODELGATE_REDIS_PREFIX: `mg-readyz-${Date.now()}:` });
    const ready = await fetch(`${url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: 'ok', checks: { redis: 'ok' } });

    await relay.cut();
    const down = await fetch(`${url}/readyz`);
    expect(down.status).toBe(503);
    expect(await down.json()).toEqual({ status: 'unavailable', checks: { redis: 'unreachable' } });
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
  });
});
