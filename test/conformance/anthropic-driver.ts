/**
 * Conformance scenarios driven by the official `@anthropic-ai/sdk` (Messages). Sync turns use
 * `messages.create`; streamed turns use `messages.stream(...)`, listening to every stream event and
 * taking the answer from `finalMessage()`.
 */
import type Anthropic from '@anthropic-ai/sdk';
import { INPUT, mutableSchema, PDF, PNG, TOOLS, type Driver, type NormalizedFinish, type ScenarioRun, type StreamTrace, type TurnResult } from './types.js';

type Params = Omit<Anthropic.MessageCreateParamsNonStreaming, 'model' | 'max_tokens'> & { max_tokens?: number };
type AnthropicTrace = Extract<StreamTrace, { client: 'anthropic' }>;

const MAX_TOKENS = 1024;

const tools: Anthropic.Tool[] = TOOLS.map((t) => ({
  name: t.name,
  description: t.description,
  input_schema: mutableSchema(t.parameters) as Anthropic.Tool.InputSchema,
}));

function finishOf(raw: string | null): NormalizedFinish {
  switch (raw) {
    case 'end_turn': return 'stop';
    case 'max_tokens': return 'length';
    case 'tool_use': return 'tool_calls';
    case 'stop_sequence': return 'stop_sequence';
    default: return 'other';
  }
}

function normalize(m: Anthropic.Message, trace?: AnthropicTrace): TurnResult {
  const toolUses = m.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
  return {
    text: m.content.map((b) => (b.type === 'text' ? b.text : '')).join(''),
    toolCalls: toolUses.map((b, index) => ({ id: b.id, index, name: b.name, args: b.input as Record<string, unknown> })),
    finishReason: finishOf(m.stop_reason),
    rawFinish: m.stop_reason,
    stopSequence: m.stop_sequence,
    usage: { input: m.usage.input_tokens, output: m.usage.output_tokens },
    model: m.model,
    id: m.id,
    ...(trace ? { trace } : {}),
  };
}

function usageRecord(u: unknown): Record<string, unknown> {
  return u && typeof u === 'object' ? { ...(u as Record<string, unknown>) } : {};
}

export function anthropicDriver(client: Anthropic): Driver {
  async function turn(run: ScenarioRun, params: Params): Promise<{ result: TurnResult; message: Anthropic.Message }> {
    const body = { max_tokens: MAX_TOKENS, ...params, model: run.model };
    if (run.mode === 'sync') {
      const m = await client.messages.create(body);
      return { result: normalize(m), message: m };
    }
    const trace: AnthropicTrace = { client: 'anthropic', events: [], blockStarts: [], blockStops: [], textDeltas: 0, jsonDeltas: 0, startUsage: {}, deltaUsage: {} };
    const stream = client.messages.stream(body);
    stream.on('streamEvent', (ev) => {
      trace.events.push(ev.type);
      switch (ev.type) {
        case 'message_start':
          trace.startUsage = usageRecord(ev.message.usage);
          break;
        case 'content_block_start':
          trace.blockStarts.push({ index: ev.index, type: ev.content_block.type });
          break;
        case 'content_block_delta':
          if (ev.delta.type === 'text_delta') trace.textDeltas++;
          else if (ev.delta.type === 'input_json_delta') trace.jsonDeltas++;
          break;
        case 'content_block_stop':
          trace.blockStops.push(ev.index);
          break;
        case 'message_delta':
          trace.deltaUsage = usageRecord(ev.usage);
          break;
        default:
          break;
      }
    });
    const m = await stream.finalMessage();
    return { result: normalize(m, trace), message: m };
  }

  const user = (text: string): Anthropic.MessageParam => ({ role: 'user', content: text });
  const history = (items: ReadonlyArray<{ role: 'user' | 'assistant'; text: string }>): Anthropic.MessageParam[] => items.map((m) => ({ role: m.role, content: m.text }));

  return {
    'plain-text': async (run) => [(await turn(run, { messages: [user(INPUT.plain)] })).result],

    'system-multi-turn': async (run) => [(await turn(run, { system: INPUT.system, messages: history(INPUT.history) })).result],

    'parallel-tools': async (run) => {
      const messages = [user(INPUT.toolPrompt)];
      const first = await turn(run, { messages, tools, tool_choice: { type: 'auto' } });
      const uses = first.message.content.filter((b): b is Anthropic.ToolUseBlock => b.type === 'tool_use');
      const second = await turn(run, {
        tools,
        messages: [
          ...messages,
          { role: 'assistant', content: first.message.content.map((b) => (b.type === 'tool_use' ? { type: 'tool_use' as const, id: b.id, name: b.name, input: b.input } : b)) as Anthropic.ContentBlockParam[] },
          { role: 'user', content: uses.map((b, i): Anthropic.ToolResultBlockParam => ({ type: 'tool_result', tool_use_id: b.id, content: i === 0 ? (INPUT.toolResults[i] ?? '') : [{ type: 'text', text: INPUT.toolResults[i] ?? '' }] })) },
        ],
      });
      return [first.result, second.result];
    },

    'image-input': async (run) => [
      (await turn(run, { messages: [{ role: 'user', content: [{ type: 'text', text: INPUT.imagePrompt }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: PNG } }, { type: 'image', source: { type: 'url', url: INPUT.imageUrl } }] }] })).result,
    ],

    'pdf-input': async (run) => [
      (await turn(run, { messages: [{ role: 'user', content: [{ type: 'text', text: INPUT.pdfPrompt }, { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF } }] }] })).result,
    ],

    'stop-and-max-tokens': async (run) => [
      (await turn(run, { messages: [user(INPUT.stopPrompt)], stop_sequences: [INPUT.stopSequence] })).result,
      (await turn(run, { messages: [user(INPUT.stopPrompt)], max_tokens: INPUT.maxTokens })).result,
    ],

    usage: async (run) => [(await turn(run, { messages: history(INPUT.usageHistory) })).result],
  };
}
