/**
 * What the strict mock OpenAI Responses upstream answers: the deterministic reply of the shared mock
 * contract (echo, two parallel function calls, tool results, a reasoning item on reasoning models,
 * a token cut-off), or a scripted one; the `response` object as OpenAI returns it; and its stream as
 * the full typed event sequence with `sequence_number`.
 */
import { isObj, isReasoningModel } from './mock-openai-responses-validate.js';
import { argsFromSchema, wordChunks } from './mock-reply-parts.js';

type Json = Record<string, unknown>;

const VENDOR = 'responses';
const CREATED_AT = 1767225600;

/** One output item of a scripted reply. `encrypted_content: true` asks for a mock-issued value. */
type OutputSpec =
  | { type: 'text'; text: string }
  /** The model declining: a message whose content is a `refusal` part. */
  | { type: 'refusal'; refusal: string }
  | { type: 'function_call'; name: string; arguments: string; call_id?: string }
  | { type: 'reasoning'; summary?: string[]; encrypted_content?: string | true };

export interface ScriptedUsage {
  input_tokens: number;
  output_tokens: number;
  cached_tokens?: number;
  reasoning_tokens?: number;
  total_tokens?: number;
}

/** A reply scripted by a test (`scriptNext`); unset fields come from the computed reply. */
export interface ScriptedReply {
  output?: OutputSpec[];
  status?: 'completed' | 'incomplete' | 'failed';
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  /** For `status: 'failed'` (default: server_error). */
  error?: { code: string; message: string };
  usage?: ScriptedUsage;
  /** Streams only: after the first delta, an `error` event ends the stream. */
  streamError?: { code: string; message: string };
}

export interface PlannedReply {
  output: OutputSpec[];
  status: 'completed' | 'incomplete' | 'failed';
  incompleteReason?: 'max_output_tokens' | 'content_filter';
  error?: { code: string; message: string };
  usage: Required<ScriptedUsage>;
  streamError?: { code: string; message: string };
}

/** Words with their leading spaces kept: "a b  c" -> ["a", " b", "  c"]. */
const words = (text: string): number => text.split(/\s+/).filter(Boolean).length;

function partsText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .filter((p): p is Json => isObj(p) && typeof p.text === 'string')
    .map((p) => p.text as string)
    .join(' ');
}


/** Items that count toward the prompt (10 tokens each); instructions and system messages do not. */
export function countedItems(history: Json[]): number {
  return history.filter((it) => (it.type === 'message' ? it.role === 'user' || it.role === 'assistant' : it.type === 'function_call' || it.type === 'function_call_output')).length;
}

export interface PlanContext {
  body: Json;
  /** The conversation so far: the previous responses' items, then this request's input. */
  history: Json[];
  /** How many of the history's counted items came from `previous_response_id` (reported as cached). */
  cachedItems: number;
  functionTools: Json[];
}

/** The computed reply of the shared mock contract. */
export function planReply(ctx: PlanContext): PlannedReply {
  const { body, history, functionTools } = ctx;
  const model = String(body.model);
  const reasoningCfg = isObj(body.reasoning) ? body.reasoning : {};
  const thinks = isReasoningModel(model) && reasoningCfg.effort !== 'none';
  const output: OutputSpec[] = [];
  let reasoningTokens = 0;
  if (thinks) {
    reasoningTokens = 8;
    const wantsSummary = reasoningCfg.summary ?? reasoningCfg.generate_summary;
    const include = Array.isArray(body.include) ? body.include : [];
    output.push({
      type: 'reasoning',
      ...(wantsSummary ? { summary: ['Planning the answer.'] } : {}),
      ...(include.includes('reasoning.encrypted_content') ? { encrypted_content: true as const } : {}),
    });
  }
  const last = history[history.length - 1];
  const input = 10 * countedItems(history);
  const cached = 10 * ctx.cachedItems;
  const usage = (text: number, extra = 0): Required<ScriptedUsage> => {
    const outputTokens = reasoningTokens + text + extra;
    return { input_tokens: input, cached_tokens: cached, output_tokens: outputTokens, reasoning_tokens: reasoningTokens, total_tokens: input + outputTokens };
  };

  const choice = body.tool_choice;
  if (functionTools.length && choice !== 'none' && last?.type !== 'function_call_output') {
    const forced = isObj(choice) && choice.type === 'function' ? functionTools.filter((t) => t.name === choice.name) : functionTools;
    const calls = forced.slice(0, body.parallel_tool_calls === false ? 1 : 2);
    calls.forEach((t, i) => output.push({ type: 'function_call', name: String(t.name), arguments: JSON.stringify(argsFromSchema(t.parameters)), call_id: `call_${i + 1}` }));
    return { output, status: 'completed', usage: usage(0, 5 * calls.length) };
  }

  let text: string;
  if (last?.type === 'function_call_output') {
    let start = history.length - 1;
    while (start > 0 && history[start - 1]?.type === 'function_call_output') start--;
    text = `[${VENDOR}] tool results: ${history.slice(start).map((it) => partsText(it.output)).join('; ')}`;
  } else {
    const lastUser = [...history].reverse().find((it) => it.type === 'message' && it.role === 'user');
    text = `[${VENDOR}] you said: ${lastUser ? partsText(lastUser.content) : ''}`;
    if (lastUser && Array.isArray(lastUser.content)) {
      for (const p of lastUser.content) {
        if (isObj(p) && p.type === 'input_image') text += ' [image]';
        if (isObj(p) && p.type === 'input_file') text += ' [pdf]';
      }
    }
  }
  // max_output_tokens caps reasoning plus visible output: one token per word here.
  const max = typeof body.max_output_tokens === 'number' ? body.max_output_tokens : undefined;
  if (max !== undefined && reasoningTokens + words(text) > max) {
    const budget = Math.max(0, max - reasoningTokens);
    text = text.split(/\s+/).filter(Boolean).slice(0, budget).join(' ');
    if (text) output.push({ type: 'text', text });
    return { output, status: 'incomplete', incompleteReason: 'max_output_tokens', usage: usage(words(text)) };
  }
  output.push({ type: 'text', text });
  return { output, status: 'completed', usage: usage(words(text)) };
}

/** A scripted reply over the computed one. */
export function applyScript(computed: PlannedReply, script: ScriptedReply): PlannedReply {
  const out: PlannedReply = { ...computed, ...(script.output ? { output: script.output } : {}), status: script.status ?? (script.output ? 'completed' : computed.status) };
  if (script.output || script.status) delete out.incompleteReason;
  if (out.status === 'incomplete') out.incompleteReason = script.incompleteReason ?? computed.incompleteReason ?? 'max_output_tokens';
  if (out.status === 'failed') out.error = script.error ?? { code: 'server_error', message: 'The server had an error while processing your request.' };
  if (script.usage) {
    const u = script.usage;
    out.usage = {
      input_tokens: u.input_tokens,
      output_tokens: u.output_tokens,
      cached_tokens: u.cached_tokens ?? 0,
      reasoning_tokens: u.reasoning_tokens ?? 0,
      total_tokens: u.total_tokens ?? u.input_tokens + u.output_tokens,
    };
  }
  if (script.streamError) out.streamError = script.streamError;
  return out;
}

/** Output items as OpenAI returns them; `issue` mints encrypted reasoning content. */
export function outputItems(plan: PlannedReply, respKey: string, issue: (itemId: string) => string): Json[] {
  let callNo = 0;
  return plan.output.map((spec, i) => {
    const last = i === plan.output.length - 1;
    switch (spec.type) {
      case 'text':
        return {
          id: `msg_${respKey}_${i}`,
          type: 'message',
          status: plan.status === 'incomplete' && last ? 'incomplete' : 'completed',
          role: 'assistant',
          content: [{ type: 'output_text', text: spec.text, annotations: [], logprobs: [] }],
        };
      case 'refusal':
        return { id: `msg_${respKey}_${i}`, type: 'message', status: 'completed', role: 'assistant', content: [{ type: 'refusal', refusal: spec.refusal }] };
      case 'function_call':
        callNo++;
        return { id: `fc_${respKey}_${i}`, type: 'function_call', status: 'completed', arguments: spec.arguments, call_id: spec.call_id ?? `call_${respKey}_${callNo}`, name: spec.name };
      case 'reasoning': {
        const id = `rs_${respKey}_${i}`;
        const enc = spec.encrypted_content === true ? issue(id) : spec.encrypted_content;
        return { id, type: 'reasoning', summary: (spec.summary ?? []).map((text) => ({ type: 'summary_text', text })), ...(enc !== undefined ? { encrypted_content: enc } : {}) };
      }
    }
  });
}

export function usageJson(u: Required<ScriptedUsage>): Json {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached_tokens },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: u.reasoning_tokens },
    total_tokens: u.total_tokens,
  };
}

/** The full `response` object, echoing the request's settings as OpenAI does. */
export function responseObject(body: Json, fields: { id: string; model: string; status: string; output: Json[]; usage: Json | null; error?: Json | null; incompleteReason?: string | undefined }): Json {
  const reasoning = isObj(body.reasoning) ? body.reasoning : {};
  const text = isObj(body.text) ? body.text : {};
  const done = fields.status === 'completed' || fields.status === 'incomplete' || fields.status === 'failed' || fields.status === 'cancelled';
  return {
    id: fields.id,
    object: 'response',
    created_at: CREATED_AT,
    status: fields.status,
    background: body.background ?? false,
    completed_at: fields.status === 'completed' ? CREATED_AT + 1 : null,
    error: fields.error ?? null,
    incomplete_details: fields.incompleteReason ? { reason: fields.incompleteReason } : null,
    instructions: body.instructions ?? null,
    max_output_tokens: body.max_output_tokens ?? null,
    max_tool_calls: body.max_tool_calls ?? null,
    model: fields.model,
    output: fields.output,
    parallel_tool_calls: body.parallel_tool_calls ?? true,
    previous_response_id: body.previous_response_id ?? null,
    prompt_cache_key: body.prompt_cache_key ?? null,
    reasoning: { effort: reasoning.effort ?? (isReasoningModel(String(body.model)) ? 'medium' : null), summary: reasoning.summary ?? null },
    safety_identifier: body.safety_identifier ?? null,
    service_tier: done ? (body.service_tier && body.service_tier !== 'auto' ? body.service_tier : 'default') : (body.service_tier ?? 'auto'),
    store: body.store ?? true,
    temperature: body.temperature ?? 1,
    text: { format: text.format ?? { type: 'text' }, verbosity: text.verbosity ?? 'medium' },
    tool_choice: body.tool_choice ?? 'auto',
    tools: Array.isArray(body.tools) ? body.tools : [],
    top_logprobs: body.top_logprobs ?? 0,
    top_p: body.top_p ?? 1,
    truncation: body.truncation ?? 'disabled',
    usage: fields.usage,
    user: body.user ?? null,
    metadata: body.metadata ?? {},
  };
}

export type StreamEvent = Json & { type: string; sequence_number: number };

/**
 * The stream of a finished response: created, in_progress, then every output item fully announced
 * (added -> parts -> deltas -> done -> item done, one item after another), then the terminal event.
 * `obfuscation` mimics OpenAI's default padding field on delta events.
 */
export function streamEvents(final: Json, opts: { obfuscate: boolean }): StreamEvent[] {
  const events: StreamEvent[] = [];
  const emit = (type: string, payload: Json): void => void events.push({ type, sequence_number: events.length, ...payload });
  const pad = (delta: string): Json => (opts.obfuscate ? { obfuscation: 'x'.repeat(Math.max(1, 12 - delta.length)) } : {});
  const start = { ...final, status: 'in_progress', completed_at: null, error: null, incomplete_details: null, output: [], usage: null };
  emit('response.created', { response: start });
  emit('response.in_progress', { response: start });
  const output = Array.isArray(final.output) ? (final.output as Json[]) : [];
  output.forEach((item, output_index) => {
    const item_id = String(item.id);
    const base = { item_id, output_index };
    if (item.type === 'message') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', content: [] } });
      (item.content as Json[]).forEach((part, content_index) => {
        if (part.type === 'refusal') {
          const refusal = String(part.refusal);
          emit('response.content_part.added', { ...base, content_index, part: { type: 'refusal', refusal: '' } });
          for (const delta of wordChunks(refusal)) emit('response.refusal.delta', { ...base, content_index, delta, ...pad(delta) });
          emit('response.refusal.done', { ...base, content_index, refusal });
          emit('response.content_part.done', { ...base, content_index, part });
          return;
        }
        const text = String(part.text ?? '');
        emit('response.content_part.added', { ...base, content_index, part: { type: 'output_text', text: '', annotations: [], logprobs: [] } });
        for (const delta of wordChunks(text)) emit('response.output_text.delta', { ...base, content_index, delta, logprobs: [], ...pad(delta) });
        emit('response.output_text.done', { ...base, content_index, text, logprobs: [] });
        emit('response.content_part.done', { ...base, content_index, part });
      });
    } else if (item.type === 'function_call') {
      emit('response.output_item.added', { output_index, item: { ...item, status: 'in_progress', arguments: '' } });
      const args = String(item.arguments);
      const half = Math.ceil(args.length / 2);
      for (const delta of [args.slice(0, half), args.slice(half)]) if (delta) emit('response.function_call_arguments.delta', { ...base, delta, ...pad(delta) });
      emit('response.function_call_arguments.done', { ...base, name: item.name, arguments: args });
    } else if (item.type === 'reasoning') {
      // encrypted_content only arrives with output_item.done.
      emit('response.output_item.added', { output_index, item: { id: item.id, type: 'reasoning', summary: [] } });
      (item.summary as Json[]).forEach((part, summary_index) => {
        const text = String(part.text);
        emit('response.reasoning_summary_part.added', { ...base, summary_index, part: { type: 'summary_text', text: '' } });
        for (const delta of wordChunks(text)) emit('response.reasoning_summary_text.delta', { ...base, summary_index, delta, ...pad(delta) });
        emit('response.reasoning_summary_text.done', { ...base, summary_index, text });
        emit('response.reasoning_summary_part.done', { ...base, summary_index, part });
      });
    }
    emit('response.output_item.done', { output_index, item });
  });
  const terminal = final.status === 'incomplete' ? 'response.incomplete' : final.status === 'failed' ? 'response.failed' : 'response.completed';
  emit(terminal, { response: final });
  return events;
}
