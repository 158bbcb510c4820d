/**
 * Deterministic answers of the mock Anthropic upstream (shared mock-vendor contract): the reply
 * message and the exact SSE event sequence the real API streams for it.
 */
import { mockSignature } from './mock-anthropic-validate.js';
import { wordChunksKeepingSpace } from './mock-reply-parts.js';

type Json = Record<string, unknown>;

export interface AnthropicReply {
  content: Json[];
  stopReason: 'end_turn' | 'max_tokens' | 'stop_sequence' | 'tool_use' | 'refusal';
  stopSequence: string | null;
  inputTokens: number;
  outputTokens: number;
}

const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

function blocksOf(content: unknown): Json[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return Array.isArray(content) ? (content.filter(isObj) as Json[]) : [];
}

function resultText(block: Json): string {
  const c = block.content;
  if (c === undefined) return '';
  if (typeof c === 'string') return c;
  return blocksOf(c)
    .filter((b) => b.type === 'text')
    .map((b) => String(b.text))
    .join(' ');
}

function sampleValue(schema: unknown): unknown {
  const type = isObj(schema) ? schema.type : undefined;
  if (type === 'number' || type === 'integer') return 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return 'Paris';
}

function argsFor(tool: Json): Json {
  const schema = isObj(tool.input_schema) ? tool.input_schema : {};
  const props = isObj(schema.properties) ? schema.properties : {};
  const args: Json = {};
  for (const [name, prop] of Object.entries(props)) args[name] = sampleValue(prop);
  return args;
}

const words = (text: string): string[] => text.split(/\s+/).filter(Boolean);

/** What the mock answers to a validated request body. */
export function planAnthropicReply(body: Json): AnthropicReply {
  // Mid-conversation system messages (beta) are neither turns nor counted as input.
  const messages = ((body.messages as Json[]) ?? []).filter((m) => m.role !== 'system');
  const inputTokens = 10 * messages.length;
  const last = messages[messages.length - 1] ?? {};
  const lastBlocks = blocksOf(last.content);
  const results = last.role === 'user' ? lastBlocks.filter((b) => b.type === 'tool_result') : [];
  const tools = Array.isArray(body.tools) ? (body.tools.filter(isObj) as Json[]) : [];
  const functionTools = tools.filter((t) => t.type === undefined || t.type === null || t.type === 'custom');
  const choice = isObj(body.tool_choice) ? body.tool_choice.type : undefined;
  const content: Json[] = [];
  const thinking = isObj(body.thinking) && (body.thinking.type === 'enabled' || body.thinking.type === 'adaptive');
  if (thinking) {
    const text = 'Let me think about this.';
    content.push({ type: 'thinking', thinking: text, signature: mockSignature(text) });
  }

  if (functionTools.length > 0 && choice !== 'none' && results.length === 0) {
    functionTools.slice(0, 2).forEach((t, i) => content.push({ type: 'tool_use', id: `toolu_${i + 1}`, name: String(t.name), input: argsFor(t) }));
    const calls = content.filter((b) => b.type === 'tool_use').length;
    return { content, stopReason: 'tool_use', stopSequence: null, inputTokens, outputTokens: 5 * calls };
  }

  let text: string;
  if (results.length > 0) {
    text = `[anthropic] tool results: ${results.map(resultText).join('; ')}`;
  } else {
    const lastUser = [...messages].reverse().find((m) => m.role === 'user');
    const blocks = blocksOf(lastUser?.content);
    text = `[anthropic] you said: ${blocks.filter((b) => b.type === 'text').map((b) => String(b.text)).join(' ')}`;
    for (const b of blocks) {
      if (b.type === 'image') text += ' [image]';
      else if (b.type === 'document') text += ' [pdf]';
    }
  }

  let stopReason: AnthropicReply['stopReason'] = 'end_turn';
  let stopSequence: string | null = null;
  const stops = Array.isArray(body.stop_sequences) ? (body.stop_sequences as string[]) : [];
  let cut = -1;
  for (const s of stops) {
    const at = s === '' ? -1 : text.indexOf(s);
    if (at >= 0 && (cut < 0 || at < cut)) {
      cut = at;
      stopSequence = s;
    }
  }
  if (cut >= 0) {
    text = text.slice(0, cut);
    stopReason = 'stop_sequence';
  }
  const maxTokens = typeof body.max_tokens === 'number' ? body.max_tokens : Infinity;
  const w = words(text);
  if (w.length > maxTokens) {
    text = w.slice(0, maxTokens).join(' ');
    stopReason = 'max_tokens';
    stopSequence = null;
  }
  if (text !== '') content.push({ type: 'text', text });
  return { content, stopReason, stopSequence, inputTokens, outputTokens: words(text).length };
}

/** A reply scripted by a test (`scriptNext`): these blocks after the computed thinking. */
export interface ScriptedAnthropicReply {
  content: Json[];
  /** `refusal`: the model declined (Claude's streaming classifiers), with what it said so far. */
  stopReason?: 'refusal';
}

/** The computed reply with scripted blocks in place of its text or calls; usage counted the same way. */
export function applyScript(computed: AnthropicReply, script: ScriptedAnthropicReply): AnthropicReply {
  const thinking = computed.content.filter((b) => b.type === 'thinking');
  const text = script.content.filter((b) => b.type === 'text').map((b) => String(b.text)).join(' ');
  const calls = script.content.filter((b) => b.type === 'tool_use').length;
  return {
    ...computed,
    content: [...thinking, ...script.content],
    stopReason: script.stopReason ?? (calls > 0 ? 'tool_use' : 'end_turn'),
    stopSequence: null,
    outputTokens: words(text).length + 5 * calls,
  };
}

function usage(reply: AnthropicReply, outputTokens: number): Json {
  const searches = reply.content.filter((b) => b.type === 'server_tool_use' && b.name === 'web_search').length;
  return {
    input_tokens: reply.inputTokens,
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: outputTokens,
    ...(searches ? { server_tool_use: { web_search_requests: searches } } : {}),
    service_tier: 'standard',
  };
}

export function messageJson(reply: AnthropicReply, id: string, model: string): Json {
  return {
    id,
    type: 'message',
    role: 'assistant',
    model,
    content: reply.content,
    stop_reason: reply.stopReason,
    stop_sequence: reply.stopSequence,
    usage: usage(reply, reply.outputTokens),
  };
}

/** Splits a text into one chunk per word, keeping the spaces (`"a b"` -> `["a", " b"]`). */

/** The stream as [event name, data] pairs in the real wire order. */
export function streamEvents(reply: AnthropicReply, id: string, model: string): Array<[string, Json]> {
  const out: Array<[string, Json]> = [];
  out.push(['message_start', { type: 'message_start', message: { id, type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: usage(reply, 1) } }]);
  reply.content.forEach((block, index) => {
    const delta = (d: Json): void => void out.push(['content_block_delta', { type: 'content_block_delta', index, delta: d }]);
    const start = (contentBlock: Json): void => {
      out.push(['content_block_start', { type: 'content_block_start', index, content_block: contentBlock }]);
      if (index === 0) out.push(['ping', { type: 'ping' }]);
    };
    if (block.type === 'text') {
      start({ type: 'text', text: '' });
      // A cited block announces its citations before its text, one citations_delta each.
      for (const c of Array.isArray(block.citations) ? (block.citations as Json[]) : []) delta({ type: 'citations_delta', citation: c });
      for (const w of wordChunksKeepingSpace(String(block.text))) delta({ type: 'text_delta', text: w });
    } else if (block.type === 'thinking') {
      start({ type: 'thinking', thinking: '', signature: '' });
      for (const w of wordChunksKeepingSpace(String(block.thinking))) delta({ type: 'thinking_delta', thinking: w });
      delta({ type: 'signature_delta', signature: String(block.signature) });
    } else if (block.type === 'web_search_tool_result') {
      // Search results arrive whole in the block's start, with no deltas.
      start(block);
    } else if (block.type === 'tool_use' || block.type === 'server_tool_use') {
      start({ type: block.type, id: block.id, name: block.name, input: {} });
      const json = JSON.stringify(block.input);
      const half = Math.ceil(json.length / 2);
      delta({ type: 'input_json_delta', partial_json: json.slice(0, half) });
      delta({ type: 'input_json_delta', partial_json: json.slice(half) });
    }
    out.push(['content_block_stop', { type: 'content_block_stop', index }]);
  });
  out.push([
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: reply.stopReason, stop_sequence: reply.stopSequence }, usage: usage(reply, reply.outputTokens) },
  ]);
  out.push(['message_stop', { type: 'message_stop' }]);
  return out;
}
