/**
 * Interactions request -> IR chat request, for upstreams of other vendors. What the target vendor
 * cannot express (Gemini's built-in tools, agents, safety settings, non-text output, ...) is a 400
 * naming the field, never silently dropped.
 */
import { GatewayError } from '../../../core/errors.js';
import type { IRChatRequest, IRFunctionTool, IRMessage, IRResponseFormat, IRTextPart, IRToolChoice, ProtocolName } from '../../../ir/types.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { createInteractionSchema, functionToolSchema, type CreateInteractionRequest, type GenerationConfig, type Json } from '../gemini-interactions-api.js';
import { decodeSteps, inputAsSteps, keepOwnSignatures } from './decode-steps.js';
import { toJsonSchemaObject } from '../../gemini/client/schema-dialect.js';
import { ownValue } from '../../../core/own-key.js';

/** The body checked against the Interactions schema: a 400 naming the field. */
export function validateInteractionRequest(body: Record<string, unknown>): CreateInteractionRequest {
  const req = parseOrThrow(createInteractionSchema, body);
  inputAsSteps(req.input); // a list mixing contents and steps is a 400 on every route
  return req;
}

/** Top-level fields the translation carries (or the gateway handles itself). */
const TRANSLATED = new Set([
  'model', 'input', 'system_instruction', 'tools', 'generation_config', 'response_format', 'response_modalities', 'response_mime_type',
  'previous_interaction_id', 'store', 'stream', 'background', 'labels', 'service_tier',
]);

const WHY_NOT: Record<string, string> = {
  agent: 'agents run only on Gemini upstreams',
  agent_config: 'agent settings apply only to Gemini agents',
  safety_settings: 'Gemini safety settings have no equivalent there',
  webhook_config: 'webhooks are sent only by Gemini; poll GET /v1beta/interactions/{id} instead',
  environment: 'sandbox environments exist only at Gemini',
  cached_content: 'Gemini cached contents exist only at Gemini',
  continuation_token: 'continuation tokens are issued only by Gemini',
};

const GENERATION_FIELDS = new Set([
  'temperature', 'top_p', 'max_output_tokens', 'stop_sequences', 'seed', 'presence_penalty', 'frequency_penalty', 'thinking_level', 'thinking_summaries', 'tool_choice',
]);

const THINKING_LEVELS = ['minimal', 'low', 'medium', 'high'] as const;

export interface InteractionsDecodeOptions {
  /** The public model id (for the IR and error messages). */
  model: string;
  stream: boolean;
  /** The upstream's protocol: reasoning signatures of other vendors are not sent to it. */
  target: ProtocolName;
  /** The conversation so far, rebuilt from stored interactions (`previous_interaction_id`). */
  history?: { system: IRTextPart[]; messages: IRMessage[] };
  /** The body as the endpoint validated it (validated here when absent). */
  validated?: CreateInteractionRequest;
}

export interface DecodedInteraction {
  ir: IRChatRequest;
  /** This request's own input as IR (no system instruction, no history): what a stored turn keeps. */
  turn: IRMessage[];
}

function refuse(field: string, model: string, why: string): never {
  throw new GatewayError('unsupported', `'${field}' cannot be used with the model '${model}': ${why}.`, { param: field });
}

function decodeTools(req: CreateInteractionRequest, model: string): IRFunctionTool[] {
  return (req.tools ?? []).map((raw, i) => {
    if (raw.type !== 'function') refuse(`tools[${i}]`, model, `the built-in tool '${raw.type}' runs only on Gemini models`);
    const t = parseOrThrow(functionToolSchema, raw, `tools[${i}]`);
    // Gemini's own schema dialect (`type: "STRING"`, `nullable`, ...; Google's ADK sends it) is plain JSON Schema for other vendors.
    const parameters = toJsonSchemaObject(t.parameters);
    return { type: 'function', name: t.name, ...(t.description ? { description: t.description } : {}), ...(parameters ? { parameters } : {}) };
  });
}

/** generation_config.tool_choice -> IR choice, and the tools that stay callable. */
function decodeToolChoice(choice: GenerationConfig['tool_choice'], tools: IRFunctionTool[], model: string): { toolChoice?: IRToolChoice; tools: IRFunctionTool[] } {
  const param = 'generation_config.tool_choice';
  if (choice === undefined) return { tools };
  const mode = typeof choice === 'string' ? choice : (choice.allowed_tools?.mode ?? 'auto');
  const allowed = typeof choice === 'string' ? undefined : choice.allowed_tools?.tools;
  let kept = tools;
  if (allowed) {
    for (const [i, name] of allowed.entries()) {
      if (!tools.some((t) => t.name === name)) throw new GatewayError('invalid_request', `tool_choice allows the tool '${name}', which is not among the function tools.`, { param: `${param}.allowed_tools.tools[${i}]` });
    }
    kept = tools.filter((t) => allowed.includes(t.name));
  }
  switch (mode) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, tools: kept };
    case 'none':
      return { toolChoice: { type: 'none' }, tools: kept };
    case 'any':
      return { toolChoice: kept.length === 1 && allowed ? { type: 'tool', name: (kept[0] as IRFunctionTool).name } : { type: 'required' }, tools: kept };
    case 'validated':
      return refuse(param, model, "the 'validated' mode (schema-checked calls mixed with text) exists only at Gemini");
    default:
      throw new GatewayError('invalid_request', `Unknown tool_choice mode '${mode}'; expected auto, any, none or validated.`, { param });
  }
}

/** One response_format entry -> IR; the deprecated response_mime_type picks JSON for a bare schema. */
function formatOf(entry: Json, param: string, mimeHint: string | undefined, model: string): IRResponseFormat {
  const type = entry.type;
  const schema = toJsonSchemaObject(entry.schema);
  if (type === 'text' || (type === undefined && (schema !== undefined || entry.mime_type !== undefined))) {
    const mime = typeof entry.mime_type === 'string' ? entry.mime_type : schema ? 'application/json' : 'text/plain';
    if (mime === 'application/json') return schema ? { type: 'json_schema', name: 'response', schema } : { type: 'json' };
    if (mime === 'text/plain' && !schema) return { type: 'text' };
    return refuse(`${param}.mime_type`, model, `the output format '${mime}'${schema ? ' with a schema' : ''} has no equivalent there`);
  }
  if (type === 'image' || type === 'audio' || type === 'video') return refuse(param, model, `it produces text only, not ${type}`);
  if (mimeHint === 'application/json') return { type: 'json_schema', name: 'response', schema: toJsonSchemaObject(entry) ?? entry };
  throw new GatewayError('invalid_request', `${param}.type must be text, image, audio or video.`, { param: `${param}.type` });
}

function decodeResponseFormat(req: CreateInteractionRequest, model: string): IRResponseFormat | undefined {
  const mime = req.response_mime_type;
  if (mime !== undefined && mime !== 'application/json' && mime !== 'text/plain') refuse('response_mime_type', model, `the output format '${mime}' has no equivalent there`);
  const rf = req.response_format;
  if (rf === undefined) return mime === 'application/json' ? { type: 'json' } : undefined;
  const entries = Array.isArray(rf) ? rf : [rf];
  const formats = entries.map((e, i) => formatOf(e, Array.isArray(rf) ? `response_format[${i}]` : 'response_format', mime, model));
  if (formats.length > 1) refuse('response_format', model, 'it produces one text output, so one format');
  return formats[0];
}

function decodeGeneration(g: GenerationConfig | undefined, ir: IRChatRequest, model: string): void {
  if (!g) return;
  for (const k of Object.keys(g)) if (!GENERATION_FIELDS.has(k) && g[k] !== undefined) refuse(`generation_config.${k}`, model, 'it has no equivalent there');
  if (g.max_output_tokens !== undefined) ir.maxTokens = g.max_output_tokens;
  if (g.temperature !== undefined) ir.temperature = g.temperature;
  if (g.top_p !== undefined) ir.topP = g.top_p;
  if (g.stop_sequences?.length) ir.stop = g.stop_sequences;
  if (g.seed !== undefined) ir.seed = g.seed;
  if (g.presence_penalty !== undefined) ir.presencePenalty = g.presence_penalty;
  if (g.frequency_penalty !== undefined) ir.frequencyPenalty = g.frequency_penalty;
  const level = g.thinking_level;
  if (level !== undefined && !(THINKING_LEVELS as readonly string[]).includes(level)) {
    throw new GatewayError('invalid_request', `thinking_level must be one of ${THINKING_LEVELS.join(', ')}.`, { param: 'generation_config.thinking_level' });
  }
  const summaries = g.thinking_summaries;
  if (summaries !== undefined && summaries !== 'auto' && summaries !== 'none') {
    throw new GatewayError('invalid_request', "thinking_summaries must be 'auto' or 'none'.", { param: 'generation_config.thinking_summaries' });
  }
  if (level !== undefined || summaries !== undefined) {
    ir.reasoning = {
      ...(level !== undefined ? { effort: level as (typeof THINKING_LEVELS)[number] } : {}),
      ...(summaries !== undefined ? { includeThoughts: summaries === 'auto' } : {}),
    };
  }
}

export function decodeInteractionRequest(body: Record<string, unknown>, opts: InteractionsDecodeOptions): DecodedInteraction {
  const req = opts.validated ?? validateInteractionRequest(body);
  const model = opts.model;
  for (const [k, v] of Object.entries(body)) {
    if (v === undefined || TRANSLATED.has(k)) continue;
    refuse(k, model, ownValue(WHY_NOT, k) ?? 'it has no equivalent there');
  }
  if (req.service_tier !== undefined && req.service_tier !== 'standard') refuse('service_tier', model, 'Gemini service tiers have no equivalent there');
  for (const [i, m] of (req.response_modalities ?? []).entries()) {
    if (m.toLowerCase() !== 'text') refuse(`response_modalities[${i}]`, model, `it produces text only, not ${m}`);
  }

  const callNames = new Map<string, string>();
  for (const m of opts.history?.messages ?? []) for (const p of m.content) if (p.type === 'tool-call') callNames.set(p.id, p.name);
  const turn = decodeSteps(inputAsSteps(req.input), { model, callNames, pairResults: true });
  const system: IRTextPart[] = [...(opts.history?.system ?? [])];
  if (req.system_instruction) system.push({ type: 'text', text: req.system_instruction });
  const messages = keepOwnSignatures([...(opts.history?.messages ?? []), ...turn], opts.target);
  if (messages.length === 0) throw new GatewayError('invalid_request', 'input is empty: there is nothing for the model to answer.', { param: 'input' });

  const ir: IRChatRequest = { model, messages, stream: opts.stream };
  if (system.length) ir.system = system;
  const { toolChoice, tools } = decodeToolChoice(req.generation_config?.tool_choice, decodeTools(req, model), model);
  if (tools.length) ir.tools = tools;
  if (toolChoice && tools.length) ir.toolChoice = toolChoice;
  decodeGeneration(req.generation_config, ir, model);
  const format = decodeResponseFormat(req, model);
  if (format) ir.responseFormat = format;
  return { ir, turn };
}
