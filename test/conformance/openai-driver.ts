/**
 * Conformance scenarios driven by the official `openai` SDK (Chat Completions). Sync turns use
 * `chat.completions.create`; streamed turns use the `chat.completions.stream()` helper (and plain
 * `create({stream: true})` for the usage scenario), recording what each chunk carried.
 */
import type OpenAI from 'openai';
import { INPUT, mutableSchema, PDF, PNG, TOOLS, type Driver, type NormalizedFinish, type ScenarioRun, type StreamTrace, type TurnResult } from './types.js';

type Params = Omit<OpenAI.ChatCompletionCreateParamsNonStreaming, 'model' | 'stream'>;
type Message = OpenAI.ChatCompletionMessageParam;
type OpenAITrace = Extract<StreamTrace, { client: 'openai' }>;

const tools: OpenAI.ChatCompletionTool[] = TOOLS.map((t) => ({
  type: 'function',
  function: { name: t.name, description: t.description, parameters: mutableSchema(t.parameters) },
}));

function finishOf(raw: string | null | undefined): NormalizedFinish {
  return raw === 'stop' ? 'stop' : raw === 'length' ? 'length' : raw === 'tool_calls' ? 'tool_calls' : 'other';
}

function normalize(c: OpenAI.ChatCompletion, trace?: OpenAITrace): TurnResult {
  const choice = c.choices[0];
  if (!choice) throw new Error('completion without choices');
  const calls = (choice.message.tool_calls ?? []).flatMap((tc, index) =>
    tc.type === 'function' ? [{ id: tc.id, index, name: tc.function.name, args: JSON.parse(tc.function.arguments) as Record<string, unknown> }] : [],
  );
  return {
    text: choice.message.content ?? '',
    toolCalls: calls,
    finishReason: finishOf(choice.finish_reason),
    rawFinish: choice.finish_reason ?? null,
    stopSequence: null,
    usage: c.usage ? { input: c.usage.prompt_tokens, output: c.usage.completion_tokens, total: c.usage.total_tokens } : undefined,
    model: c.model,
    id: c.id,
    ...(trace ? { trace } : {}),
  };
}

function newTrace(): OpenAITrace & { seen: Set<number>; idSet: Set<string> } {
  return { client: 'openai', contentDeltas: 0, toolCallStarts: [], toolCallRepeats: 0, argumentFragments: {}, finishChunks: 0, usageChunks: [], ids: 0, seen: new Set(), idSet: new Set() };
}

function observe(trace: ReturnType<typeof newTrace>, chunk: OpenAI.ChatCompletionChunk): void {
  trace.idSet.add(chunk.id);
  trace.ids = trace.idSet.size;
  if (chunk.usage) trace.usageChunks.push({ choices: chunk.choices.length });
  for (const ch of chunk.choices) {
    if (ch.delta.content) trace.contentDeltas++;
    for (const tc of ch.delta.tool_calls ?? []) {
      if (!trace.seen.has(tc.index)) {
        trace.seen.add(tc.index);
        trace.toolCallStarts.push({ index: tc.index, id: tc.id, name: tc.function?.name });
      } else if (tc.id !== undefined || tc.type !== undefined || tc.function?.name !== undefined) trace.toolCallRepeats++;
      if (tc.function?.arguments) trace.argumentFragments[tc.index] = (trace.argumentFragments[tc.index] ?? 0) + 1;
    }
    if (ch.finish_reason) trace.finishChunks++;
  }
}

function publicTrace(t: ReturnType<typeof newTrace>): OpenAITrace {
  const { seen: _s, idSet: _i, ...rest } = t;
  return rest;
}

/** The assistant message to send back: only wire fields (no SDK-added `parsed` fields). */
function assistantParam(msg: OpenAI.ChatCompletionMessage): OpenAI.ChatCompletionAssistantMessageParam {
  return {
    role: 'assistant',
    content: msg.content,
    ...(msg.tool_calls?.length
      ? { tool_calls: msg.tool_calls.flatMap((tc) => (tc.type === 'function' ? [{ id: tc.id, type: 'function' as const, function: { name: tc.function.name, arguments: tc.function.arguments } }] : [])) }
      : {}),
  };
}

export function openAIDriver(client: OpenAI): Driver {
  /** One turn; streams go through the `.stream()` helper with include_usage. */
  async function turn(run: ScenarioRun, params: Params): Promise<{ result: TurnResult; message: OpenAI.ChatCompletionMessage }> {
    if (run.mode === 'sync') {
      const c = await client.chat.completions.create({ ...params, model: run.model });
      return { result: normalize(c), message: (c.choices[0] as OpenAI.ChatCompletion.Choice).message };
    }
    const trace = newTrace();
    const stream = client.chat.completions.stream({ ...params, model: run.model, stream_options: { include_usage: true } });
    stream.on('chunk', (chunk) => observe(trace, chunk));
    const final = await stream.finalChatCompletion();
    return { result: normalize(final, publicTrace(trace)), message: (final.choices[0] as OpenAI.ChatCompletion.Choice).message };
  }

  /** A stream read with plain create({stream: true}), assembling text and usage by hand. */
  async function rawStream(run: ScenarioRun, params: Params, includeUsage: boolean): Promise<TurnResult> {
    const trace = newTrace();
    const stream = await client.chat.completions.create({ ...params, model: run.model, stream: true, ...(includeUsage ? { stream_options: { include_usage: true } } : {}) });
    let text = '';
    let finish: string | null = null;
    let usage: OpenAI.CompletionUsage | undefined;
    let model: string | undefined;
    let id: string | undefined;
    for await (const chunk of stream) {
      observe(trace, chunk);
      model = chunk.model;
      id = chunk.id;
      for (const ch of chunk.choices) {
        text += ch.delta.content ?? '';
        if (ch.finish_reason) finish = ch.finish_reason;
      }
      if (chunk.usage) usage = chunk.usage;
    }
    return {
      text,
      toolCalls: [],
      finishReason: finishOf(finish),
      rawFinish: finish,
      stopSequence: null,
      usage: usage ? { input: usage.prompt_tokens, output: usage.completion_tokens, total: usage.total_tokens } : undefined,
      model,
      id,
      trace: publicTrace(trace),
    };
  }

  const user = (text: string): Message => ({ role: 'user', content: text });
  const history = (items: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>): Message[] => items.map((m) => ({ role: m.role, content: m.text }));

  return {
    'plain-text': async (run) => [(await turn(run, { messages: [user(INPUT.plain)] })).result],

    'system-multi-turn': async (run) => [(await turn(run, { messages: [{ role: 'system', content: INPUT.system }, ...history(INPUT.history)] })).result],

    'parallel-tools': async (run) => {
      const messages: Message[] = [user(INPUT.toolPrompt)];
      const first = await turn(run, { messages, tools });
      const calls = first.message.tool_calls ?? [];
      const second = await turn(run, {
        tools,
        messages: [
          ...messages,
          assistantParam(first.message),
          // The second result as text parts, the first as a plain string.
          ...calls.map((tc, i): Message => ({ role: 'tool', tool_call_id: tc.id, content: i === 0 ? (INPUT.toolResults[i] ?? '') : [{ type: 'text', text: INPUT.toolResults[i] ?? '' }] })),
        ],
      });
      return [first.result, second.result];
    },

    'image-input': async (run) => [
      (await turn(run, { messages: [{ role: 'user', content: [{ type: 'text', text: INPUT.imagePrompt }, { type: 'image_url', image_url: { url: `data:image/png;base64,${PNG}` } }, { type: 'image_url', image_url: { url: INPUT.imageUrl } }] }] })).result,
    ],

    'pdf-input': async (run) => [
      (await turn(run, { messages: [{ role: 'user', content: [{ type: 'text', text: INPUT.pdfPrompt }, { type: 'file', file: { file_data: `data:application/pdf;base64,${PDF}`, filename: 'doc.pdf' } }] }] })).result,
    ],

    'stop-and-max-tokens': async (run) => [
      (await turn(run, { messages: [user(INPUT.stopPrompt)], stop: [INPUT.stopSequence] })).result,
      (await turn(run, { messages: [user(INPUT.stopPrompt)], max_completion_tokens: INPUT.maxTokens })).result,
    ],

    usage: async (run) => {
      const params: Params = { messages: history(INPUT.usageHistory) };
      if (run.mode === 'sync') return [(await turn(run, params)).result];
      // Plain create({stream: true}): with include_usage the last chunk has usage and no choices;
      // without it, no usage chunk may reach the client (even though the gateway needs one upstream).
      return [await rawStream(run, params, true), await rawStream(run, params, false)];
    },
  };
}
