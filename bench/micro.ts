/**
 * In-process micro benchmark of the gateway's own work per request: `gateway.bridge.reply()` with the
 * node bridge's request object and an upstream fetch that answers at once from memory (the node
 * client's Response class), so no socket, no HTTP parser and no load generator share the numbers.
 * It tells which change moves the gateway's CPU per request; `npm run bench` tells what a
 * deployment gets. Usage:
 *   node --import tsx bench/micro.ts [scenario] [rounds]      (scenario: sync | stream | to-anthropic-sync | to-anthropic-stream | anthropic-to-openai-sync | anthropic-to-openai-stream)
 * MICRO_CONCURRENCY (default 64) requests are in flight at a time, as at 64 connections.
 * MICRO_VIA=handle measures `gateway.handle()` instead, reading the Fetch Response's body (the
 * path of Bun, Deno, Workers and the fetch adapter: the stream writer's ReadableStream sink).
 * MICRO_CONTROL=sqlite turns the control plane on (a SQLite store, the key from it, a ledger row per
 * request); MICRO_ACCESS_LOG=1 adds the standalone server's access-log hook (lines built, dropped),
 * MICRO_ACCESS_LOG=file the same hook writing to a temp file through the server's writer
 * (line-writer.ts, batched as `--access-log FILE` is): what the access log costs, writes included.
 */
import { nodeRequest } from '../adapters/node-request.js';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { accessLogger } from '../node/access-log.js';
import { ACCESS_LOG_BATCHING, createLineWriter } from '../node/line-writer.js';
import { createGateway } from '../src/gateway/gateway.js';
import { isTextStream, type Reply } from '../src/reply/reply.js';
import { UpstreamBody, upstreamResponse } from '../node/upstream-response.js';
import { gatewayConfig, MODEL_VIA_ANTHROPIC, MODEL_VIA_OPENAI, PLATFORM_KEY, REPLY_WORDS } from './settings.js';
import { anthropicBody, openAIBody } from './scenarios.js';

const TEXT = REPLY_WORDS.join('');
const OPENAI_SYNC = JSON.stringify({
  id: 'chatcmpl-bench',
  object: 'chat.completion',
  created: 1_700_000_000,
  model: 'gpt-bench',
  choices: [{ index: 0, message: { role: 'assistant', content: TEXT, refusal: null }, logprobs: null, finish_reason: 'stop' }],
  usage: { prompt_tokens: 30, completion_tokens: 9, total_tokens: 39 },
});
const ANTHROPIC_SYNC = JSON.stringify({
  id: 'msg_bench',
  type: 'message',
  role: 'assistant',
  model: 'claude-bench',
  content: [{ type: 'text', text: TEXT }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: { input_tokens: 30, output_tokens: 9 },
});
function openAIStream(): string[] {
  const head = '{"id":"chatcmpl-bench","object":"chat.completion.chunk","created":1700000000,"model":"gpt-bench",';
  const frame = (choices: string, extra = '') => `data: ${head}"choices":${choices}${extra}}\n\n`;
  const choice = (delta: string, finish: string | null) => `[{"index":0,"delta":${delta},"logprobs":null,"finish_reason":${finish === null ? 'null' : JSON.stringify(finish)}}]`;
  return [
    frame(choice('{"role":"assistant","content":""}', null)),
    ...REPLY_WORDS.map((w) => frame(choice(`{"content":${JSON.stringify(w)}}`, null))),
    frame(choice('{}', 'stop')),
    frame('[]', ',"usage":{"prompt_tokens":30,"completion_tokens":9,"total_tokens":39}'),
    'data: [DONE]\n\n',
  ];
}
function anthropicStream(): string[] {
  const ev = (type: string, data: object) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;
  return [
    ev('message_start', { message: { id: 'msg_bench', type: 'message', role: 'assistant', model: 'claude-bench', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 30, output_tokens: 1 } } }),
    ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } }),
    ...REPLY_WORDS.map((w) => ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: w } })),
    ev('content_block_stop', { index: 0 }),
    ev('message_delta', { delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 9 } }),
    ev('message_stop', {}),
  ];
}

const scenarios = {
  sync: { model: MODEL_VIA_OPENAI, stream: false, answer: [OPENAI_SYNC] },
  stream: { model: MODEL_VIA_OPENAI, stream: true, answer: openAIStream() },
  'to-anthropic-sync': { model: MODEL_VIA_ANTHROPIC, stream: false, answer: [ANTHROPIC_SYNC] },
  'to-anthropic-stream': { model: MODEL_VIA_ANTHROPIC, stream: true, answer: anthropicStream() },
  'anthropic-to-openai-sync': { model: MODEL_VIA_OPENAI, stream: false, answer: [OPENAI_SYNC], client: 'anthropic' },
  'anthropic-to-openai-stream': { model: MODEL_VIA_OPENAI, stream: true, answer: openAIStream(), client: 'anthropic' },
} as const;
type ScenarioId = keyof typeof scenarios;

const id = (process.argv[2] ?? 'sync') as ScenarioId;
const scenario = scenarios[id];
if (!scenario) throw new Error(`scenario must be one of ${Object.keys(scenarios).join(', ')}`);
const rounds = Number(process.argv[3] ?? 7);
const concurrency = Number(process.env.MICRO_CONCURRENCY ?? 64);
const perRound = Number(process.env.MICRO_REQUESTS ?? 20_000);

const chunks = scenario.answer.map((s) => Buffer.from(s));
const contentType = scenario.stream ? 'text/event-stream' : 'application/json';
const answer = async (_url: string | URL, init?: RequestInit): Promise<Response> => {
  // The request body is what the real client would write.
  if (typeof init?.body !== 'string') throw new Error('expected a string body');
  const body = new UpstreamBody(
    () => {},
    () => {},
  );
  const res = upstreamResponse(200, [['content-type', contentType]], body);
  // The chunks arrive on later turns, as from a socket.
  setImmediate(() => {
    for (const c of chunks) body.push(c);
    body.end();
  });
  return res;
};
// Taking an abort hook as createUndiciFetch does: the gateway then builds no AbortSignal per call.
const fetch = Object.assign(answer, { fetchWithAbortHook: (url: string | URL, init: RequestInit) => answer(url, init) });

// MICRO_CONTROL=sqlite: the control plane on as the standalone server has it (a SQLite file in a
// temp dir, the key from the store, every request a ledger row), to see what it costs per request.
const opened = process.env.MICRO_CONTROL === 'sqlite' ? await (await import('./control-store.js')).openBenchControlStore('micro') : undefined;
const platformKey = opened?.platformKey ?? PLATFORM_KEY;
const baseConfig = gatewayConfig('http://127.0.0.1:9');
// MICRO_ACCESS_LOG=1: the standalone server's access-log hook, its lines built and dropped; =file: written to a temp file as the server writes them.
function accessLogWrite(mode: string | undefined): ((line: string) => void) | undefined {
  if (mode === '1') return () => undefined;
  if (mode !== 'file') return undefined;
  const file = join(mkdtempSync(join(tmpdir(), 'modelgate-micro-log-')), 'access.log');
  return createLineWriter(file, (err) => console.error(`access log: ${err.message}`), ACCESS_LOG_BATCHING).write;
}
const logWrite = accessLogWrite(process.env.MICRO_ACCESS_LOG);
const hooks = logWrite ? { onResponse: accessLogger('json', logWrite) } : undefined;
const gateway = createGateway(opened ? { ...baseConfig, keys: [] } : baseConfig, {
  fetch: fetch as unknown as typeof globalThis.fetch,
  env: {},
  ...(opened ? { control: opened.control } : {}),
  ...(hooks ? { hooks } : {}),
});
const anthropicClient = 'client' in scenario && scenario.client === 'anthropic';
const requestBody = new TextEncoder().encode(anthropicClient ? anthropicBody(scenario.model, scenario.stream) : openAIBody(scenario.model, scenario.stream));
const path = anthropicClient ? '/v1/messages' : '/v1/chat/completions';
const headers = {
  host: '127.0.0.1',
  'content-type': 'application/json',
  'content-length': String(requestBody.byteLength),
  ...(anthropicClient ? { 'x-api-key': platformKey, 'anthropic-version': '2023-06-01' } : { authorization: `Bearer ${platformKey}` }),
};

async function drain(reply: Reply): Promise<number> {
  const body = reply.body;
  if (typeof body === 'string') return body.length;
  if (isTextStream(body)) {
    let n = 0;
    for await (const c of body.chunks) n += c.length;
    return n;
  }
  throw new Error(`unexpected body (status ${reply.status})`);
}

const viaHandle = process.env.MICRO_VIA === 'handle';

async function drainResponse(response: Response): Promise<number> {
  if (response.status !== 200) throw new Error(`status ${response.status}: ${await response.text()}`);
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  let n = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return n;
    n += value.byteLength;
  }
}

async function one(): Promise<void> {
  const request = nodeRequest('POST', `http://127.0.0.1${path}`, headers, () => new AbortController().signal);
  if (viaHandle) {
    await drainResponse(await gateway.bridge.handle(request, { body: requestBody, onClientGone: () => () => {} }));
    return;
  }
  const reply = await gateway.bridge.reply(request, { body: requestBody, onClientGone: () => () => {} });
  if (reply.status !== 200) throw new Error(`status ${reply.status}: ${String(reply.body)}`);
  await drain(reply);
}

/** Wall time of each request (ms), for the percentiles at MICRO_CONCURRENCY=1. */
const walls: number[] = [];

async function round(n: number): Promise<number> {
  let left = n;
  const start = process.cpuUsage();
  const worker = async () => {
    while (left-- > 0) {
      const t0 = performance.now();
      await one();
      walls.push(performance.now() - t0);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  const used = process.cpuUsage(start);
  return (used.user + used.system) / n;
}

await round(5000);
walls.length = 0;
const results: number[] = [];
for (let r = 0; r < rounds; r++) results.push(await round(perRound));
results.sort((a, b) => a - b);
console.log(`${id}${viaHandle ? ' (handle)' : ''}${opened ? ' (control plane on)' : ''}${hooks ? ` (access log${process.env.MICRO_ACCESS_LOG === 'file' ? ' to a file' : ', lines dropped'})` : ''}: CPU us/request median ${results[Math.floor(results.length / 2)]?.toFixed(1)} (min ${results[0]?.toFixed(1)}, max ${results.at(-1)?.toFixed(1)}) over ${rounds} rounds of ${perRound}, ${concurrency} in flight`);
if (concurrency === 1) {
  walls.sort((a, b) => a - b);
  const at = (q: number) => (walls[Math.min(walls.length - 1, Math.floor(q * walls.length))] ?? 0).toFixed(3);
  console.log(`wall ms per request at 1 in flight: p50 ${at(0.5)}, p99 ${at(0.99)}, p99.9 ${at(0.999)}, max ${at(1)}`);
}
await gateway.close();
await opened?.close();
