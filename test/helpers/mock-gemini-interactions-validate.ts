/**
 * Request validation of the mock Gemini Interactions endpoint (`POST /v1beta/interactions`, the
 * `steps` schema): rejects, with Google's error shape, what the real API rejects for the subset a
 * gateway could send: unknown fields at any checked level, model and agent together or neither,
 * malformed contents and steps, a function_result without its function_call, a thought signature
 * Gemini did not issue (another vendor's, or a gateway token), unknown tools and enum values.
 */
import { GoogleError, isObj, type Json } from './mock-gemini-validate.js';

export const MOCK_AGENTS = ['deep-research-pro-preview-12-2025', 'deep-research-preview-04-2026'];

const TOP = [
  'model', 'agent', 'agent_config', 'input', 'system_instruction', 'tools', 'generation_config', 'response_format', 'response_modalities',
  'response_mime_type', 'previous_interaction_id', 'store', 'stream', 'background', 'safety_settings', 'service_tier', 'webhook_config',
  'environment', 'labels', 'cached_content', 'continuation_token',
];
const GEN = [
  'temperature', 'top_p', 'max_output_tokens', 'stop_sequences', 'seed', 'presence_penalty', 'frequency_penalty', 'thinking_level',
  'thinking_summaries', 'tool_choice', 'speech_config', 'transcription_config', 'video_config', 'image_config',
];
const CONTENT_TYPES = ['text', 'image', 'audio', 'video', 'document'];
const TOOL_TYPES = ['function', 'google_search', 'code_execution', 'url_context', 'file_search', 'google_maps', 'computer_use', 'mcp_server', 'retrieval'];
const SERVER_STEPS = /^(google_search|code_execution|url_context|file_search|google_maps|mcp_server_tool|retrieval)_(call|result)$/;

/** Signatures the mock issues for its thoughts. */
export function mockThoughtSignature(text: string): string {
  return `mockthought:${Buffer.from(text).toString('base64')}`;
}

function bad(message: string): GoogleError {
  return new GoogleError(400, message);
}

function known(obj: Json, names: readonly string[], where: string): void {
  for (const k of Object.keys(obj)) if (!names.includes(k)) throw bad(`Invalid JSON payload received. Unknown name "${k}" at '${where}': Cannot find field.`);
}

function str(v: unknown, where: string, required = false): void {
  if (v === undefined && !required) return;
  if (typeof v !== 'string') throw bad(`Invalid value at '${where}': expected a string.`);
}

function validateContent(c: unknown, where: string): Json {
  if (!isObj(c) || typeof c.type !== 'string') throw bad(`Invalid value at '${where}': expected a content object with a type.`);
  if (!CONTENT_TYPES.includes(c.type)) throw bad(`Invalid value at '${where}.type': unknown content type "${c.type}".`);
  if (c.type === 'text') {
    known(c, ['type', 'text', 'annotations'], where);
    str(c.text, `${where}.text`, true);
    return c;
  }
  known(c, ['type', 'data', 'uri', 'mime_type', 'resolution', 'channels', 'sample_rate', 'name', 'processing'], where);
  if ((c.data === undefined) === (c.uri === undefined)) throw bad(`${where}: exactly one of data or uri must be set.`);
  str(c.data, `${where}.data`);
  str(c.uri, `${where}.uri`);
  if (c.data !== undefined && typeof c.mime_type !== 'string') throw bad(`${where}.mime_type is required for inline data.`);
  return c;
}

function validateThought(step: Json, where: string): void {
  known(step, ['type', 'signature', 'summary'], where);
  if (step.signature !== undefined && (typeof step.signature !== 'string' || !step.signature.startsWith('mockthought:'))) {
    throw bad(`Invalid value at '${where}.signature': Thought signature is not valid.`);
  }
  if (step.summary !== undefined) {
    if (!Array.isArray(step.summary)) throw bad(`Invalid value at '${where}.summary': expected a list.`);
    step.summary.forEach((s, i) => validateContent(s, `${where}.summary[${i}]`));
  }
}

/**
 * Validates the steps of a conversation (earlier turns' steps first) and returns them; every
 * function_result must answer a function_call that came before it.
 */
export function validateSteps(steps: unknown[], where: string, calls: Set<string>): Json[] {
  return steps.map((raw, i) => {
    const at = `${where}[${i}]`;
    if (!isObj(raw) || typeof raw.type !== 'string') throw bad(`Invalid value at '${at}': expected a step with a type.`);
    const step = raw;
    switch (step.type) {
      case 'user_input':
      case 'model_output':
        known(step, ['type', 'content', 'error'], at);
        if (step.content !== undefined && !Array.isArray(step.content)) throw bad(`Invalid value at '${at}.content': expected a list.`);
        ((step.content as unknown[] | undefined) ?? []).forEach((c, j) => validateContent(c, `${at}.content[${j}]`));
        break;
      case 'thought':
        validateThought(step, at);
        break;
      case 'function_call':
        known(step, ['type', 'id', 'name', 'arguments'], at);
        str(step.id, `${at}.id`, true);
        str(step.name, `${at}.name`, true);
        if (!isObj(step.arguments)) throw bad(`Invalid value at '${at}.arguments': expected an object.`);
        calls.add(step.id as string);
        break;
      case 'function_result':
        known(step, ['type', 'call_id', 'name', 'result', 'is_error'], at);
        str(step.call_id, `${at}.call_id`, true);
        if (!calls.has(step.call_id as string)) throw bad(`${at}: function_result call_id "${String(step.call_id)}" does not match any function_call.`);
        if (step.result === undefined) throw bad(`${at}.result is required.`);
        if (Array.isArray(step.result)) step.result.forEach((c, j) => validateContent(c, `${at}.result[${j}]`));
        else if (typeof step.result !== 'string' && !isObj(step.result)) throw bad(`Invalid value at '${at}.result'.`);
        break;
      default:
        if (!SERVER_STEPS.test(String(step.type))) throw bad(`Invalid value at '${at}.type': unknown step type "${String(step.type)}".`);
    }
    return step;
  });
}

/** The input as steps (a string or contents make one user_input step). */
export function inputSteps(input: unknown): unknown[] {
  if (input === undefined) return [];
  if (typeof input === 'string') return [{ type: 'user_input', content: [{ type: 'text', text: input }] }];
  const list = Array.isArray(input) ? input : [input];
  const contents = list.filter((x) => isObj(x) && CONTENT_TYPES.includes(String(x.type)));
  if (contents.length === list.length && list.length) return [{ type: 'user_input', content: list }];
  if (contents.length) throw bad("Invalid value at 'input': contents and steps cannot be mixed.");
  return list;
}

/** Checks the top level of a create request (the input is checked against its conversation later). */
export function validateCreate(body: unknown): Json {
  if (!isObj(body)) throw bad('Invalid JSON payload received. Expected an object.');
  known(body, TOP, 'CreateInteractionRequest');
  if ((body.model === undefined) === (body.agent === undefined)) throw bad('Exactly one of model or agent must be set.');
  str(body.model, 'model');
  str(body.agent, 'agent');
  str(body.system_instruction, 'system_instruction');
  str(body.previous_interaction_id, 'previous_interaction_id');
  for (const k of ['store', 'stream', 'background']) if (body[k] !== undefined && typeof body[k] !== 'boolean') throw bad(`Invalid value at '${k}' (TYPE_BOOL), ${JSON.stringify(body[k])}`);
  if (body.background === true && body.store === false) throw bad('background=true requires store=true.');
  if (body.agent !== undefined && body.background !== true) throw bad('Agent interactions must run in the background (background=true).');
  if (body.input === undefined && body.previous_interaction_id === undefined) throw bad('input is required.');
  if (body.tools !== undefined) {
    if (!Array.isArray(body.tools)) throw bad("Invalid value at 'tools': expected a list.");
    body.tools.forEach((t, i) => {
      if (!isObj(t) || !TOOL_TYPES.includes(String(t.type))) throw bad(`Invalid value at 'tools[${i}].type': unknown tool type.`);
      if (t.type === 'function') {
        known(t, ['type', 'name', 'description', 'parameters'], `tools[${i}]`);
        str(t.name, `tools[${i}].name`, true);
      }
    });
  }
  if (body.generation_config !== undefined) {
    const g = body.generation_config;
    if (!isObj(g)) throw bad("Invalid value at 'generation_config'.");
    known(g, GEN, 'generation_config');
    if (g.thinking_level !== undefined && !['minimal', 'low', 'medium', 'high'].includes(String(g.thinking_level))) throw bad("Invalid value at 'generation_config.thinking_level'.");
    if (g.thinking_summaries !== undefined && !['auto', 'none'].includes(String(g.thinking_summaries))) throw bad("Invalid value at 'generation_config.thinking_summaries'.");
    if (g.max_output_tokens !== undefined && (!Number.isInteger(g.max_output_tokens) || (g.max_output_tokens as number) < 1)) throw bad("Invalid value at 'generation_config.max_output_tokens'.");
  }
  if (body.response_format !== undefined) {
    const list = Array.isArray(body.response_format) ? body.response_format : [body.response_format];
    list.forEach((f, i) => {
      if (!isObj(f) || !['text', 'image', 'audio', 'video'].includes(String(f.type))) throw bad(`Invalid value at 'response_format[${i}].type'.`);
    });
  }
  return body;
}
