/** Anthropic Messages request -> IR (the client side of the protocol). */
import type { IRChatRequest, IRMessage, IRTextPart, IRTool, IRToolChoice } from '../../../ir/types.js';
import { compiledOnFirstUse, parseOrThrow } from '../../shared/zod-error.js';
import { countTokensRequestSchema, customToolSchema, messagesRequestSchema, type CountTokensRequest, type MessagesRequest } from '../anthropic-messages-api.js';
import { decodeMessageContent, decodeTextBlock, extrasOf } from './convert-from-anthropic-content.js';
import { unmodelledFields } from '../../shared/provider-options.js';

/** Top-level fields the IR models; everything else travels in providerOptions['anthropic-messages']. */
const MODELED = new Set([
  'model', 'messages', 'system', 'max_tokens', 'temperature', 'top_p', 'top_k', 'stop_sequences', 'stream', 'tools',
  'tool_choice', 'thinking', 'metadata',
]);

const compiledMessagesRequest = compiledOnFirstUse(messagesRequestSchema);
const compiledCountTokensRequest = compiledOnFirstUse(countTokensRequestSchema);
const compiledCustomTool = compiledOnFirstUse(customToolSchema);

/** The body checked against the Messages schema: a 400 naming the field. */
export function validateMessagesRequest(body: Record<string, unknown>): MessagesRequest {
  return parseOrThrow(compiledMessagesRequest(), body);
}

export function validateCountTokensRequest(body: Record<string, unknown>): CountTokensRequest {
  return parseOrThrow(compiledCountTokensRequest(), body);
}

/** Anthropic request -> IR. */
export function decodeAnthropicRequest(body: Record<string, unknown>, req: MessagesRequest = validateMessagesRequest(body)): IRChatRequest {
  const toolNames = new Map<string, string>();
  const messages: IRMessage[] = [];
  const system = decodeSystem(req.system);
  req.messages.forEach((m, i) => {
    // A mid-conversation system message joins the system prompt (no IR vendor has them in place).
    if (m.role === 'system') {
      system.push(...decodeSystem(m.content));
      return;
    }
    const parts = decodeMessageContent(m.role, m.content as string | Array<Record<string, unknown>>, `messages[${i}].content`, toolNames);
    if (m.role === 'assistant') {
      messages.push({ role: 'assistant', content: parts });
      return;
    }
    // Tool results become a `tool` message ahead of the rest of the user's content.
    const results = parts.filter((p) => p.type === 'tool-result');
    const rest = parts.filter((p) => p.type !== 'tool-result');
    if (results.length) messages.push({ role: 'tool', content: results });
    if (rest.length || !results.length) messages.push({ role: 'user', content: rest });
  });

  const ir: IRChatRequest = { model: req.model, messages, stream: req.stream === true, maxTokens: req.max_tokens };
  if (system.length) ir.system = system;
  if (req.temperature !== undefined) ir.temperature = req.temperature;
  if (req.top_p !== undefined) ir.topP = req.top_p;
  if (req.top_k !== undefined) ir.topK = req.top_k;
  if (req.stop_sequences?.length) ir.stop = req.stop_sequences;
  if (req.metadata?.user_id) ir.user = req.metadata.user_id;
  if (req.tools?.length) ir.tools = req.tools.map(decodeTool);
  if (req.tool_choice) {
    const tc = req.tool_choice;
    ir.toolChoice = decodeToolChoice(tc);
    if ('disable_parallel_tool_use' in tc && tc.disable_parallel_tool_use === true) ir.parallelToolCalls = false;
  }
  const reasoning = decodeReasoning(req);
  if (reasoning) ir.reasoning = reasoning;
  const format = req.output_config?.format;
  if (format) ir.responseFormat = { type: 'json_schema', schema: format.schema };

  const extra = unmodelledFields(body, MODELED);
  if (req.metadata) {
    const { user_id: _user, ...restMeta } = req.metadata;
    if (Object.keys(restMeta).length) extra.metadata = restMeta;
  }
  if (extra.output_config && typeof extra.output_config === 'object') {
    const { format: _f, effort: _e, ...restConfig } = extra.output_config as Record<string, unknown>;
    if (Object.keys(restConfig).length) extra.output_config = restConfig;
    else delete extra.output_config;
  }
  if (Object.keys(extra).length) ir.providerOptions = { 'anthropic-messages': extra };
  return ir;
}

function decodeSystem(system: MessagesRequest['system']): IRTextPart[] {
  if (system === undefined) return [];
  if (typeof system === 'string') return system ? [{ type: 'text', text: system }] : [];
  return system.map((b) => decodeTextBlock(b));
}

function decodeTool(tool: NonNullable<MessagesRequest['tools']>[number], i: number): IRTool {
  const raw = tool as Record<string, unknown>;
  if (raw.type === undefined || raw.type === 'custom') {
    const t = parseOrThrow(compiledCustomTool(), raw, `tools[${i}]`);
    const options = extrasOf(raw, ['type', 'name', 'description', 'input_schema', 'strict']);
    return {
      type: 'function',
      name: t.name,
      ...(t.description ? { description: t.description } : {}),
      parameters: t.input_schema,
      ...(t.strict !== undefined ? { strict: t.strict } : {}),
      ...(options ? { providerOptions: options } : {}),
    };
  }
  return { type: 'provider', protocol: 'anthropic-messages', name: `tools[${i}] (type "${String(raw.type)}")`, raw };
}

function decodeToolChoice(tc: NonNullable<MessagesRequest['tool_choice']>): IRToolChoice {
  switch (tc.type) {
    case 'auto': return { type: 'auto' };
    case 'any': return { type: 'required' };
    case 'none': return { type: 'none' };
    case 'tool': return { type: 'tool', name: tc.name };
  }
}

function decodeReasoning(req: MessagesRequest): IRChatRequest['reasoning'] | undefined {
  const t = req.thinking;
  const effort = req.output_config?.effort;
  if (t?.type === 'enabled') return { budgetTokens: t.budget_tokens, includeThoughts: true, ...(effort ? { effort } : {}) };
  // Adaptive thinking lets the model decide; no effort is implied (non-reasoning upstreams reject one).
  if (t?.type === 'adaptive') return { includeThoughts: true, ...(effort ? { effort } : {}) };
  if (effort) return { effort };
  return undefined;
}
