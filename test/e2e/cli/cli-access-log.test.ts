/**
 * The standalone server's access log on shutdown (`node dist/node/cli.js`, as `npm start` runs
 * it): lines go through a buffered asynchronous writer, and every line of every request is there
 * after a SIGTERM/SIGINT shutdown, also when the reader of stdout is slower than the server (a
 * full pipe) and for requests still in flight when the signal came; `--access-log FILE` appends
 * them to a file instead. No line holds a key or a prompt.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanEnv, ensureCliBuilt, spawnCli } from '../../helpers/cli-process.js';
import { stopChild } from '../../helpers/hosts.js';
import { startMockOpenAI, type MockOpenAI } from '../../helpers/mock-openai.js';
import { postJson } from '../../helpers/requests.js';

const KEY = 'mg-cli-access-log-key-0001';
const WRONG_KEY = 'mg-wrong-access-log-key-01';
const PROMPT = 'seven turquoise herons';

let mock: MockOpenAI;
let dir: string;
let config: string;
const children: ChildProcess[] = [];

beforeAll(async () => {
  await ensureCliBuilt();
  mock = await startMockOpenAI();
  dir = mkdtempSync(join(tmpdir(), 'mg-cli-access-log-'));
  config = join(dir, 'config.json');
  writeFileSync(
    config,
    JSON.stringify({
      providers: [{ id: 'openai', type: 'openai', baseURL: mock.baseURL, apiKey: mock.apiKey }],
      models: [{ id: 'gpt-4o', provider: 'openai', pricing: { inputPerMTok: 2.5, outputPerMTok: 10 } }],
      keys: [{ id: 'team-log', key: KEY }],
    }),
  );
}, 120_000);
afterAll(async () => {
  for (const c of children) await stopChild(c);
  await mock?.close();
});

const chat = (url: string, body: Record<string, unknown>, key = KEY): Promise<Response> => postJson(`${url}/v1/chat/completions`, body, { key });

function jsonLines(text: string): Array<Record<string, unknown>> {
  return text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}

/** `count` requests, `parallel` at a time: every fifth with a wrong key (401). Returns the trace ids with their status. */
async function traffic(url: string, count: number, parallel: number): Promise<Map<string, number>> {
  const traces = new Map<string, number>();
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const res = await chat(url, { model: 'gpt-4o', messages: [{ role: 'user', content: `${PROMPT} ${i}` }] }, i % 5 === 4 ? WRONG_KEY : KEY);
      await res.arrayBuffer();
      traces.set(res.headers.get('x-trace-id') as string, res.status);
    }
  };
  await Promise.all(Array.from({ length: parallel }, worker));
  return traces;
}

function expectLinesFor(lines: Array<Record<string, unknown>>, traces: Map<string, number>): void {
  expect(lines).toHaveLength(traces.size);
  const logged = new Map(lines.map((l) => [l.traceId as string, l]));
  for (const [trace, status] of traces) {
    const line = logged.get(trace);
    expect(line, `no line for trace ${trace}`).toBeDefined();
    expect(line?.status).toBe(status);
    if (status === 200) expect(line).toMatchObject({ method: 'POST', path: '/v1/chat/completions', keyId: 'team-log', model: 'gpt-4o', provider: 'openai', inputTokens: expect.any(Number) });
    else expect(line).toMatchObject({ status: 401, error: 'authentication' });
  }
}

describe('access log on shutdown', () => {
  it('after SIGTERM, stdout holds a line for every request even when its reader lagged behind (a full pipe)', async () => {
    const child = spawn(process.execPath, [CLI, '--port', '0', '--host', '127.0.0.1', '--config', config], { env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (out += c.toString()));
    const url = await new Promise<string>((resolve, reject) => {
      const onData = () => {
        const m = /listening on (http\S+)/.exec(out);
        if (m) {
          child.stdout.off('data', onData);
          resolve(m[1] as string);
        }
      };
      child.stdout.on('data', onData);
      child.once('exit', (code) => reject(new Error(`exited with ${code}: ${out}`)));
    });
    // The reader stops: the pipe (and this side's buffer) fill up with lines the server still has to write.
    child.stdout.pause();
    const traces = await traffic(url, 800, 24);
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    // The server is done with every request and would exit now; the reader comes back only later.
    await new Promise((r) => setTimeout(r, 500));
    child.stdout.resume();
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);
    expectLinesFor(jsonLines(out), traces);
    expect(out).toContain('modelgate: SIGTERM received');
    expect(out).toContain('modelgate: stopped.');
    for (const secret of [KEY, WRONG_KEY, mock.apiKey, PROMPT]) expect(out).not.toContain(secret);
  }, 120_000);

  it('--access-log FILE: every line is in the file after SIGINT, also of a stream still running when the signal came', async () => {
    const file = join(dir, 'access.log');
    writeFileSync(file, '{"earlier":"line"}\n');
    const { url, child, output } = await spawnCli(['--config', config, '--access-log', file], { MODELGATE_SHUTDOWN_MS: '30000' });
    children.push(child);
    const traces = await traffic(url, 60, 6);

    const pause = mock.pauseStreamNext();
    const res = await chat(url, { model: 'gpt-4o', stream: true, messages: [{ role: 'user', content: PROMPT }] });
    traces.set(res.headers.get('x-trace-id') as string, 200);
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    await reader.read();
    const exited = once(child, 'exit');
    child.kill('SIGINT');
    await expect.poll(() => output()).toContain('SIGINT received');
    pause.release();
    while (!(await reader.read()).done);
    const [code] = (await exited) as [number | null];
    expect(code).toBe(0);

    const text = readFileSync(file, 'utf8');
    const [earlier, ...lines] = jsonLines(text);
    expect(earlier).toEqual({ earlier: 'line' });
    expectLinesFor(lines, traces);
    expect(lines.at(-1)).toMatchObject({ stream: true, streamCompleted: true, status: 200 });
    for (const secret of [KEY, WRONG_KEY, mock.apiKey, PROMPT]) expect(text).not.toContain(secret);
    // Nothing of it on stdout.
    expect(jsonLines(output())).toHaveLength(0);
  }, 120_000);

  it('refuses an --access-log file that cannot be opened, naming the flag', async () => {
    await expect(spawnCli(['--config', config, '--access-log', join(dir, 'missing-dir', 'access.log')], {})).rejects.toThrow(/--access-log \(MODELGATE_ACCESS_LOG\): cannot open .*missing-dir/);
  });
});
