import { GatewayError } from '../../../core/errors.js';
import { sourceFromUrl } from '../../../ir/media.js';
import type { IRChatRequest, IRContentPart, IRMessage, IRTextPart, IRTool, IRToolChoice } from '../../../ir/types.js';
import { compiledOnFirstUse, parseOrThrow } from '../../shared/zod-error.js';
import { chatRequestSchema, type ChatMessage, type ChatRequest } from '../openai-chat-api.js';
import { unmodelledFields } from '../../shared/provider-options.js';
import { decodeChatReasoning, EXTENSION_FIELDS, extraBodyFields, geminiOptions } from './reasoning-extensions.js';

/** Fields the IR models; everything else in the body travels in providerOptions['openai-chat']. */
const MODELED = new Set([
  'model', 'messages', 'stream', 'stream_options', 'max_tokens', 'max_completion_tokens', 'temperature', 'top_p', 'n',
  'stop', 'presence_penalty', 'frequency_penalty', 'seed', 'response_format', 'tools', 'tool_choice',
  'parallel_tool_calls', 'reasoning_effort', 'user', ...EXTENSION_FIELDS,
]);

const compiledChatRequest = compiledOnFirstUse(chatRequestSchema);

/** The body checked against the chat schema: a 400 naming the field. */
export function validateChatRequest(body: Record<string, unknown>): ChatRequest {
  return parseOrThrow(compiledChatRequest(), body);
}

/** OpenAI chat request -> IR. `req` is the body as the endpoint validated it (validated here when absent). */
export function decodeOpenAIChatRequest(body: Record<string, unknown>, req: ChatRequest = validateChatRequest(body)): IRChatRequest {
  const system: IRTextPart[] = [];
  const messages: IRMessage[] = [];
  const toolNames = new Map<string, string>();

  req.messages.forEach((msg, i) => {
    if (msg.role === 'system' || msg.role === 'developer') {
      system.push(...textParts(msg.content));
      return;
    }
    messages.push(decodeMessage(msg, i, toolNames));
  });

  const extra = { ...extraBodyFields(req), ...unmodelledFields(body, MODELED) };

  const ir: IRChatRequest = {
    model: req.model,
    messages,
    stream: req.stream === true,
    streamUsage: req.stream_options?.include_usage === true,
  };
  // Unset stays unset: the upstream's own default applies (Anthropic, which needs one, gets its encoder's).
  const maxTokens = req.max_completion_tokens ?? req.max_tokens;
  if (maxTokens != null) ir.maxTokens = maxTokens;
  if (system.length) ir.system = system;
  if (req.temperature != null) ir.temperature = req.temperature;
  if (req.top_p != null) ir.topP = req.top_p;
  if (req.n != null) ir.n = req.n;
  if (req.stop != null) ir.stop = typeof req.stop === 'string' ? [req.stop] : req.stop;
  if (req.presence_penalty != null) ir.presencePenalty = req.presence_penalty;
  if (req.frequency_penalty != null) ir.frequencyPenalty = req.frequency_penalty;
  if (req.seed != null) ir.seed = req.seed;
  if (req.user != null) ir.user = req.user;
  if (req.parallel_tool_calls != null) ir.parallelToolCalls = req.parallel_tool_calls;
  const reasoning = decodeChatReasoning(req);
  if (reasoning) ir.reasoning = reasoning;
  if (req.tools?.length) ir.tools = req.tools.map(decodeTool);
  if (req.tool_choice != null) ir.toolChoice = decodeToolChoice(req.tool_choice);
  if (req.response_format != null) {
    const rf = req.response_format;
    if (rf.type === 'json_object') ir.responseFormat = { type: 'json' };
    else if (rf.type === 'json_schema') {
      const js = rf.json_schema as { name: string; description?: string; schema?: Record<string, unknown>; strict?: boolean | null };
      ir.responseFormat = { type: 'json_schema', name: js.name, schema: js.schema ?? {}, ...(js.description ? { description: js.description } : {}), ...(js.strict != null ? { strict: js.strict } : {}) };
    } else ir.responseFormat = { type: 'text' };
  }
  const gemini = geminiOptions(req);
  if (Object.keys(extra).length || gemini) ir.providerOptions = { ...(Object.keys(extra).length ? { 'openai-chat': extra } : {}), ...(gemini ? { gemini } : {}) };
  return ir;
}

function textParts(content: string | Array<{ text: string }>): IRTextPart[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  return content.map((p) => ({ type: 'text', text: p.text }));
}

function decodeMessage(msg: Exclude<ChatMessage, { role: 'system' | 'developer' }>, i: number, toolNames: Map<string, string>): IRMessage {
  switch (msg.role) {
    case 'user': {
      if (typeof msg.content === 'string') return { role: 'user', content: [{ type: 'text', text: msg.content }] };
      const parts: IRContentPart[] = msg.content.map((part, j): IRContentPart => {
        switch (part.type) {
          case 'text':
            return { type: 'text', text: part.text };
          case 'image_url': {
            const img = part.image_url as { url: string; detail?: 'auto' | 'low' | 'high' };
            return { type: 'image', source: sourceFromUrl(img.url), ...(img.detail ? { detail: img.detail } : {}) };
          }
          case 'file': {
            const f = part.file as { file_data?: string; file_id?: string; filename?: string };
            if (f.file_data) {
              const source = f.file_data.startsWith('data:') ? sourceFromUrl(f.file_data) : { kind: 'base64' as const, mediaType: 'application/pdf', data: f.file_data };
              return { type: 'file', source, ...(f.filename ? { filename: f.filename } : {}) };
            }
            if (f.file_id) return { type: 'file', source: { kind: 'file-id', fileId: f.file_id }, ...(f.filename ? { filename: f.filename } : {}) };
            throw new GatewayError('invalid_request', 'A file part needs file_data or file_id.', { param: `messages[${i}].content[${j}].file` });
          }
          case 'input_audio':
            throw new GatewayError('unsupported', 'Audio input cannot be translated for this model.', { param: `messages[${i}].content[${j}]` });
        }
      });
      return { role: 'user', content: parts, ...(msg.name ? { name: msg.name } : {}) };
    }
    case 'assistant': {
      const content: IRContentPart[] = [];
      if (msg.reasoning_content) content.push({ type: 'reasoning', text: msg.reasoning_content });
      if (typeof msg.content === 'string') {
        if (msg.content) content.push({ type: 'text', text: msg.content });
      } else if (Array.isArray(msg.content)) {
        for (const p of msg.content) content.push({ type: 'text', text: p.type === 'text' ? (p as { text: string }).text : (p as { refusal: string }).refusal });
      }
      for (const call of msg.tool_calls ?? []) {
        toolNames.set(call.id, call.function.name);
        content.push({ type: 'tool-call', id: call.id, name: call.function.name, arguments: call.function.arguments || '{}' });
      }
      return { role: 'assistant', content };
    }
    case 'tool': {
      const name = toolNames.get(msg.tool_call_id);
      return {
        role: 'tool',
        content: [{ type: 'tool-result', toolCallId: msg.tool_call_id, ...(name ? { toolName: name } : {}), content: textParts(msg.content) }],
      };
    }
  }
}

function decodeTool(tool: NonNullable<ChatRequest['tools']>[number], i: number): IRTool {
  if (tool.type === 'function' && 'function' in tool) {
    const fn = tool.function as { name: string; description?: string; parameters?: Record<string, unknown>; strict?: boolean | null };
    return {
      type: 'function',
      name: fn.name,
      ...(fn.description ? { description: fn.description } : {}),
      ...(fn.parameters ? { parameters: fn.parameters } : {}),
      ...(fn.strict != null ? { strict: fn.strict } : {}),
    };
  }
  const raw = tool as Record<string, unknown>;
  return { type: 'provider', protocol: 'openai-chat', name: `tools[${i}] (type "${String(raw.type)}")`, raw };
}

function decodeToolChoice(choice: NonNullable<ChatRequest['tool_choice']>): IRToolChoice {
  if (typeof choice === 'string') return { type: choice };
  return { type: 'tool', name: (choice.function as { name: string }).name };
}
