/** Responses request -> IR chat request (for upstreams of other vendors). */
import { GatewayError } from '../../../core/errors.js';
import { quoteInput } from '../../../core/quote-input.js';
import type { IRChatRequest, IRMessage, IRTextPart, ProtocolName } from '../../../ir/types.js';
import { compiledOnFirstUse, parseOrThrow } from '../../shared/zod-error.js';
import { responsesRequestSchema, type ResponsesRequest } from '../openai-responses-api.js';
import { decodeInputItems, keepOwnSignatures, type DecodedItems } from './convert-input-items.js';
import { decodeTools, type ToolNames } from './decode-tools.js';
import { unmodelledFields } from '../../shared/provider-options.js';

/** Fields the IR (or the endpoint) handles; the rest travels in providerOptions['openai-responses']. */
const MODELED = new Set([
  'model', 'input', 'instructions', 'stream', 'stream_options', 'background', 'store', 'previous_response_id', 'conversation',
  'max_output_tokens', 'temperature', 'top_p', 'tools', 'tool_choice', 'parallel_tool_calls', 'text', 'reasoning', 'metadata',
  'include', 'user', 'prompt',
]);

const compiledResponsesRequest = compiledOnFirstUse(responsesRequestSchema);

/** The body checked against the Responses schema: a 400 naming the field. */
export function validateResponsesRequest(body: Record<string, unknown>): ResponsesRequest {
  return parseOrThrow(compiledResponsesRequest(), body);
}

export interface ResponsesDecodeOptions {
  /** The public model id (for the IR and error messages). */
  model: string;
  stream: boolean;
  /** The upstream's protocol: reasoning signatures of other vendors are not sent to it. */
  target: ProtocolName;
  /** The conversation so far, rebuilt from stored responses (`previous_response_id`). */
  history?: DecodedItems;
  /** The body as the endpoint validated it (validated here when absent). */
  validated?: ResponsesRequest;
}

export interface DecodedResponsesRequest {
  ir: IRChatRequest;
  names: ToolNames;
  /** This request's own input (no instructions, no history): what a stored turn keeps. */
  turn: DecodedItems;
}

export function decodeResponsesRequest(body: Record<string, unknown>, opts: ResponsesDecodeOptions): DecodedResponsesRequest {
  const req = opts.validated ?? validateResponsesRequest(body);
  if (req.conversation != null) {
    throw new GatewayError('unsupported', `The Conversations API cannot be used with the model '${opts.model}'; chain turns with previous_response_id.`, { param: 'conversation' });
  }
  if (req.prompt != null) {
    throw new GatewayError('unsupported', `Stored prompts live at OpenAI and cannot be used with the model '${opts.model}'.`, { param: 'prompt' });
  }
  const { tools, toolChoice, names } = decodeTools(req, opts.model);
  const callNames = new Map<string, string>();
  // Calls the stored conversation left unanswered (the previous response's, when it asked for tools): this input answers them.
  const pending = new Map<string, string | undefined>();
  for (const m of opts.history?.messages ?? []) {
    for (const p of m.content) {
      if (p.type === 'tool-call') {
        callNames.set(p.id, p.name);
        pending.set(p.id, undefined);
      } else if (p.type === 'tool-result') pending.delete(p.toolCallId);
    }
  }
  const turn = decodeInputItems(req.input ?? [], { model: opts.model, names, callNames, pending });
  // As OpenAI: a call without its output cannot be followed by anything (a vendor refuses it, or answers without the result).
  for (const [id, param] of pending) {
    throw new GatewayError('invalid_request', `No tool output found for the function call '${quoteInput(id, 80)}'${param ? '' : ' of the previous response'}: send its function_call_output in the input.`, { param: param ?? 'input' });
  }

  const system: IRTextPart[] = [];
  if (req.instructions) system.push({ type: 'text', text: req.instructions });
  system.push(...(opts.history?.system ?? []), ...turn.system);
  const messages: IRMessage[] = keepOwnSignatures([...(opts.history?.messages ?? []), ...turn.messages], opts.target);
  if (messages.length === 0) throw new GatewayError('invalid_request', 'input is empty: there is nothing for the model to answer.', { param: 'input' });

  const ir: IRChatRequest = { model: opts.model, messages, stream: opts.stream };
  // Unset stays unset: the upstream's own default applies (Anthropic, which needs one, gets its encoder's).
  if (req.max_output_tokens != null) ir.maxTokens = req.max_output_tokens;
  if (system.length) ir.system = system;
  if (tools.length) ir.tools = tools;
  if (toolChoice) ir.toolChoice = toolChoice;
  if (req.temperature != null) ir.temperature = req.temperature;
  if (req.top_p != null) ir.topP = req.top_p;
  if (req.parallel_tool_calls != null) ir.parallelToolCalls = req.parallel_tool_calls;
  if (req.user != null) ir.user = req.user;
  const r = req.reasoning;
  const summary = r?.summary ?? r?.generate_summary;
  if (r?.effort != null || summary != null) {
    ir.reasoning = { ...(r?.effort != null ? { effort: r.effort } : {}), ...(summary != null ? { includeThoughts: true } : {}) };
  }
  const format = req.text?.format;
  if (format?.type === 'json_object') ir.responseFormat = { type: 'json' };
  else if (format?.type === 'json_schema') {
    const f = format as { name: string; schema: Record<string, unknown>; description?: string | null; strict?: boolean | null };
    ir.responseFormat = { type: 'json_schema', name: f.name, schema: f.schema, ...(f.description ? { description: f.description } : {}), ...(f.strict != null ? { strict: f.strict } : {}) };
  } else if (format?.type === 'text') ir.responseFormat = { type: 'text' };

  const extra = unmodelledFields(body, MODELED);
  if (Object.keys(extra).length) ir.providerOptions = { 'openai-responses': extra };
  return { ir, names, turn };
}
