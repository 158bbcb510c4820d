/**
 * Conformance matrix: {OpenAI chat, Anthropic Messages, Gemini} clients (official SDKs) x
 * {OpenAI, Anthropic, Gemini} upstreams (strict mocks) x {sync, stream} x 7 scenarios = 126 cases.
 * Every case checks the exact answer of the shared mock contract as the client sees it (text, tool
 * calls with ids and indexes, finish reason, usage), what the stream looked like on the way, and
 * what the upstream mock received. One gateway and three mocks serve the whole file.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RecordedRequest } from '../helpers/mock-openai.js';
import { startConformanceBed, UPSTREAM_MODEL, type ConformanceBed, type Exchange } from './harness.js';
import { INPUT, PDF, PNG, SCENARIOS, type ClientName, type Mode, type NormalizedFinish, type ScenarioName, type TurnResult, type UpstreamName } from './types.js';

const CLIENTS: ClientName[] = ['openai', 'anthropic', 'gemini'];
const UPSTREAMS: UpstreamName[] = ['openai', 'anthropic', 'gemini'];
const MODES: Mode[] = ['sync', 'stream'];
const ID_FORMAT: Record<ClientName, RegExp> = { openai: /^chatcmpl-\S+$/, anthropic: /^msg_\S+$/, gemini: /^\S+$/ };

let bed: ConformanceBed;
beforeAll(async () => {
  bed = await startConformanceBed();
});
afterAll(async () => {
  await bed?.close();
});

// ---- expectations from the shared mock contract ----

interface ExpectedTurn {
  text: string;
  toolCalls: Array<{ id?: unknown; index: number; name: string; args: Record<string, unknown> }>;
  finishReason: NormalizedFinish;
  stopSequence: string | null;
  usage: { input: number; output: number; total?: number } | undefined;
}

const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;
const said = (up: UpstreamName, text: string): string => `[${up}] you said: ${text}`;

/** Tool call ids as the client sees them: the upstream's own, or synthesized for id-less Gemini calls. */
function toolId(client: ClientName, up: UpstreamName, i: number): unknown {
  if (up === 'openai') return `call_${i + 1}`;
  if (up === 'anthropic') return `toolu_${i + 1}`;
  return client === 'gemini' ? undefined : expect.stringMatching(new RegExp(`^call_[A-Za-z0-9]+_${i}$`));
}

function expectedTurns(client: ClientName, up: UpstreamName, mode: Mode, scenario: ScenarioName): ExpectedTurn[] {
  const usage = (input: number, output: number): ExpectedTurn['usage'] => (client === 'anthropic' ? { input, output } : { input, output, total: input + output });
  const text = (t: string, input = 10, finishReason: NormalizedFinish = 'stop'): ExpectedTurn => ({ text: t, toolCalls: [], finishReason, stopSequence: null, usage: usage(input, words(t)) });
  switch (scenario) {
    case 'plain-text':
      return [text(said(up, INPUT.plain))];
    case 'system-multi-turn':
      // Three messages count; the system prompt does not.
      return [text(said(up, 'second question'), 30)];
    case 'parallel-tools': {
      const calls = [
        { name: 'get_weather', args: { city: 'Paris' } },
        { name: 'get_time', args: { utc: true, offset: 1 } },
      ].map((c, index) => ({ ...c, index, ...(toolId(client, up, index) !== undefined ? { id: toolId(client, up, index) } : {}) }));
      // Gemini has no tool-call finish reason: a call turn ends with STOP.
      const callTurn: ExpectedTurn = { text: '', toolCalls: calls, finishReason: client === 'gemini' ? 'stop' : 'tool_calls', stopSequence: null, usage: usage(10, 10) };
      // The follow-up counts messages as the upstream sees them: OpenAI sends one `tool` message per result.
      return [callTurn, text(`[${up}] tool results: ${INPUT.toolResults.join('; ')}`, up === 'openai' ? 40 : 30)];
    }
    case 'image-input':
      return [text(`${said(up, INPUT.imagePrompt)} [image] [image]`)];
    case 'pdf-input':
      return [text(`${said(up, INPUT.pdfPrompt)} [pdf]`)];
    case 'stop-and-max-tokens': {
      // Only an Anthropic upstream says which stop sequence matched, and only Anthropic clients can hear it.
      const both = client === 'anthropic' && up === 'anthropic';
      const stopped: ExpectedTurn = { ...text(said(up, 'one')), finishReason: both ? 'stop_sequence' : 'stop', stopSequence: both ? INPUT.stopSequence : null };
      return [stopped, text(`[${up}] you said:`, 10, 'length')];
    }
    case 'usage': {
      const turn = text(said(up, 'count my tokens please'), 50);
      // OpenAI streams: a second request without include_usage must not get a usage chunk.
      return client === 'openai' && mode === 'stream' ? [turn, { ...turn, usage: undefined }] : [turn];
    }
  }
}

// ---- stream shape as each SDK saw it ----

function checkTrace(client: ClientName, up: UpstreamName, r: TurnResult, exp: ExpectedTurn): void {
  const t = r.trace;
  expect(t?.client).toBe(client);
  if (!t) return;
  const n = words(exp.text);
  const calls = exp.toolCalls;
  if (t.client === 'openai') {
    expect(t.ids).toBe(1);
    expect(t.finishChunks).toBe(1);
    // One content chunk per upstream word: nothing buffered.
    expect(t.contentDeltas).toBe(n);
    // Only the first fragment of a call has id/name, and indexes are the calls' positions.
    expect(t.toolCallStarts).toEqual(calls.map((c) => ({ index: c.index, id: c.id, name: c.name })));
    expect(t.toolCallRepeats).toBe(0);
    for (const c of calls) expect(t.argumentFragments[c.index]).toBeGreaterThanOrEqual(1);
    expect(t.usageChunks).toEqual(exp.usage ? [{ choices: 0 }] : []);
  } else if (t.client === 'anthropic') {
    const types = calls.length ? calls.map(() => 'tool_use') : n ? ['text'] : [];
    expect(t.events[0]).toBe('message_start');
    expect(t.events.slice(-2)).toEqual(['message_delta', 'message_stop']);
    // Contiguous block indexes, each block stopped before the next starts.
    expect(t.blockStarts).toEqual(types.map((type, index) => ({ index, type })));
    expect(t.blockStops).toEqual(types.map((_, i) => i));
    expect(t.events.filter((e) => e === 'content_block_start' || e === 'content_block_stop')).toEqual(types.flatMap(() => ['content_block_start', 'content_block_stop']));
    expect(t.textDeltas).toBe(n);
    expect(t.jsonDeltas).toBeGreaterThanOrEqual(calls.length);
    expect(t.deltaUsage.output_tokens).toBe(exp.usage?.output);
    // Input tokens belong in message_start; an OpenAI upstream reports usage only at the end of its stream.
    expect(t.startUsage.input_tokens).toBe(up === 'openai' ? 0 : exp.usage?.input);
  } else {
    expect(t.responseIds).toBe(1);
    expect(t.finishChunks).toBe(1);
    expect(t.textChunks).toBe(n);
    // Function calls arrive whole, one part each, in order.
    expect(t.functionCallChunks.flat()).toEqual(calls.map((c) => ({ name: c.name, args: c.args })));
  }
}

// ---- what the upstream mock received ----

type Json = Record<string, unknown>;
const bodyOf = (r: RecordedRequest): Json => r.body as Json;
const rolesOf = (list: unknown): unknown[] => (list as Json[]).map((m) => m.role);

function checkUpstream(client: ClientName, up: UpstreamName, mode: Mode, scenario: ScenarioName, sent: RecordedRequest[], results: TurnResult[]): void {
  expect(sent).toHaveLength(results.length);
  const stream = mode === 'stream';
  for (const req of sent) {
    const body = bodyOf(req);
    if (up === 'openai') {
      expect(req.path).toBe('/v1/chat/completions');
      expect(body.model).toBe(UPSTREAM_MODEL.openai);
      // The gateway always asks for the usage chunk when streaming (it strips it again if the client did not).
      if (stream) expect(body).toMatchObject({ stream: true, stream_options: { include_usage: true } });
      else expect(body.stream ?? false).toBe(false);
    } else if (up === 'anthropic') {
      expect(req.path).toBe('/v1/messages');
      // The Anthropic SDK's own version header is forwarded; other clients get the default.
      if (client === 'anthropic') expect(req.headers['anthropic-version']).toMatch(/^\d{4}-\d{2}-\d{2}$/);
      else expect(req.headers['anthropic-version']).toBe('2023-06-01');
      expect(body.model).toBe(UPSTREAM_MODEL.anthropic);
      expect(Number.isInteger(body.max_tokens) && (body.max_tokens as number) > 0).toBe(true);
      for (const role of rolesOf(body.messages)) expect(['user', 'assistant']).toContain(role);
      expect(body.stream ?? false).toBe(stream);
    } else {
      expect(req.path).toBe(`/v1beta/models/${UPSTREAM_MODEL.gemini}:${stream ? 'streamGenerateContent' : 'generateContent'}`);
      expect(req.query.get('alt')).toBe(stream ? 'sse' : null);
      for (const role of rolesOf(body.contents)) expect(['user', 'model']).toContain(role);
    }
  }
  const first = bodyOf(sent[0] as RecordedRequest);
  const last = bodyOf(sent[sent.length - 1] as RecordedRequest);
  switch (scenario) {
    case 'system-multi-turn':
      if (up === 'openai') {
        expect(first.messages).toEqual([{ role: 'system', content: INPUT.system }, ...INPUT.history.map((m) => ({ role: m.role, content: m.text }))]);
      } else if (up === 'anthropic') {
        // System is top-level, never a message.
        expect([INPUT.system, [{ type: 'text', text: INPUT.system }]]).toContainEqual(first.system);
        expect(rolesOf(first.messages)).toEqual(['user', 'assistant', 'user']);
      } else {
        expect(first.systemInstruction).toMatchObject({ parts: [{ text: INPUT.system }] });
        expect(rolesOf(first.contents)).toEqual(['user', 'model', 'user']);
      }
      break;
    case 'parallel-tools': {
      const ids = results[0]?.toolCalls.map((c) => c.id);
      if (up === 'openai') {
        const msgs = last.messages as Json[];
        expect(rolesOf(msgs)).toEqual(['user', 'assistant', 'tool', 'tool']);
        expect((msgs[1]?.tool_calls as Json[]).map((c) => c.id)).toEqual(['call_1', 'call_2']);
        const content = (c: unknown): unknown => (Array.isArray(c) ? (c as Json[]).map((p) => p.text).join('') : c);
        expect(msgs.slice(2).map((m) => [m.tool_call_id, content(m.content)])).toEqual([['call_1', 'r1'], ['call_2', 'r2']]);
      } else if (up === 'anthropic') {
        const msgs = last.messages as Json[];
        expect(rolesOf(msgs)).toEqual(['user', 'assistant', 'user']);
        expect((msgs[1]?.content as Json[]).map((b) => [b.type, b.id])).toEqual([['tool_use', 'toolu_1'], ['tool_use', 'toolu_2']]);
        // Every tool_use answered by a tool_result in the next user message.
        expect((msgs[2]?.content as Json[]).map((b) => [b.type, b.tool_use_id])).toEqual([['tool_result', 'toolu_1'], ['tool_result', 'toolu_2']]);
      } else {
        const contents = last.contents as Array<{ role: string; parts: Json[] }>;
        expect(rolesOf(contents)).toEqual(['user', 'model', 'user']);
        expect(contents[1]?.parts.map((p) => (p.functionCall as Json).name)).toEqual(['get_weather', 'get_time']);
        // Function responses matched by name, results as objects.
        expect(contents[2]?.parts.map((p) => ({ name: (p.functionResponse as Json).name, response: (p.functionResponse as Json).response }))).toEqual([
          { name: 'get_weather', response: { result: 'r1' } },
          { name: 'get_time', response: { result: 'r2' } },
        ]);
      }
      expect(ids).toHaveLength(2);
      break;
    }
    case 'image-input':
    case 'pdf-input': {
      const image = scenario === 'image-input';
      if (up === 'openai') {
        const parts = ((first.messages as Json[])[0]?.content as Json[]).filter((p) => p.type !== 'text');
        expect(parts).toMatchObject(
          image
            ? [{ type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'image_url', image_url: { url: INPUT.imageUrl } }]
            : [{ type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}` } }],
        );
      } else if (up === 'anthropic') {
        const blocks = ((first.messages as Json[])[0]?.content as Json[]).filter((b) => b.type !== 'text');
        expect(blocks).toMatchObject(
          image
            ? [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'image', source: { type: 'url', url: INPUT.imageUrl } }]
            : [{ type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }],
        );
      } else {
        const parts = (first.contents as Array<{ parts: Json[] }>)[0]?.parts.filter((p) => p.text === undefined);
        expect(parts).toEqual(
          image
            ? [{ inlineData: { mimeType: 'image/png', data: PNG } }, { fileData: { mimeType: 'image/jpeg', fileUri: INPUT.imageUrl } }]
            : [{ inlineData: { mimeType: 'application/pdf', data: PDF } }],
        );
      }
      break;
    }
    case 'stop-and-max-tokens':
      if (up === 'openai') {
        expect([[INPUT.stopSequence], INPUT.stopSequence]).toContainEqual(first.stop);
        expect(last.max_completion_tokens ?? last.max_tokens).toBe(INPUT.maxTokens);
      } else if (up === 'anthropic') {
        expect(first.stop_sequences).toEqual([INPUT.stopSequence]);
        expect(last.max_tokens).toBe(INPUT.maxTokens);
      } else {
        expect(first.generationConfig).toMatchObject({ stopSequences: [INPUT.stopSequence] });
        expect(last.generationConfig).toMatchObject({ maxOutputTokens: INPUT.maxTokens });
      }
      break;
    default:
      break;
  }
}

// ---- traceId: one rule for every JSON body, pass-through or translated ----

/**
 * Every sync JSON answer carries a top-level `traceId` equal to its `x-trace-id` header; streamed
 * answers carry the header, and their events no traceId (only an in-band error event would).
 */
async function checkTraceIds(mode: Mode, exchanges: Exchange[], turns: number): Promise<void> {
  expect(exchanges).toHaveLength(turns);
  for (const ex of exchanges) {
    expect(ex.status).toBe(200);
    expect(ex.traceIdHeader).toMatch(/^[0-9a-f]{32}$/);
    const body = await ex.body;
    if (mode === 'sync') {
      expect(ex.contentType).toMatch(/^application\/json/);
      expect((JSON.parse(body) as Json).traceId).toBe(ex.traceIdHeader);
    } else {
      expect(ex.contentType).toMatch(/^text\/event-stream/);
      expect(body).not.toContain('traceId');
    }
  }
}

// ---- the matrix ----

describe.each(CLIENTS)('%s client', (client) => {
  describe.each(UPSTREAMS)('-> %s upstream', (up) => {
    describe.each(MODES)('%s', (mode) => {
      it.each(SCENARIOS)('%s', async (scenario) => {
        const since = bed.mark(up);
        const answersFrom = bed.exchanges.length;
        const results = await bed.drivers[client][scenario]({ model: `up-${up}`, mode });
        const expected = expectedTurns(client, up, mode, scenario);
        expect(results.map(({ text, toolCalls, finishReason, stopSequence, usage }) => ({ text, toolCalls, finishReason, stopSequence, usage }))).toEqual(expected);
        results.forEach((r, i) => {
          // The concrete upstream model, and an id in the client protocol's own format.
          expect(r.model).toContain(UPSTREAM_MODEL[up]);
          expect(r.id).toMatch(ID_FORMAT[client]);
          if (mode === 'stream') checkTrace(client, up, r, expected[i] as ExpectedTurn);
          else expect(r.trace).toBeUndefined();
        });
        checkUpstream(client, up, mode, scenario, since(), results);
        await checkTraceIds(mode, bed.exchanges.slice(answersFrom), results.length);
      });
    });
  });
});
