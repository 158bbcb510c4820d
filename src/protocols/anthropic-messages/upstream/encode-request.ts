/** IR -> Anthropic Messages request body (upstream side). */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatRequest, IRWarning, IRWebSearchTool } from '../../../ir/types.js';
import { dropped, droppedForeignOptions, withoutReasoningIfOff } from '../../shared/dropped-settings.js';
import type { UpstreamTarget } from '../../types.js';
import { DEFAULT_ANTHROPIC_MAX_TOKENS } from '../anthropic-messages-api.js';
import { anthropicExtras, convertToAnthropicMessages, encodeTextBlock } from './convert-to-anthropic-messages.js';
import { thinkingFor } from './map-thinking.js';
import { quoteInput } from '../../../core/quote-input.js';

/** Anthropic's web search server tool; its results and citations come back as blocks of the answer. */
function webSearchTool(t: IRWebSearchTool, warnings: IRWarning[]): Record<string, unknown> {
  if (t.raw?.external_web_access === false) {
    warnings.push({ setting: 'tools.web_search.external_web_access', action: 'dropped (not supported by anthropic-messages)', message: 'Anthropic web search always reads the live web; external_web_access false was ignored.' });
  }
  const loc = t.userLocation;
  return {
    type: 'web_search_20250305',
    name: 'web_search',
    ...(t.allowedDomains?.length ? { allowed_domains: t.allowedDomains } : {}),
    ...(loc && Object.keys(loc).length ? { user_location: { type: 'approximate', ...loc } } : {}),
  };
}

export function encodeAnthropicRequest(request: IRChatRequest, upstreamModel: string, target?: UpstreamTarget): { body: Record<string, unknown>; warnings: IRWarning[] } {
  const warnings: IRWarning[] = droppedForeignOptions(request, 'anthropic-messages');
  const req = withoutReasoningIfOff(request, upstreamModel, target, warnings);
  const messages = convertToAnthropicMessages(req.messages, warnings);
  if (messages.length === 0) throw new GatewayError('invalid_request', 'At least one non-empty message is required.', { param: 'messages' });
  const { thinking, maxTokens } = thinkingFor(req, messages, req.maxTokens ?? DEFAULT_ANTHROPIC_MAX_TOKENS, warnings);

  const body: Record<string, unknown> = { model: upstreamModel, max_tokens: maxTokens };
  const system = (req.system ?? []).filter((p) => p.text);
  if (system.length) {
    const plain = system.every((p) => Object.keys(anthropicExtras(p.providerOptions)).length === 0);
    body.system = plain ? system.map((p) => p.text).join('\n\n') : system.map(encodeTextBlock);
  }
  body.messages = messages;

  if (req.temperature !== undefined) {
    if (req.temperature > 1) {
      throw new GatewayError('unsupported', `Anthropic models accept a temperature between 0 and 1, not ${req.temperature}.`, { param: 'temperature' });
    }
    body.temperature = req.temperature;
  }
  if (req.topP !== undefined) body.top_p = req.topP;
  if (req.topK !== undefined) body.top_k = req.topK;
  if (req.stop?.length) body.stop_sequences = req.stop;
  if (req.n !== undefined && req.n !== 1) throw new GatewayError('unsupported', 'Anthropic models return one answer per request; n must be 1.', { param: 'n' });
  if (req.presencePenalty !== undefined) warnings.push(dropped('presencePenalty', 'anthropic-messages', 'Anthropic models have no presence penalty; ignored.'));
  if (req.frequencyPenalty !== undefined) warnings.push(dropped('frequencyPenalty', 'anthropic-messages', 'Anthropic models have no frequency penalty; ignored.'));
  if (req.seed !== undefined) warnings.push(dropped('seed', 'anthropic-messages', 'Anthropic models have no seed; ignored.'));
  if (req.stream) body.stream = true;
  if (thinking) body.thinking = thinking;

  if (req.tools?.length) {
    body.tools = req.tools.map((t, i) => {
      if (t.type === 'provider') {
        if (t.protocol === 'anthropic-messages') return t.raw;
        throw new GatewayError('unsupported', `The tool ${quoteInput(t.name)} is specific to ${t.protocol} and cannot be sent to an Anthropic model.`, { param: `tools[${i}]` });
      }
      if (t.type === 'web-search') return webSearchTool(t, warnings);
      return {
        name: t.name,
        ...(t.description ? { description: t.description } : {}),
        input_schema: t.parameters ?? { type: 'object', properties: {} },
        ...(t.strict !== undefined ? { strict: t.strict } : {}),
        ...anthropicExtras(t.providerOptions),
      };
    });
    const choice: Record<string, unknown> | undefined =
      req.toolChoice?.type === 'required' ? { type: 'any' }
      : req.toolChoice?.type === 'tool' ? { type: 'tool', name: req.toolChoice.name }
      : req.toolChoice?.type === 'web-search' ? { type: 'tool', name: 'web_search' }
      : req.toolChoice?.type === 'none' ? { type: 'none' }
      : req.toolChoice?.type === 'auto' || req.parallelToolCalls === false ? { type: 'auto' }
      : undefined;
    if (choice && req.parallelToolCalls === false && choice.type !== 'none') choice.disable_parallel_tool_use = true;
    if (choice) body.tool_choice = choice;
  } else if (req.toolChoice && req.toolChoice.type !== 'none' && req.toolChoice.type !== 'auto') {
    throw new GatewayError('invalid_request', 'tool_choice requires tools.', { param: 'tool_choice' });
  }

  if (req.responseFormat?.type === 'json_schema') {
    body.output_config = { format: { type: 'json_schema', schema: req.responseFormat.schema } };
  } else if (req.responseFormat?.type === 'json') {
    throw new GatewayError('unsupported', 'Anthropic models support JSON output only with a JSON schema (response_format type json_schema), not json_object.', { param: 'response_format' });
  }
  if (req.user) body.metadata = { user_id: req.user };

  for (const [k, v] of Object.entries(anthropicExtras(req.providerOptions))) {
    if ((k === 'metadata' || k === 'output_config') && body[k] && typeof v === 'object') body[k] = { ...(v as Record<string, unknown>), ...(body[k] as Record<string, unknown>) };
    else if (!Object.hasOwn(body, k)) body[k] = v;
  }
  return { body, warnings };
}
