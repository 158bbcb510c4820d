/**
 * Request validation of the strict mock OpenAI Responses upstream (mock-openai-responses.ts): zod
 * schemas as strict as api.openai.com (unknown fields anywhere -> 400 `unknown_parameter`, flattened
 * function tools, `text.format`, `max_output_tokens` >= 16, `reasoning`/`temperature` by model
 * family, ...), with errors in OpenAI's wording and `param` paths (`input[0].content[1].type`).
 * Field lists follow the `openai` SDK types (resources/responses/responses.d.ts).
 */
import { z } from 'zod';
import { jsonSchemaProblem } from './json-schema-check.js';

type Json = Record<string, unknown>;

export class ResponsesMockError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param: string | null = null,
    readonly code: string | null = null,
    readonly type = 'invalid_request_error',
  ) {
    super(message);
  }
}

export const isObj = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Reasoning families: they take `reasoning`, refuse `temperature`/`top_p`. */
export function isReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5|codex)/.test(model);
}

const nullish = <T extends z.ZodType>(s: T) => s.nullish();
const metadata = z.record(z.string().max(64), z.string().max(512)).refine((m) => Object.keys(m).length <= 16, 'at most 16 pairs');
const cacheBreakpoint = z.strictObject({ mode: z.literal('explicit') }).optional();

const inputText = z.strictObject({ type: z.literal('input_text'), text: z.string(), prompt_cache_breakpoint: cacheBreakpoint });
const inputImage = z.strictObject({
  type: z.literal('input_image'),
  // The SDK types require it, but the API defaults it to auto (Codex CLI leaves it out).
  detail: z.enum(['low', 'high', 'auto', 'original']).optional(),
  image_url: nullish(z.string()),
  file_id: nullish(z.string()),
  prompt_cache_breakpoint: cacheBreakpoint,
});
const inputFile = z.strictObject({
  type: z.literal('input_file'),
  detail: z.enum(['auto', 'low', 'high']).optional(),
  file_data: z.string().optional(),
  file_id: nullish(z.string()),
  file_url: z.string().optional(),
  filename: z.string().optional(),
  prompt_cache_breakpoint: cacheBreakpoint,
});
const inputAudio = z.strictObject({ type: z.literal('input_audio'), input_audio: z.strictObject({ data: z.string(), format: z.enum(['mp3', 'wav']) }) });
const annotation = z.looseObject({ type: z.string() });
const outputText = z.strictObject({ type: z.literal('output_text'), text: z.string(), annotations: z.array(annotation).optional(), logprobs: z.array(z.unknown()).optional() });
const refusal = z.strictObject({ type: z.literal('refusal'), refusal: z.string() });

const INPUT_PARTS: Record<string, z.ZodType> = { input_text: inputText, input_image: inputImage, input_file: inputFile, input_audio: inputAudio };
const ASSISTANT_PARTS: Record<string, z.ZodType> = { output_text: outputText, refusal };
const OUTPUT_PARTS: Record<string, z.ZodType> = { input_text: inputText, input_image: inputImage, input_file: inputFile };

const status = z.enum(['in_progress', 'completed', 'incomplete']).optional();
const message = z.strictObject({
  type: z.literal('message').optional(),
  role: z.enum(['user', 'assistant', 'system', 'developer']),
  content: z.union([z.string(), z.array(z.unknown())]),
  id: z.string().optional(),
  status,
  phase: nullish(z.enum(['commentary', 'final_answer'])),
});
const caller = nullish(z.union([z.strictObject({ type: z.literal('direct') }), z.strictObject({ type: z.literal('program'), caller_id: z.string() })]));
const functionCall = z.strictObject({
  type: z.literal('function_call'),
  call_id: z.string().min(1),
  name: z.string().min(1),
  arguments: z.string(),
  id: z.string().optional(),
  status,
  namespace: z.string().optional(),
  caller,
});
const functionCallOutput = z.strictObject({
  type: z.literal('function_call_output'),
  call_id: z.string().min(1),
  output: z.union([z.string(), z.array(z.unknown())]),
  id: nullish(z.string()),
  status: nullish(z.enum(['in_progress', 'completed', 'incomplete'])),
  caller,
});
const reasoning = z.strictObject({
  type: z.literal('reasoning'),
  id: z.string().optional(),
  summary: z.array(z.strictObject({ type: z.literal('summary_text'), text: z.string() })),
  content: nullish(z.array(z.strictObject({ type: z.literal('reasoning_text'), text: z.string() }))),
  encrypted_content: nullish(z.string()),
  status,
});
const itemReference = z.strictObject({ type: nullish(z.literal('item_reference')), id: z.string().min(1) });

/** Item types of the SDK union that the mock accepts without looking inside (built-in tool calls). */
const OPAQUE_ITEMS = new Set([
  'file_search_call', 'computer_call', 'computer_call_output', 'web_search_call', 'tool_search_call', 'tool_search_output',
  'additional_tools', 'compaction', 'image_generation_call', 'code_interpreter_call', 'local_shell_call', 'local_shell_call_output',
  'shell_call', 'shell_call_output', 'apply_patch_call', 'apply_patch_call_output', 'mcp_list_tools', 'mcp_approval_request',
  'mcp_approval_response', 'mcp_call', 'custom_tool_call_output', 'custom_tool_call', 'compaction_trigger', 'program', 'program_output',
]);
const ITEM_TYPES = ['message', 'function_call', 'function_call_output', 'reasoning', 'item_reference', ...OPAQUE_ITEMS];

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const functionTool = z.strictObject({
  type: z.literal('function'),
  name: z.string().regex(TOOL_NAME, 'string does not match pattern'),
  parameters: nullish(z.record(z.string(), z.unknown())),
  strict: nullish(z.boolean()),
  description: nullish(z.string()),
  allowed_callers: nullish(z.array(z.enum(['direct', 'programmatic']))),
  defer_loading: z.boolean().optional(),
  output_schema: nullish(z.record(z.string(), z.unknown())),
});
const namespaceTool = z.strictObject({ type: z.literal('namespace'), name: z.string().min(1), description: z.string().optional(), tools: z.array(z.looseObject({ type: z.enum(['function', 'custom']), name: z.string() })) });
/** Built-in tools OpenAI runs itself; their options are not checked here. */
const BUILTIN_TOOLS = new Set([
  'file_search', 'computer', 'computer_use_preview', 'web_search', 'web_search_2025_08_26', 'mcp', 'code_interpreter',
  'programmatic_tool_calling', 'image_generation', 'local_shell', 'shell', 'custom', 'tool_search', 'web_search_preview',
  'web_search_preview_2025_03_11', 'apply_patch',
]);

const formatText = z.strictObject({ type: z.literal('text') });
const formatJsonObject = z.strictObject({ type: z.literal('json_object') });
const formatJsonSchema = z.strictObject({
  type: z.literal('json_schema'),
  name: z.string().regex(TOOL_NAME, 'string does not match pattern'),
  schema: z.record(z.string(), z.unknown()),
  description: z.string().optional(),
  strict: nullish(z.boolean()),
});
const FORMATS: Record<string, z.ZodType> = { text: formatText, json_object: formatJsonObject, json_schema: formatJsonSchema };

const INCLUDABLE = [
  'file_search_call.results', 'web_search_call.results', 'web_search_call.action.sources', 'message.input_image.image_url',
  'computer_call_output.output.image_url', 'code_interpreter_call.outputs', 'reasoning.encrypted_content', 'message.output_text.logprobs',
] as const;
const EFFORTS = ['none', 'minimal', 'low', 'medium', 'high', 'xhigh', 'max'] as const;
const reasoningConfig = z.strictObject({
  effort: nullish(z.enum(EFFORTS)),
  summary: nullish(z.enum(['auto', 'concise', 'detailed'])),
  generate_summary: nullish(z.enum(['auto', 'concise', 'detailed'])),
  context: nullish(z.enum(['auto', 'current_turn', 'all_turns'])),
});
const textConfig = z.strictObject({ format: z.unknown().optional(), verbosity: nullish(z.enum(['low', 'medium', 'high'])) });

/** Fields shared by POST /v1/responses and POST /v1/responses/input_tokens. */
const shared = {
  input: z.union([z.string(), z.array(z.unknown())]).optional(),
  instructions: nullish(z.string()),
  model: z.string().min(1),
  parallel_tool_calls: nullish(z.boolean()),
  previous_response_id: nullish(z.string().min(1)),
  conversation: nullish(z.union([z.string(), z.strictObject({ id: z.string() })])),
  reasoning: nullish(reasoningConfig),
  text: textConfig.optional(),
  tool_choice: z.unknown().optional(),
  tools: z.array(z.unknown()).optional(),
  truncation: nullish(z.enum(['auto', 'disabled'])),
};

export const createBodySchema = z.strictObject({
  ...shared,
  background: nullish(z.boolean()),
  /** Sent by Codex CLI; string pairs like metadata. */
  client_metadata: nullish(z.record(z.string(), z.string())),
  context_management: nullish(z.array(z.looseObject({ type: z.string() }))),
  include: nullish(z.array(z.enum(INCLUDABLE))),
  max_output_tokens: nullish(z.number().int().min(16)),
  max_tool_calls: nullish(z.number().int().min(1)),
  metadata: nullish(metadata),
  moderation: nullish(z.looseObject({ model: z.string() })),
  prompt: nullish(z.looseObject({ id: z.string() })),
  prompt_cache_key: nullish(z.string()),
  prompt_cache_options: z.strictObject({ mode: z.enum(['implicit', 'explicit']).optional(), ttl: z.literal('30m').optional() }).optional(),
  prompt_cache_retention: nullish(z.enum(['in_memory', '24h'])),
  safety_identifier: nullish(z.string().max(64)),
  service_tier: nullish(z.enum(['auto', 'default', 'flex', 'scale', 'priority'])),
  store: nullish(z.boolean()),
  stream: nullish(z.boolean()),
  stream_options: nullish(z.strictObject({ include_obfuscation: z.boolean().optional() })),
  temperature: nullish(z.number().min(0).max(2)),
  top_logprobs: nullish(z.number().int().min(0).max(20)),
  top_p: nullish(z.number().min(0).max(1)),
  user: z.string().optional(),
});

export const inputTokensBodySchema = z.strictObject({ ...shared, model: z.string().min(1).nullish(), personality: z.string().optional() });

// ---- zod issue -> OpenAI error ----

function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const seg of path) out += typeof seg === 'number' ? `[${seg}]` : out ? `.${String(seg)}` : String(seg);
  return out;
}

function valueAt(root: unknown, path: ReadonlyArray<PropertyKey>): unknown {
  let v = root;
  for (const seg of path) v = isObj(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[seg] : undefined;
  return v;
}

const jsonType = (v: unknown): string => (v === null ? 'null' : Array.isArray(v) ? 'an array' : typeof v === 'object' ? 'an object' : typeof v === 'number' && Number.isInteger(v) ? 'an integer' : `a ${typeof v}`);
const EXPECTED: Record<string, string> = { number: 'a decimal', int: 'an integer', string: 'a string', boolean: 'a boolean', object: 'an object', array: 'an array', record: 'an object' };

function toError(issue: z.core.$ZodIssue, root: unknown, prefix: ReadonlyArray<PropertyKey>): ResponsesMockError {
  const path = [...prefix, ...issue.path];
  const param = formatPath(path);
  if (issue.code !== 'unrecognized_keys' && valueAt(root, path) === undefined) {
    return new ResponsesMockError(400, `Missing required parameter: '${param}'.`, param, 'missing_required_parameter');
  }
  switch (issue.code) {
    case 'unrecognized_keys': {
      const key = formatPath([...path, issue.keys[0] ?? '']);
      return new ResponsesMockError(400, `Unknown parameter: '${key}'.`, key, 'unknown_parameter');
    }
    case 'invalid_type': {
      const got = valueAt(root, path);
      return new ResponsesMockError(400, `Invalid type for '${param}': expected ${EXPECTED[issue.expected] ?? issue.expected}, but got ${jsonType(got)} instead.`, param, 'invalid_type');
    }
    case 'invalid_value':
      return new ResponsesMockError(400, `Invalid value: '${String(valueAt(root, path))}'. Supported values are: ${issue.values.map((v) => `'${String(v)}'`).join(', ')}.`, param, 'invalid_value');
    case 'too_small':
    case 'too_big': {
      const got = valueAt(root, path);
      const below = issue.code === 'too_small';
      const bound = below ? (issue as z.core.$ZodIssueTooSmall).minimum : (issue as z.core.$ZodIssueTooBig).maximum;
      const kind = typeof got === 'number' ? (Number.isInteger(got) ? 'integer' : 'decimal') : Array.isArray(got) ? 'array' : 'string';
      const what = kind === 'array' || kind === 'string' ? `${kind} ${below ? 'too short' : 'too long'}` : `${kind} ${below ? 'below minimum' : 'above maximum'} value`;
      return new ResponsesMockError(400, `Invalid '${param}': ${what}. Expected a value ${below ? '>=' : '<='} ${String(bound)}, but got ${JSON.stringify(got)} instead.`, param, `${kind}_${below ? 'below_min_value' : 'above_max_value'}`);
    }
    default:
      return new ResponsesMockError(400, `Invalid '${param}': ${issue.message}.`, param, 'invalid_value');
  }
}

/**
 * Parses with a strict schema; the first issue becomes a 400. Like OpenAI, a missing required field
 * is reported before unknown ones (a chat-style tool gets "Missing required parameter:
 * 'tools[0].name'"), and unknown fields before wrong values.
 */
export function check<T extends z.ZodType>(schema: T, value: unknown, root: unknown, prefix: ReadonlyArray<PropertyKey>): z.output<T> {
  const r = schema.safeParse(value);
  if (r.success) return r.data;
  const rank = (i: z.core.$ZodIssue): number => (i.code !== 'unrecognized_keys' && valueAt(root, [...prefix, ...i.path]) === undefined ? 0 : i.code === 'unrecognized_keys' ? 1 : 2);
  const issues = [...r.error.issues].sort((a, b) => rank(a) - rank(b));
  throw toError(issues[0] as z.core.$ZodIssue, root, prefix);
}

function invalidValue(value: unknown, allowed: readonly string[], param: string): ResponsesMockError {
  return new ResponsesMockError(400, `Invalid value: '${String(value)}'. Supported values are: ${allowed.map((a) => `'${a}'`).join(', ')}.`, param, 'invalid_value');
}

// ---- the parts zod unions cannot word like OpenAI ----

function checkParts(parts: unknown[], allowed: Record<string, z.ZodType>, root: Json, path: PropertyKey[]): void {
  parts.forEach((p, j) => {
    const type = isObj(p) ? p.type : undefined;
    const schema = typeof type === 'string' && Object.hasOwn(allowed, type) ? allowed[type] : undefined;
    if (!schema) throw invalidValue(type, Object.keys(allowed), formatPath([...path, j, 'type']));
    check(schema, p, root, [...path, j]);
    if (type === 'input_image' && isObj(p) && !p.image_url && !p.file_id) {
      throw new ResponsesMockError(400, `Invalid '${formatPath([...path, j])}': one of 'image_url' or 'file_id' must be provided.`, formatPath([...path, j]), 'invalid_value');
    }
    if (type === 'input_file' && isObj(p)) {
      if (!p.file_data && !p.file_id && !p.file_url) throw new ResponsesMockError(400, `Invalid '${formatPath([...path, j])}': one of 'file_id', 'file_url' or 'file_data' must be provided.`, formatPath([...path, j]), 'invalid_value');
      if (p.file_data && !p.filename) throw new ResponsesMockError(400, `Missing required parameter: '${formatPath([...path, j, 'filename'])}'.`, formatPath([...path, j, 'filename']), 'missing_required_parameter');
    }
  });
}

/** Validates one input item; returns its type (`message` for easy messages). */
export function checkItem(item: unknown, root: Json, i: number): string {
  const path: PropertyKey[] = ['input', i];
  if (!isObj(item)) throw new ResponsesMockError(400, `Invalid type for 'input[${i}]': expected an object, but got ${jsonType(item)} instead.`, `input[${i}]`, 'invalid_type');
  const type = item.type ?? ('role' in item ? 'message' : 'item_reference');
  if (typeof type !== 'string' || !ITEM_TYPES.includes(type)) throw invalidValue(type, ITEM_TYPES, `input[${i}].type`);
  switch (type) {
    case 'message': {
      const m = check(message, item, root, path);
      if (Array.isArray(m.content)) checkParts(m.content, m.role === 'assistant' ? ASSISTANT_PARTS : INPUT_PARTS, root, [...path, 'content']);
      break;
    }
    case 'function_call':
      check(functionCall, item, root, path);
      break;
    case 'function_call_output': {
      const o = check(functionCallOutput, item, root, path);
      if (Array.isArray(o.output)) checkParts(o.output, OUTPUT_PARTS, root, [...path, 'output']);
      break;
    }
    case 'reasoning':
      check(reasoning, item, root, path);
      break;
    case 'item_reference':
      check(itemReference, item, root, path);
      break;
  }
  return type;
}

/** Every object in a strict function schema closes with additionalProperties:false and requires all its properties. */
function strictSchemaProblem(schema: unknown, at: string): string | undefined {
  if (!isObj(schema)) return undefined;
  if (schema.type === 'object' || isObj(schema.properties)) {
    if (schema.additionalProperties !== false) return `In context=${at}, 'additionalProperties' is required to be supplied and to be false.`;
    const props = isObj(schema.properties) ? Object.keys(schema.properties) : [];
    const required = Array.isArray(schema.required) ? schema.required : [];
    const missing = props.find((p) => !required.includes(p));
    if (missing) return `In context=${at}, 'required' is required to be supplied and to be an array including every key in properties. Missing '${missing}'.`;
    for (const [k, v] of Object.entries(isObj(schema.properties) ? schema.properties : {})) {
      const inner = strictSchemaProblem(v, `${at === '()' ? '' : at}('properties', '${k}')`);
      if (inner) return inner;
    }
  }
  if (isObj(schema.items)) return strictSchemaProblem(schema.items, `${at}('items')`);
  return undefined;
}

/** Tools: flattened function tools (a nested `function` object is the classic mistake), namespaces, built-ins. */
export function checkTools(tools: unknown[], root: Json): Json[] {
  const fns: Json[] = [];
  tools.forEach((t, i) => {
    const type = isObj(t) ? t.type : undefined;
    if (type === 'function') {
      const fn = check(functionTool, t, root, ['tools', i]) as Json;
      const schemaProblem = fn.parameters != null ? jsonSchemaProblem(fn.parameters) : undefined;
      if (schemaProblem) {
        throw new ResponsesMockError(400, `Invalid schema for function '${String(fn.name)}': In context=${schemaProblem.context}, ${JSON.stringify(schemaProblem.value)} is not valid under any of the given schemas.`, `tools[${i}].parameters`, 'invalid_function_parameters');
      }
      if (fn.strict === true) {
        const problem = strictSchemaProblem(fn.parameters ?? {}, '()');
        if (problem) throw new ResponsesMockError(400, `Invalid schema for function '${String(fn.name)}': ${problem}`, `tools[${i}].parameters`, 'invalid_function_parameters');
      }
      fns.push(fn);
    } else if (type === 'namespace') {
      const ns = check(namespaceTool, t, root, ['tools', i]);
      for (const inner of ns.tools) if (inner.type === 'function') fns.push(inner);
    } else if (typeof type !== 'string' || !BUILTIN_TOOLS.has(type)) {
      throw invalidValue(type, ['function', 'namespace', ...BUILTIN_TOOLS], `tools[${i}].type`);
    }
  });
  return fns;
}

export function checkToolChoice(choice: unknown, functionNames: string[]): void {
  if (choice === undefined || choice === null) return;
  if (typeof choice === 'string') {
    if (!['none', 'auto', 'required'].includes(choice)) throw invalidValue(choice, ['none', 'auto', 'required'], 'tool_choice');
    return;
  }
  if (!isObj(choice)) throw new ResponsesMockError(400, `Invalid type for 'tool_choice': expected one of a string or an object, but got ${jsonType(choice)} instead.`, 'tool_choice', 'invalid_type');
  if (choice.type === 'function') {
    check(z.strictObject({ type: z.literal('function'), name: z.string() }), choice, { tool_choice: choice }, ['tool_choice']);
    if (!functionNames.includes(String(choice.name))) {
      throw new ResponsesMockError(400, `Tool choice 'function' not found in 'tools' parameter.`, 'tool_choice', 'invalid_value');
    }
  } else if (choice.type === 'allowed_tools') {
    check(z.strictObject({ type: z.literal('allowed_tools'), mode: z.enum(['auto', 'required']), tools: z.array(z.looseObject({ type: z.string() })) }), choice, { tool_choice: choice }, ['tool_choice']);
  } else if (typeof choice.type !== 'string') {
    throw new ResponsesMockError(400, "Missing required parameter: 'tool_choice.type'.", 'tool_choice.type', 'missing_required_parameter');
  }
}

export function checkTextFormat(format: unknown, root: Json, inputText: string): void {
  if (format === undefined) return;
  const type = isObj(format) ? format.type : undefined;
  const schema = typeof type === 'string' ? FORMATS[type] : undefined;
  if (!schema) throw invalidValue(type, Object.keys(FORMATS), 'text.format.type');
  check(schema, format, root, ['text', 'format']);
  if (type === 'json_object' && !/json/i.test(inputText)) {
    throw new ResponsesMockError(400, "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.", 'input', null);
  }
}
