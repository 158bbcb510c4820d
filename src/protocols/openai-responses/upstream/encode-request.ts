/**
 * IR chat request -> OpenAI Responses request body, for models a config marks `"api": "responses"`
 * (the codex and `-pro` families that only the Responses API serves). Stateless on purpose
 * (`store: false`): the gateway sends the whole history every turn, with reasoning items replayed
 * through their `encrypted_content` (asked for with `include`).
 */
import { GatewayError } from '../../../core/errors.js';
import { dataUrl } from '../../../ir/media.js';
import type { IRChatRequest, IRContentPart, IRFilePart, IRImagePart, IRMessage, IRTextPart, IRToolResultPart, IRWarning, IRWebSearchTool } from '../../../ir/types.js';
import { isReasoningModel as isChatReasoningModel } from '../../openai-chat/upstream/encode-request.js';
import { noReasoning } from '../../shared/dropped-settings.js';
import type { UpstreamTarget } from '../../types.js';
import { openAIReasoningOf } from './reasoning-signature.js';
import type { Json } from '../../shared/json.js';

/** OpenAI rejects max_output_tokens below this. */
const MIN_OUTPUT_TOKENS = 16;

/** Reasoning families (o-series, gpt-5, codex): they take `reasoning` and refuse temperature/top_p. */
function isResponsesReasoningModel(model: string): boolean {
  return isChatReasoningModel(model) || /codex/i.test(model);
}

/** Chat Completions fields (kept by the chat decoder) that mean the same in the Responses API. */
const SHARED_CHAT_FIELDS = ['metadata', 'service_tier', 'prompt_cache_key', 'prompt_cache_retention', 'safety_identifier'];

/** Responses fields a Responses client may have sent that the gateway owns: state and transport. */
const GATEWAY_OWNED = new Set(['model', 'input', 'instructions', 'store', 'stream', 'stream_options', 'previous_response_id', 'conversation', 'background']);

/** A thinking budget (Anthropic/Gemini clients) as the nearest OpenAI effort. */
function effortForBudget(budget: number): 'minimal' | 'low' | 'medium' | 'high' {
  if (budget <= 1024) return 'minimal';
  if (budget <= 4096) return 'low';
  if (budget <= 12288) return 'medium';
  return 'high';
}

export function encodeResponsesRequest(req: IRChatRequest, upstreamModel: string, target: UpstreamTarget = {}): { body: Json; warnings: IRWarning[] } {
  const warnings: IRWarning[] = [];
  const reasoningModel = target.reasoning ?? isResponsesReasoningModel(upstreamModel);
  const body: Json = { model: upstreamModel };
  if (req.system?.length) body.instructions = req.system.map((p) => p.text).join('\n\n');
  body.input = encodeInput(req.messages, warnings);
  body.store = false;
  if (req.stream) body.stream = true;

  if (req.n !== undefined && req.n !== 1) throw new GatewayError('unsupported', `The Responses API model '${upstreamModel}' returns one answer per request; n must be 1.`, { param: 'n' });
  if (req.stop?.length) throw new GatewayError('unsupported', `The Responses API model '${upstreamModel}' does not support stop sequences.`, { param: 'stop' });
  if (req.maxTokens !== undefined) {
    body.max_output_tokens = Math.max(MIN_OUTPUT_TOKENS, req.maxTokens);
    if (req.maxTokens < MIN_OUTPUT_TOKENS) warnings.push({ setting: 'maxTokens', action: `raised to ${MIN_OUTPUT_TOKENS}`, message: `The Responses API needs at least ${MIN_OUTPUT_TOKENS} output tokens; ${MIN_OUTPUT_TOKENS} was sent instead of ${req.maxTokens}.` });
  }
  for (const [field, value, wire] of [['temperature', req.temperature, 'temperature'], ['topP', req.topP, 'top_p']] as const) {
    if (value === undefined) continue;
    if (reasoningModel) warnings.push({ setting: field, action: 'dropped (not supported by this reasoning model)', message: `The reasoning model '${upstreamModel}' takes no ${wire}; ignored.` });
    else body[wire] = value;
  }
  for (const [field, value] of [['topK', req.topK], ['presencePenalty', req.presencePenalty], ['frequencyPenalty', req.frequencyPenalty], ['seed', req.seed]] as const) {
    if (value !== undefined) warnings.push({ setting: field, action: 'dropped (not supported by openai responses)', message: `The Responses API has no ${field}; ignored.` });
  }
  if (req.user !== undefined) body.user = req.user;

  const r = req.reasoning;
  if (r && (r.effort !== undefined || r.budgetTokens !== undefined || r.includeThoughts)) {
    if (!reasoningModel) {
      if (r.effort !== undefined || r.budgetTokens !== undefined) warnings.push(noReasoning(upstreamModel, target));
    } else {
      const effort = r.effort ?? (r.budgetTokens !== undefined && r.budgetTokens > 0 ? effortForBudget(r.budgetTokens) : undefined);
      const reasoning: Json = {};
      if (effort) reasoning.effort = effort;
      // A client that shows thoughts gets OpenAI's reasoning summaries.
      if (r.includeThoughts && effort !== 'none') reasoning.summary = 'auto';
      if (Object.keys(reasoning).length) body.reasoning = reasoning;
    }
  }
  // Reasoning state survives a stateless turn only as encrypted content.
  if (reasoningModel) body.include = ['reasoning.encrypted_content'];

  if (req.tools?.length) {
    body.tools = req.tools.map((t) => {
      if (t.type === 'provider') {
        if (t.protocol === 'openai-responses') return t.raw;
        throw new GatewayError('unsupported', `The tool ${t.name} is specific to ${t.protocol} and cannot be sent to the OpenAI model '${upstreamModel}'.`, { param: 'tools' });
      }
      if (t.type === 'web-search') return t.raw ?? webSearchTool(t);
      // strict is sent explicitly: with strict on, OpenAI rejects schemas that are not Structured-Outputs-ready.
      return { type: 'function', name: t.name, ...(t.description ? { description: t.description } : {}), parameters: t.parameters ?? { type: 'object', properties: {} }, strict: t.strict ?? false };
    });
    if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  }
  if (req.toolChoice) {
    const c = req.toolChoice;
    body.tool_choice = c.type === 'tool' ? { type: 'function', name: c.name } : c.type === 'web-search' ? { type: 'web_search' } : c.type;
  }
  if (req.responseFormat) {
    const rf = req.responseFormat;
    const format =
      rf.type === 'json' ? { type: 'json_object' }
      : rf.type === 'json_schema' ? { type: 'json_schema', name: rf.name ?? 'response', schema: rf.schema, ...(rf.description ? { description: rf.description } : {}), ...(rf.strict !== undefined ? { strict: rf.strict } : {}) }
      : { type: 'text' };
    body.text = { format };
  }
  copyExtras(req, body, warnings);
  return { body, warnings };
}

/** Vendor fields the IR does not model: a Responses client's own, and the chat fields that mean the same here. */
function copyExtras(req: IRChatRequest, body: Json, warnings: IRWarning[]): void {
  const own = req.providerOptions?.['openai-responses'];
  if (own) for (const [k, v] of Object.entries(own)) if (!Object.hasOwn(body, k) && !GATEWAY_OWNED.has(k)) body[k] = v;
  const chat = req.providerOptions?.['openai-chat'];
  if (!chat) return;
  for (const [k, v] of Object.entries(chat)) {
    if (SHARED_CHAT_FIELDS.includes(k)) {
      if (!Object.hasOwn(body, k)) body[k] = v;
    } else if (k === 'verbosity' && typeof v === 'string') {
      body.text = { ...(body.text as Json | undefined), verbosity: v };
    } else {
      warnings.push({ setting: k, action: 'dropped (not supported by openai responses)', message: `The Responses API has no ${k}; ignored.` });
    }
  }
}

function encodeInput(messages: IRMessage[], warnings: IRWarning[]): Json[] {
  const items: Json[] = [];
  let droppedReasoning = false;
  messages.forEach((m, i) => {
    if (m.role === 'assistant') {
      let text = '';
      const flush = (): void => {
        if (text) items.push({ type: 'message', role: 'assistant', content: text });
        text = '';
      };
      m.content.forEach((p, j) => {
        if (p.type === 'text') text += p.text;
        else if (p.type === 'tool-call') {
          flush();
          items.push({ type: 'function_call', call_id: p.id, name: p.name, arguments: p.arguments || '{}' });
        } else if (p.type === 'reasoning') {
          const ref = openAIReasoningOf(p);
          if (!ref) {
            if (p.text || p.signature || p.redactedData) droppedReasoning = true;
            return;
          }
          flush();
          items.push({ type: 'reasoning', ...(ref.id ? { id: ref.id } : {}), summary: p.text ? [{ type: 'summary_text', text: p.text }] : [], encrypted_content: ref.encryptedContent });
        } else {
          throw new GatewayError('unsupported', `Assistant messages sent to OpenAI models cannot carry ${p.type} content.`, { param: `messages[${i}].content[${j}]` });
        }
      });
      flush();
      return;
    }
    // Tool results become function_call_output items, ahead of the rest of the turn.
    const rest: Json[] = [];
    m.content.forEach((p, j) => {
      if (p.type === 'tool-result') items.push(toolOutput(p));
      else if (p.type === 'tool-call') throw new GatewayError('invalid_request', 'Tool calls can only appear in assistant messages.', { param: `messages[${i}].content[${j}]` });
      else if (p.type !== 'web-search') rest.push(inputPart(p.type === 'reasoning' ? { type: 'text', text: p.text } : p));
    });
    if (rest.length) items.push({ type: 'message', role: 'user', content: rest });
  });
  if (droppedReasoning) warnings.push({ setting: 'messages', action: 'reasoning of another vendor left out', message: 'Reasoning from another vendor cannot be replayed to OpenAI models; it was left out.' });
  return items;
}

function inputPart(p: Exclude<IRContentPart, { type: 'tool-call' | 'tool-result' | 'reasoning' | 'web-search' }>): Json {
  switch (p.type) {
    case 'text':
      return { type: 'input_text', text: p.text };
    case 'image':
      return imagePart(p);
    case 'file':
      return filePart(p);
  }
}

function imagePart(p: IRImagePart): Json {
  const url = p.source.kind === 'url' ? p.source.url : dataUrl(p.source.mediaType, p.source.data);
  return { type: 'input_image', image_url: url, detail: p.detail ?? 'auto' };
}

function filePart(p: IRFilePart): Json {
  const s = p.source;
  if (s.kind === 'file-id') return { type: 'input_file', file_id: s.fileId };
  if (s.kind === 'url') return { type: 'input_file', file_url: s.url, ...(p.filename ? { filename: p.filename } : {}) };
  return { type: 'input_file', filename: p.filename ?? 'document.pdf', file_data: dataUrl(s.mediaType, s.data) };
}

function toolOutput(p: IRToolResultPart): Json {
  const allText = p.content.every((c) => c.type === 'text');
  const prefix = p.isError ? 'Error: ' : '';
  if (allText) return { type: 'function_call_output', call_id: p.toolCallId, output: prefix + p.content.map((c) => (c as IRTextPart).text).join('\n') };
  // Responses tool outputs can carry images and files, unlike Chat's tool messages.
  const parts = p.content.map((c) => inputPart(c));
  if (prefix) parts.unshift({ type: 'input_text', text: prefix.trim() });
  return { type: 'function_call_output', call_id: p.toolCallId, output: parts };
}

/** OpenAI's own web search tool for a search another client protocol asked for. */
function webSearchTool(t: IRWebSearchTool): Json {
  return {
    type: 'web_search',
    ...(t.allowedDomains?.length ? { filters: { allowed_domains: t.allowedDomains } } : {}),
    ...(t.userLocation ? { user_location: { type: 'approximate', ...t.userLocation } } : {}),
  };
}
