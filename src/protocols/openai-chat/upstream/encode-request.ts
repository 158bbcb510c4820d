import { GatewayError } from '../../../core/errors.js';
import { dataUrl, toStandardBase64 } from '../../../ir/media.js';
import type { IRChatRequest, IRContentPart, IRMessage, IRWarning } from '../../../ir/types.js';
import { dropped, droppedForeignOptions, noReasoning, ONE_ANSWER } from '../../shared/dropped-settings.js';
import { quoteInput } from '../../../core/quote-input.js';
import type { UpstreamTarget } from '../../types.js';


/** IR -> OpenAI chat request body for an OpenAI or OpenAI-compatible upstream. */
export function encodeOpenAIChatRequest(req: IRChatRequest, upstreamModel: string, target: UpstreamTarget = {}): { body: Record<string, unknown>; warnings: IRWarning[] } {
  const warnings: IRWarning[] = droppedForeignOptions(req, 'openai-chat');
  const messages: unknown[] = [];
  if (req.system?.length) messages.push({ role: 'system', content: req.system.map((p) => p.text).join('\n\n') });
  req.messages.forEach((m, i) => messages.push(...encodeMessage(m, i, warnings)));

  const body: Record<string, unknown> = { model: upstreamModel, messages };
  if (req.maxTokens !== undefined) body[target.maxTokensField ?? 'max_tokens'] = req.maxTokens;
  if (req.temperature !== undefined) body.temperature = req.temperature;
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) warnings.push(dropped('topK', 'openai-chat', 'OpenAI models have no top_k; ignored.'));
  if (req.n !== undefined && req.n !== 1) throw new GatewayError('unsupported', ONE_ANSWER, { param: 'n' });
  if (req.stop?.length) {
    if (req.stop.length > 4) throw new GatewayError('unsupported', 'OpenAI upstreams accept at most 4 stop sequences.', { param: 'stop' });
    body.stop = req.stop;
  }
  if (req.presencePenalty !== undefined) body.presence_penalty = req.presencePenalty;
  if (req.frequencyPenalty !== undefined) body.frequency_penalty = req.frequencyPenalty;
  if (req.seed !== undefined) body.seed = req.seed;
  if (req.user !== undefined) body.user = req.user;
  const r = req.reasoning;
  if (r && (r.effort || r.budgetTokens !== undefined)) {
    // Non-reasoning models (gpt-4o, many compatible servers) reject reasoning_effort with a 400: the
    // model's `reasoning` in the config says, else its name.
    if (target.reasoning ?? isReasoningModel(upstreamModel)) body.reasoning_effort = reasoningEffort(r, warnings);
    else warnings.push(noReasoning(upstreamModel, target));
  }
  // A chat-only server has no search of its own: like Gemini 2.x next to function tools, web search
  // is left out and the caller hears of it.
  if (req.tools?.some((t) => t.type === 'web-search')) {
    warnings.push({ setting: 'tools.web_search', action: 'dropped (no web search on this model)', message: `The Chat Completions model '${upstreamModel}' cannot search the web; web_search was left out.` });
  }
  const tools = req.tools?.filter((t) => t.type !== 'web-search');
  if (tools?.length) {
    body.tools = tools.map((t) => {
      if (t.type === 'provider') throw new GatewayError('unsupported', `The tool ${quoteInput(t.name)} is specific to ${t.protocol} and cannot be sent to an OpenAI model.`, { param: 'tools' });
      return {
        type: 'function',
        function: {
          name: t.name,
          ...(t.description ? { description: t.description } : {}),
          parameters: t.parameters ?? { type: 'object', properties: {} },
          ...(t.strict !== undefined ? { strict: t.strict } : {}),
        },
      };
    });
    if (req.parallelToolCalls !== undefined) body.parallel_tool_calls = req.parallelToolCalls;
  }
  // (A tool_choice whose only tool was the web search left out goes too: no tools, no choice.)
  if (req.toolChoice?.type === 'web-search') {
    warnings.push(dropped('toolChoice', 'openai-chat', 'The web search this tool_choice forces was left out; ignored.'));
  } else if (req.toolChoice && !(req.tools?.length && !tools?.length)) {
    body.tool_choice = req.toolChoice.type === 'tool' ? { type: 'function', function: { name: req.toolChoice.name } } : req.toolChoice.type;
  }
  if (req.responseFormat) {
    const rf = req.responseFormat;
    body.response_format =
      rf.type === 'json' ? { type: 'json_object' }
      : rf.type === 'json_schema' ? { type: 'json_schema', json_schema: { name: rf.name ?? 'response', schema: rf.schema, ...(rf.description ? { description: rf.description } : {}), ...(rf.strict !== undefined ? { strict: rf.strict } : {}) } }
      : { type: 'text' };
  }
  if (req.stream) {
    body.stream = true;
    body.stream_options = { include_usage: true };
  }
  const extra = req.providerOptions?.['openai-chat'];
  if (extra) for (const [k, v] of Object.entries(extra)) if (!Object.hasOwn(body, k)) body[k] = v;
  return { body, warnings };
}

/**
 * The reasoning_effort to send: the client's effort, or the effort closest to a thinking budget
 * (Anthropic budget_tokens, Gemini thinkingBudget), since OpenAI models take no token budget.
 */
function reasoningEffort(r: NonNullable<IRChatRequest['reasoning']>, warnings: IRWarning[]): string {
  if (r.effort) return r.effort;
  const budget = r.budgetTokens ?? 0;
  const effort = budget < 4096 ? 'low' : budget < 16384 ? 'medium' : 'high';
  warnings.push({ setting: 'reasoning', action: `budget ${budget} sent as reasoning_effort ${effort}`, message: `OpenAI models take a reasoning effort, not a token budget; a budget of ${budget} became reasoning_effort ${effort}.` });
  return effort;
}

/** OpenAI reasoning families (o-series, gpt-5) and models named as reasoning/thinking variants. */
export function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5|gpt-oss)|reason|think|deepseek-r/i.test(model.replace(/^.*\//, ''));
}

function encodeMessage(m: IRMessage, i: number, warnings: IRWarning[]): unknown[] {
  const out: unknown[] = [];
  if (m.role === 'assistant') {
    let text = '';
    const toolCalls: unknown[] = [];
    for (const p of m.content) {
      if (p.type === 'text') text += p.text;
      else if (p.type === 'tool-call') toolCalls.push({ id: p.id, type: 'function', function: { name: p.name, arguments: p.arguments } });
      else if (p.type === 'reasoning') continue; // earlier reasoning is not replayed to OpenAI models
      else throw new GatewayError('unsupported', `Assistant messages sent to OpenAI models cannot carry ${p.type} content.`, { param: `messages[${i}]` });
    }
    const msg: Record<string, unknown> = { role: 'assistant', content: toolCalls.length && !text ? null : text };
    if (toolCalls.length) msg.tool_calls = toolCalls;
    return [msg];
  }
  // Tool results become `tool` messages, placed before the rest of the user's content.
  const rest: IRContentPart[] = [];
  for (const p of m.content) {
    if (p.type === 'tool-result') {
      const texts = p.content.filter((c) => c.type === 'text').map((c) => (c as { text: string }).text);
      if (p.content.some((c) => c.type !== 'text')) warnings.push({ setting: 'messages', action: 'images in tool results dropped (not supported by openai)', message: `Images inside tool results (messages[${i}]) are not supported by OpenAI tool messages; dropped.` });
      out.push({ role: 'tool', tool_call_id: p.toolCallId, content: (p.isError ? 'Error: ' : '') + texts.join('\n') });
    } else rest.push(p);
  }
  if (rest.length) {
    const allText = rest.every((p) => p.type === 'text');
    out.push({
      role: 'user',
      content: allText ? rest.map((p) => (p as { text: string }).text).join('\n') : rest.map((p, j) => encodeUserPart(p, i, j)),
      ...(m.name ? { name: m.name } : {}),
    });
  }
  return out;
}

function encodeUserPart(p: IRContentPart, i: number, j: number): unknown {
  switch (p.type) {
    case 'text':
      return { type: 'text', text: p.text };
    case 'image':
      // OpenAI decodes only standard, padded base64 (a Gemini client may send the URL-safe alphabet).
      return { type: 'image_url', image_url: { url: p.source.kind === 'url' ? p.source.url : dataUrl(p.source.mediaType, toStandardBase64(p.source.data)), ...(p.detail ? { detail: p.detail } : {}) } };
    case 'file': {
      const s = p.source;
      if (s.kind === 'file-id') return { type: 'file', file: { file_id: s.fileId } };
      if (s.kind === 'url') throw new GatewayError('unsupported', 'OpenAI models accept documents only as inline data, not by URL.', { param: `messages[${i}].content[${j}]` });
      return { type: 'file', file: { file_data: dataUrl(s.mediaType, toStandardBase64(s.data)), filename: p.filename ?? 'document.pdf' } };
    }
    case 'reasoning':
      return { type: 'text', text: p.text };
    default:
      throw new GatewayError('unsupported', `A user message cannot carry ${p.type} content for OpenAI models.`, { param: `messages[${i}].content[${j}]` });
  }
}
