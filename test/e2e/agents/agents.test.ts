/**
 * End to end with the real agent CLIs, as users run them against a gateway: Claude Code
 * (ANTHROPIC_BASE_URL -> POST /v1/messages?beta=true, streaming, ~25 tools, thinking,
 * cache_control) and Gemini CLI (GOOGLE_GEMINI_BASE_URL -> POST
 * /v1beta/models/{m}:streamGenerateContent?alt=sse, 8 tools, thinkingConfig) each complete a
 * one-shot prompt through the gateway against an Anthropic, an OpenAI and a Gemini upstream.
 *
 * The strict mock upstreams answer a request that declares tools with calls to the first two
 * tools, so every run is a full agent loop: prompt -> tool calls -> the CLI runs (or refuses) the
 * tools -> tool results -> final text `[VENDOR] tool results: ...`, which the CLI prints.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { Gateway, ProviderConfig, ResponseEvent } from '../../../src/index.js';
import { describeRun, runClaude, runGemini } from '../../helpers/agent-cli.js';
import { startMockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAI } from '../../helpers/mock-openai.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

type Vendor = 'anthropic' | 'openai' | 'gemini';
type Json = Record<string, unknown>;

interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Record<string, string>;
  body: unknown;
}

interface Upstream {
  vendor: Vendor;
  requests: RecordedRequest[];
  provider: ProviderConfig;
  upstreamModel: string;
  close(): Promise<void>;
}

const CLIENT_KEY = 'mg-agent-key-0123456789';
const CLAUDE_MODEL = 'claude-sonnet-4-5';
const CLAUDE_SMALL_MODEL = 'claude-haiku-4-5';
const GEMINI_MODEL = 'gemini-2.5-flash';
/** Every model id either CLI may ask for; all go to the one upstream under test. */
const AGENT_MODELS = [CLAUDE_MODEL, CLAUDE_SMALL_MODEL, GEMINI_MODEL, 'gemini-2.5-flash-lite', 'gemini-2.5-pro', 'gpt-4o'];
const VENDORS: Vendor[] = ['anthropic', 'openai', 'gemini'];
const CLI_TIMEOUT_MS = 100_000;
const TEST_TIMEOUT_MS = 120_000;

async function startUpstream(vendor: Vendor): Promise<Upstream> {
  if (vendor === 'anthropic') {
    const m = await startMockAnthropic();
    return { vendor, requests: m.requests, upstreamModel: 'claude-sonnet-4-5', provider: { id: 'up', type: 'anthropic', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
  }
  if (vendor === 'openai') {
    const m = await startMockOpenAI();
    return { vendor, requests: m.requests, upstreamModel: 'gpt-4o', provider: { id: 'up', type: 'openai', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
  }
  const m = await startMockGemini();
  return { vendor, requests: m.requests, upstreamModel: 'gemini-2.5-flash', provider: { id: 'up', type: 'gemini', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
}

/** The upstream's chat calls (the path the vendor's chat API lives on). */
function chatCalls(up: Upstream): RecordedRequest[] {
  return up.requests.filter((r) => {
    if (r.method !== 'POST') return false;
    if (up.vendor === 'anthropic') return r.path === '/v1/messages';
    if (up.vendor === 'openai') return r.path === '/v1/chat/completions';
    return /^\/v1beta\/models\/[^/]+:(streamGenerateContent|generateContent)$/.test(r.path);
  });
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Names of the function tools an upstream request declares, in order. */
function declaredTools(vendor: Vendor, body: Json): string[] {
  if (vendor === 'anthropic') return arr(body.tools).map((t) => String(t.name));
  if (vendor === 'openai') return arr(body.tools).map((t) => String(isObj(t.function) ? t.function.name : ''));
  return arr(body.tools).flatMap((t) => arr(t.functionDeclarations ?? t.function_declarations).map((d) => String(d.name)));
}

/** How many tool results the last turn of an upstream request carries. */
function trailingToolResults(vendor: Vendor, body: Json): number {
  if (vendor === 'anthropic') {
    const last = arr(body.messages).at(-1);
    return last?.role === 'user' ? arr(last.content).filter((b) => b.type === 'tool_result').length : 0;
  }
  if (vendor === 'openai') {
    const msgs = arr(body.messages);
    let n = 0;
    while (n < msgs.length && msgs[msgs.length - 1 - n]?.role === 'tool') n++;
    return n;
  }
  const last = arr(body.contents).at(-1);
  return last ? arr(last.parts).filter((p) => p.functionResponse !== undefined || p.function_response !== undefined).length : 0;
}

interface RunningGateway {
  url: string;
  events: ResponseEvent[];
  close(): Promise<void>;
}

async function startGateway(up: Upstream): Promise<RunningGateway> {
  const events: ResponseEvent[] = [];
  const gateway: Gateway = createShippedGateway(
    {
      providers: [up.provider],
      models: AGENT_MODELS.map((id) => ({ id, provider: 'up', upstreamModel: up.upstreamModel })),
      keys: [{ id: 'agent', key: CLIENT_KEY }],
    },
    { hooks: { onResponse: (e) => void events.push(e) }, env: {} },
  );
  const server: RunningServer = await serve(gateway, { port: 0 });
  return {
    url: server.url,
    events,
    async close() {
      await server.close();
      await gateway.close();
    },
  };
}

/** Requests that failed at the gateway. Claude Code's `HEAD /` reachability probe is not an API call. */
function failures(events: ResponseEvent[]): ResponseEvent[] {
  return events.filter((e) => !(e.method === 'HEAD' && e.path === '/') && (e.status !== 200 || e.error !== undefined || e.streamCompleted === false));
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.().catch(() => undefined);
});

async function setup(vendor: Vendor): Promise<{ up: Upstream; gw: RunningGateway }> {
  const up = await startUpstream(vendor);
  cleanups.push(() => up.close());
  const gw = await startGateway(up);
  cleanups.push(() => gw.close());
  return { up, gw };
}

function context(up: Upstream, gw: RunningGateway, runText: string): string {
  const calls = up.requests.map((r) => `${r.method} ${r.path}${r.query.size ? `?${r.query.toString()}` : ''}`);
  const events = gw.events.map((e) => `${e.method} ${e.path} -> ${e.status}${e.error ? ` ${e.error.code}: ${e.error.message}` : ''}`);
  return `${runText}\n--- upstream requests ---\n${calls.join('\n')}\n--- gateway responses ---\n${events.join('\n')}`;
}

interface ClaudeCase {
  vendor: Vendor;
  model: string;
  /** The `thinking` Claude Code sends for this model id. */
  thinking: Json;
}

/**
 * Claude model ids get `thinking: enabled` with a budget. Any other id (what gateway users pick to
 * reach other vendors) gets adaptive thinking, `output_config.effort` and a trailing
 * `role: "system"` message (beta `mid-conversation-system-2026-04-07`), see
 * test/fixtures/agents/claude-request-default-model.json.
 */
const CLAUDE_CASES: ClaudeCase[] = [
  ...VENDORS.map((vendor): ClaudeCase => ({ vendor, model: CLAUDE_MODEL, thinking: { type: 'enabled', budget_tokens: 31999 } })),
  { vendor: 'openai', model: 'gpt-4o', thinking: { type: 'adaptive' } },
  { vendor: 'gemini', model: GEMINI_MODEL, thinking: { type: 'adaptive' } },
];

describe.sequential('Claude Code through the gateway', () => {
  for (const { vendor, model, thinking } of CLAUDE_CASES) {
    it(
      `claude -p --model ${model} completes against the ${vendor} upstream`,
      async () => {
        const { up, gw } = await setup(vendor);
        const run = await runClaude({ baseURL: gw.url, apiKey: CLIENT_KEY, model, smallFastModel: CLAUDE_SMALL_MODEL, prompt: 'Say hi', timeoutMs: CLI_TIMEOUT_MS });
        const why = context(up, gw, describeRun(run));

        expect(run.code, why).toBe(0);
        // The mock called Agent and Bash; Claude Code refused both (bad input / needs approval in -p
        // mode), sent the results back, and printed the mock's answer to them.
        expect(run.stdout, why).toContain(`[${vendor}] tool results:`);
        expect(run.stdout, why).toContain('InputValidationError');
        expect(run.stdout, why).toContain('This command requires approval');

        const calls = chatCalls(up);
        expect(calls, why).toHaveLength(2);
        const [first, second] = calls.map((c) => c.body as Json);
        expect(JSON.stringify(first), why).toContain('Say hi');
        const tools = declaredTools(vendor, first!);
        expect(tools.length, why).toBeGreaterThanOrEqual(20);
        expect(tools.slice(0, 2), why).toEqual(['Agent', 'Bash']);
        expect(tools, why).toEqual(expect.arrayContaining(['Read', 'Edit', 'Write', 'WebFetch']));
        expect(trailingToolResults(vendor, second!), why).toBe(2);
        if (vendor === 'anthropic') {
          expect(calls[0]!.headers['anthropic-beta'], why).toContain('claude-code-20250219');
          expect(first!.thinking, why).toEqual(thinking);
        }
        if (vendor === 'gemini') expect(calls[0]!.path, why).toBe(`/v1beta/models/${up.upstreamModel}:streamGenerateContent`);

        expect(failures(gw.events), why).toEqual([]);
        const events = gw.events.filter((e) => e.path === '/v1/messages');
        expect(events.map((e) => [e.status, e.stream, e.model, e.provider]), why).toEqual([
          [200, true, model, 'up'],
          [200, true, model, 'up'],
        ]);
      },
      TEST_TIMEOUT_MS,
    );
  }
});

describe.sequential('Gemini CLI through the gateway', () => {
  for (const vendor of VENDORS) {
    it(
      `gemini -p completes against the ${vendor} upstream`,
      async () => {
        const { up, gw } = await setup(vendor);
        const run = await runGemini({ baseURL: gw.url, apiKey: CLIENT_KEY, model: GEMINI_MODEL, prompt: 'Say hi', timeoutMs: CLI_TIMEOUT_MS });
        const why = context(up, gw, describeRun(run));

        expect(run.code, why).toBe(0);
        // The mock called update_topic and list_directory("Paris"); Gemini CLI ran both (the
        // second fails: no such directory), sent the results back and printed the answer.
        expect(run.stdout, why).toContain(`[${vendor}] tool results:`);
        expect(run.stdout, why).toContain('Current topic');
        expect(run.stdout, why).toContain('Error listing directory');

        const calls = chatCalls(up);
        expect(calls, why).toHaveLength(2);
        const [first, second] = calls.map((c) => c.body as Json);
        expect(JSON.stringify(first), why).toContain('Say hi');
        const tools = declaredTools(vendor, first!);
        expect(tools.slice(0, 2), why).toEqual(['update_topic', 'list_directory']);
        expect(tools, why).toEqual(expect.arrayContaining(['read_file', 'grep_search', 'glob']));
        expect(trailingToolResults(vendor, second!), why).toBe(2);
        if (vendor === 'gemini') {
          expect(calls.map((c) => `${c.path}?${c.query.toString()}`), why).toEqual([
            `/v1beta/models/${GEMINI_MODEL}:streamGenerateContent?alt=sse`,
            `/v1beta/models/${GEMINI_MODEL}:streamGenerateContent?alt=sse`,
          ]);
        }

        expect(failures(gw.events), why).toEqual([]);
        const model = gw.events.filter((e) => e.path.startsWith('/v1beta/models/'));
        expect(model.map((e) => [e.path, e.status, e.stream, e.model, e.provider]), why).toEqual([
          [`/v1beta/models/${GEMINI_MODEL}:streamGenerateContent`, 200, true, GEMINI_MODEL, 'up'],
          [`/v1beta/models/${GEMINI_MODEL}:streamGenerateContent`, 200, true, GEMINI_MODEL, 'up'],
        ]);
      },
      TEST_TIMEOUT_MS,
    );
  }
});
