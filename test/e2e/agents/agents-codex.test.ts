/**
 * End to end with the real Codex CLI (`@openai/codex`), as users point it at a gateway: a custom
 * model provider speaking the Responses wire API ($CODEX_HOME/config.toml: `model_provider`,
 * `base_url = http://127.0.0.1:PORT/v1`, `env_key`, `wire_api = "responses"`), everything else at
 * Codex's defaults, its default tool set included (function tools, the `multi_agent_v1` namespace,
 * `web_search`). `codex exec` completes a one-shot task that needs a tool call against an OpenAI,
 * an Anthropic and a Gemini upstream, through the gateway `npm start` runs (node adapter, undici
 * upstream client).
 *
 * Each strict mock upstream is scripted: its first answer calls Codex's `exec_command` tool with
 * `echo <marker>`, its second (after Codex ran the command and sent its output back) is the final
 * answer, which Codex prints. Two more runs: Codex's gpt-5.5 tool set (custom apply_patch, client-run
 * tool_search) against Anthropic, and an Anthropic web search with a cited answer, which Codex takes
 * as `web_search_call` and `url_citation` and sends back on its next turn.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { serve, type RunningServer } from '../../../node/index.js';
import type { BridgeContext, Gateway, ProviderConfig, ResponseEvent } from '../../../src/index.js';
import { describeRun, runCodex } from '../../helpers/agent-cli.js';
import { startMockAnthropic } from '../../helpers/mock-anthropic.js';
import { startMockGemini } from '../../helpers/mock-gemini.js';
import { startMockOpenAIResponses } from '../../helpers/mock-openai-responses.js';
import type { RecordedRequest } from '../../helpers/mock-vendor-base.js';
import { createShippedGateway } from '../../helpers/shipped-gateway.js';

type Vendor = 'openai' | 'anthropic' | 'gemini';
type Json = Record<string, unknown>;

const CLIENT_KEY = 'mg-codex-key-0123456789';
/** A model id Codex does not know: it falls back to its default metadata and tool set. */
const MODEL = 'team-model';
/** The shell computes the marker, so only a command that really ran can print it. */
const COMMAND = 'echo codex-via-modelgate-$((6*7))';
const MARKER = 'codex-via-modelgate-42';
const CLI_TIMEOUT_MS = 100_000;
const TEST_TIMEOUT_MS = 120_000;

const answerOf = (vendor: Vendor): string => `All done on ${vendor}: the command printed the marker.`;

interface Upstream {
  vendor: Vendor;
  requests: RecordedRequest[];
  provider: ProviderConfig;
  upstreamModel: string;
  close(): Promise<void>;
}

/** A strict mock of the vendor, scripted: a call to exec_command, then the final answer. */
async function startUpstream(vendor: Vendor): Promise<Upstream> {
  const args = { cmd: COMMAND };
  if (vendor === 'openai') {
    const m = await startMockOpenAIResponses();
    m.scriptNext({ output: [{ type: 'function_call', name: 'exec_command', arguments: JSON.stringify(args), call_id: 'call_exec_1' }] });
    m.scriptNext({ output: [{ type: 'text', text: answerOf(vendor) }] });
    // gpt-5 is a reasoning model: it takes the reasoning settings and encrypted reasoning Codex asks for.
    return { vendor, requests: m.requests, upstreamModel: 'gpt-5', provider: { id: 'up', type: 'openai', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
  }
  if (vendor === 'anthropic') {
    const m = await startMockAnthropic();
    m.scriptNext({ content: [{ type: 'tool_use', id: 'toolu_exec_1', name: 'exec_command', input: args }] });
    m.scriptNext({ content: [{ type: 'text', text: answerOf(vendor) }] });
    return { vendor, requests: m.requests, upstreamModel: 'claude-sonnet-4-5', provider: { id: 'up', type: 'anthropic', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
  }
  const m = await startMockGemini();
  m.scriptNext({ parts: [{ functionCall: { name: 'exec_command', args } }] });
  m.scriptNext({ parts: [{ text: answerOf(vendor) }] });
  return { vendor, requests: m.requests, upstreamModel: 'gemini-2.5-flash', provider: { id: 'up', type: 'gemini', baseURL: m.baseURL, apiKey: m.apiKey }, close: () => m.close() };
}

/** The upstream's model calls. */
function modelCalls(up: Upstream): Json[] {
  return up.requests
    .filter((r) => {
      if (r.method !== 'POST') return false;
      if (up.vendor === 'openai') return r.path === '/v1/responses';
      if (up.vendor === 'anthropic') return r.path === '/v1/messages';
      return /^\/v1beta\/models\/[^/]+:(streamGenerateContent|generateContent)$/.test(r.path);
    })
    .map((r) => r.body as Json);
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const arr = (v: unknown): Json[] => (Array.isArray(v) ? v.filter(isObj) : []);

/** Names of the function tools the upstream request declares. */
function functionNames(vendor: Vendor, body: Json): string[] {
  if (vendor === 'openai') {
    return arr(body.tools).flatMap((t) => (t.type === 'namespace' ? arr(t.tools).map((x) => `${String(t.name)}.${String(x.name)}`) : t.type === 'function' ? [String(t.name)] : []));
  }
  if (vendor === 'anthropic') return arr(body.tools).filter((t) => t.type === undefined).map((t) => String(t.name));
  return arr(body.tools).flatMap((t) => arr(t.functionDeclarations).map((d) => String(d.name)));
}

/** The tool call the second request replays and the tool output that answers it, in the vendor's shape. */
function toolRoundTrip(vendor: Vendor, body: Json): { call?: Json; output: string } {
  if (vendor === 'openai') {
    const input = arr(body.input);
    const call = input.find((i) => i.type === 'function_call');
    const out = input.find((i) => i.type === 'function_call_output');
    return { call: call && { name: call.name, id: call.call_id, args: JSON.parse(String(call.arguments)) as unknown }, output: String(out?.output ?? '') };
  }
  if (vendor === 'anthropic') {
    const msgs = arr(body.messages);
    const use = arr(msgs.at(-2)?.content).find((b) => b.type === 'tool_use');
    const result = arr(msgs.at(-1)?.content).find((b) => b.type === 'tool_result');
    const content = result?.content;
    const text = typeof content === 'string' ? content : arr(content).map((b) => String(b.text ?? '')).join('\n');
    return { call: use && { name: use.name, id: use.id, args: use.input, resultFor: result?.tool_use_id }, output: text };
  }
  const contents = arr(body.contents);
  const call = arr(contents.at(-2)?.parts).find((p) => p.functionCall !== undefined)?.functionCall as Json | undefined;
  const response = arr(contents.at(-1)?.parts).find((p) => p.functionResponse !== undefined)?.functionResponse as Json | undefined;
  return { call: call && { name: call.name, args: call.args, resultFor: response?.name }, output: JSON.stringify(response?.response ?? '') };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()?.().catch(() => undefined);
});

async function setup(vendor: Vendor, model = MODEL): Promise<{ up: Upstream; url: string; events: ResponseEvent[] }> {
  const up = await startUpstream(vendor);
  cleanups.push(() => up.close());
  const events: ResponseEvent[] = [];
  const gateway: Gateway = createShippedGateway(
    { providers: [up.provider], models: [{ id: model, provider: 'up', upstreamModel: up.upstreamModel }], keys: [{ id: 'codex', key: CLIENT_KEY }] },
    { hooks: { onResponse: (e) => void events.push(e) }, env: {} },
  );
  const server: RunningServer = await serve(gateway, { port: 0 });
  cleanups.push(async () => {
    await server.close();
    await gateway.close();
  });
  return { up, url: server.url, events };
}

function context(up: Upstream, events: ResponseEvent[], runText: string): string {
  const calls = up.requests.map((r) => `${r.method} ${r.path}`);
  const answered = events.map((e) => `${e.method} ${e.path} -> ${e.status}${e.error ? ` ${e.error.code}: ${e.error.message}` : ''}`);
  return `${runText}\n--- upstream requests ---\n${calls.join('\n')}\n--- gateway responses ---\n${answered.join('\n')}`;
}

describe.sequential('Codex CLI through the gateway (custom provider, wire_api = "responses")', () => {
  for (const vendor of ['openai', 'anthropic', 'gemini'] as const) {
    it(
      `codex exec runs a shell command and answers against the ${vendor} upstream`,
      async () => {
        const { up, url, events } = await setup(vendor);
        const run = await runCodex({ baseURL: `${url}/v1`, apiKey: CLIENT_KEY, model: MODEL, prompt: 'Print the marker with a shell command.', timeoutMs: CLI_TIMEOUT_MS });
        const why = context(up, events, describeRun(run));

        expect(run.code, why).toBe(0);
        // Codex prints the final answer on stdout.
        expect(run.stdout, why).toContain(answerOf(vendor));

        const calls = modelCalls(up);
        expect(calls, why).toHaveLength(2);
        const [first, second] = calls as [Json, Json];
        expect(JSON.stringify(first), why).toContain('Print the marker with a shell command.');
        // Codex's default tool set reached the vendor: its function tools, the namespace's functions
        // flattened for other vendors, and web search as the vendor's own tool where it can run.
        const names = functionNames(vendor, first);
        expect(names, why).toEqual(expect.arrayContaining(['exec_command', 'write_stdin']));
        if (vendor === 'openai') {
          expect(names, why).toContain('multi_agent_v1.spawn_agent');
          expect(arr(first.tools).map((t) => t.type), why).toContain('web_search');
          expect(first.store, why).toBe(false);
          expect(first.include, why).toEqual(['reasoning.encrypted_content']);
        } else {
          expect(names, why).toEqual(expect.arrayContaining(['spawn_agent', 'wait_agent']));
        }
        if (vendor === 'anthropic') expect(arr(first.tools).filter((t) => t.type !== undefined), why).toEqual([{ type: 'web_search_20250305', name: 'web_search' }]);
        if (vendor === 'gemini') expect(arr(first.tools).some((t) => t.googleSearch !== undefined), why).toBe(false);

        // The scripted call came back in the vendor's own shape, answered by the command's output.
        const trip = toolRoundTrip(vendor, second);
        const expectedCall =
          vendor === 'openai' ? { name: 'exec_command', id: 'call_exec_1', args: { cmd: COMMAND } }
          : vendor === 'anthropic' ? { name: 'exec_command', id: 'toolu_exec_1', args: { cmd: COMMAND }, resultFor: 'toolu_exec_1' }
          : { name: 'exec_command', args: { cmd: COMMAND }, resultFor: 'exec_command' };
        expect(trip.call, why).toEqual(expectedCall);
        expect(trip.output, why).toContain(MARKER);

        const answered = events.filter((e) => e.path === '/v1/responses');
        expect(answered.map((e) => [e.method, e.status, e.stream, e.model, e.provider, e.error?.message]), why).toEqual([
          ['POST', 200, true, MODEL, 'up', undefined],
          ['POST', 200, true, MODEL, 'up', undefined],
        ]);
        if (vendor === 'gemini') {
          // Gemini 2.x cannot search next to function tools: the gateway says it left web_search out.
          expect(answered[0]!.warnings?.map((w) => w.setting), why).toContain('tools.web_search');
        }
      },
      TEST_TIMEOUT_MS,
    );
  }

  it(
    "codex exec with a model id Codex knows (gpt-5.5: custom apply_patch, client-run tool_search, web_search) against the anthropic upstream",
    async () => {
      const { up, url, events } = await setup('anthropic', 'gpt-5.5');
      const run = await runCodex({ baseURL: `${url}/v1`, apiKey: CLIENT_KEY, model: 'gpt-5.5', prompt: 'Print the marker with a shell command.', timeoutMs: CLI_TIMEOUT_MS });
      const why = context(up, events, describeRun(run));
      expect(run.code, why).toBe(0);
      expect(run.stdout, why).toContain(answerOf('anthropic'));
      const calls = modelCalls(up);
      expect(calls, why).toHaveLength(2);
      const tools = arr(calls[0]!.tools);
      // The grammar tool and the tool search are functions for Anthropic; web search is its server tool.
      expect(tools.map((t) => t.name), why).toEqual(expect.arrayContaining(['exec_command', 'apply_patch', 'tool_search', 'web_search']));
      expect(tools.find((t) => t.name === 'apply_patch')?.input_schema, why).toMatchObject({ properties: { input: { type: 'string' } }, required: ['input'] });
      expect(tools.find((t) => t.name === 'web_search'), why).toEqual({ type: 'web_search_20250305', name: 'web_search' });
      const trip = toolRoundTrip('anthropic', calls[1]!);
      expect(trip.call, why).toEqual({ name: 'exec_command', id: 'toolu_exec_1', args: { cmd: COMMAND }, resultFor: 'toolu_exec_1' });
      expect(trip.output, why).toContain(MARKER);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'codex exec takes a vendor web search (web_search_call, url_citation) and replays it on the next turn, against the anthropic upstream',
    async () => {
      const up = await startMockAnthropic();
      cleanups.push(() => up.close());
      up.scriptNext({
        content: [
          { type: 'server_tool_use', id: 'srvtoolu_01', name: 'web_search', input: { query: 'modelgate marker' } },
          { type: 'web_search_tool_result', tool_use_id: 'srvtoolu_01', content: [{ type: 'web_search_result', url: 'https://example.com/marker', title: 'Marker', encrypted_content: 'enc-1', page_age: null }] },
          { type: 'text', text: 'The page says to print it.', citations: [{ type: 'web_search_result_location', url: 'https://example.com/marker', title: 'Marker', cited_text: 'print it', encrypted_index: 'ei-1' }] },
          { type: 'tool_use', id: 'toolu_exec_1', name: 'exec_command', input: { cmd: COMMAND } },
        ],
      });
      up.scriptNext({ content: [{ type: 'text', text: answerOf('anthropic') }] });
      const events: ResponseEvent[] = [];
      const gateway = createShippedGateway(
        { providers: [{ id: 'up', type: 'anthropic', baseURL: up.baseURL, apiKey: up.apiKey }], models: [{ id: MODEL, provider: 'up', upstreamModel: 'claude-sonnet-4-5' }], keys: [{ id: 'codex', key: CLIENT_KEY }] },
        { hooks: { onResponse: (e) => void events.push(e) }, env: {} },
      );
      // What Codex sends, to see it replay the search.
      const sent: Json[] = [];
      const recordBody = (ctx: BridgeContext | undefined): BridgeContext | undefined => {
        const read = ctx?.readBody;
        if (ctx && read) {
          ctx.readBody = async (limit) => {
            const bytes = await read(limit);
            sent.push(JSON.parse(new TextDecoder().decode(bytes)) as Json);
            return bytes;
          };
        }
        return ctx;
      };
      const server = await serve(
        {
          handle: (request, ctx) => gateway.handle(request, ctx),
          // The node adapter calls the bridge's reply() and hands the body over through the context's reader.
          bridge: { handle: (request, ctx) => gateway.bridge.handle(request, recordBody(ctx)), reply: (request, ctx) => gateway.bridge.reply(request, recordBody(ctx)) },
          matches: (pathname) => gateway.matches(pathname),
          close: () => gateway.close(),
        },
        { port: 0 },
      );
      cleanups.push(async () => {
        await server.close();
        await gateway.close();
      });
      const upstream: Upstream = { vendor: 'anthropic', requests: up.requests, provider: { id: 'up', type: 'anthropic' }, upstreamModel: 'claude-sonnet-4-5', close: () => up.close() };
      const run = await runCodex({ baseURL: `${server.url}/v1`, apiKey: CLIENT_KEY, model: MODEL, prompt: 'Look up the marker, then print it.', timeoutMs: CLI_TIMEOUT_MS });
      const why = context(upstream, events, describeRun(run));
      expect(run.code, why).toBe(0);
      expect(run.stdout, why).toContain(answerOf('anthropic'));
      const calls = modelCalls(upstream);
      expect(calls, why).toHaveLength(2);
      // Codex sent its history back: the cited text and the call, answered by the command's output.
      const messages = arr(calls[1]!.messages);
      expect(JSON.stringify(messages), why).toContain('The page says to print it.');
      const trip = toolRoundTrip('anthropic', calls[1]!);
      expect(trip.call, why).toEqual({ name: 'exec_command', id: 'toolu_exec_1', args: { cmd: COMMAND }, resultFor: 'toolu_exec_1' });
      expect(trip.output, why).toContain(MARKER);
      // Codex kept the search and the cited answer as OpenAI would have sent them, and sent them back.
      const replayed = arr(sent[1]?.input);
      expect(replayed.find((i) => i.type === 'web_search_call'), why).toMatchObject({ status: 'completed', action: { type: 'search', query: 'modelgate marker' } });
      const cited = replayed.find((i) => i.type === 'message' && i.role === 'assistant');
      expect(arr(cited?.content)[0], why).toMatchObject({
        type: 'output_text',
        text: 'The page says to print it.',
        annotations: [{ type: 'url_citation', url: 'https://example.com/marker', title: 'Marker', start_index: 0, end_index: 26 }],
      });
      expect(events.map((e) => [e.path, e.status, e.error?.message]), why).toEqual([
        ['/v1/responses', 200, undefined],
        ['/v1/responses', 200, undefined],
      ]);
    },
    TEST_TIMEOUT_MS,
  );
});
