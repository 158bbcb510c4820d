/**
 * Request validation of the mock Gemini upstream: rejects (with Google's error shape) what the real
 * `generativelanguage.googleapis.com` v1beta API rejects, for the subset a gateway could send.
 * Requests are accepted in lowerCamelCase and snake_case; `normalizeRequest` returns the camelCase form.
 */

export type Json = Record<string, unknown>;

export class GoogleError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly status = 'INVALID_ARGUMENT',
    readonly details?: unknown[],
  ) {
    super(message);
  }
}

export function googleErrorBody(e: GoogleError): Json {
  return { error: { code: e.code, message: e.message, status: e.status, ...(e.details ? { details: e.details } : {}) } };
}

export function isObj(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const camel = (k: string): string => k.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());

/**
 * Renames snake_case keys of one object level to camelCase and rejects unknown names, as the
 * proto3-JSON parser does ("Invalid JSON payload received. Unknown name ...").
 */
function level(obj: Json, known: readonly string[], where: string): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(obj)) {
    const c = camel(k);
    if (!known.includes(c)) throw new GoogleError(400, `Invalid JSON payload received. Unknown name "${k}" at '${where}': Cannot find field.`);
    out[c] = v;
  }
  return out;
}

const TOP = ['model', 'contents', 'systemInstruction', 'tools', 'toolConfig', 'safetySettings', 'generationConfig', 'cachedContent', 'serviceTier', 'store'];
const CONTENT = ['role', 'parts'];
const PART = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult', 'thought', 'thoughtSignature', 'videoMetadata', 'partMetadata', 'mediaResolution'];
const PART_DATA = ['text', 'inlineData', 'fileData', 'functionCall', 'functionResponse', 'executableCode', 'codeExecutionResult'];
const GEN = [
  'stopSequences', 'responseMimeType', 'responseSchema', 'responseJsonSchema', 'responseModalities', 'candidateCount', 'maxOutputTokens',
  'temperature', 'topP', 'topK', 'seed', 'presencePenalty', 'frequencyPenalty', 'responseLogprobs', 'logprobs', 'enableEnhancedCivicAnswers',
  'speechConfig', 'thinkingConfig', 'imageConfig', 'mediaResolution',
];
const TOOL = ['functionDeclarations', 'googleSearch', 'googleSearchRetrieval', 'codeExecution', 'urlContext', 'googleMaps', 'fileSearch', 'computerUse'];
const DECL = ['name', 'description', 'parameters', 'parametersJsonSchema', 'response', 'responseJsonSchema', 'behavior'];
const MODES = ['AUTO', 'ANY', 'NONE', 'VALIDATED', 'MODE_UNSPECIFIED'];

function num(v: unknown, where: string, min: number, max: number, integer = false): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || (integer && !Number.isInteger(v))) {
    throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}' (${integer ? 'TYPE_INT32' : 'TYPE_FLOAT'}), ${JSON.stringify(v)}`);
  }
  if (v < min || v > max) throw new GoogleError(400, `* GenerateContentRequest.${where}: must be in the range [${min}, ${max}].`);
}

function normalizePart(p: unknown, where: string, role: string): Json {
  if (!isObj(p)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}': expected an object.`);
  const part = level(p, PART, where);
  const data = PART_DATA.filter((k) => part[k] !== undefined);
  if (data.length === 0) throw new GoogleError(400, `* GenerateContentRequest.${where}.data: required oneof field 'data' must have one initialized field`);
  if (data.length > 1) throw new GoogleError(400, `Invalid JSON payload received. Oneof field 'data' is already set. Cannot set '${data[1]}' at '${where}'.`);
  if (part.text !== undefined && typeof part.text !== 'string') throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.text' (TYPE_STRING)`);
  if (part.inlineData !== undefined) {
    if (!isObj(part.inlineData)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.inline_data'.`);
    const d = level(part.inlineData, ['mimeType', 'data', 'displayName'], `${where}.inline_data`);
    if (typeof d.mimeType !== 'string' || !d.mimeType) throw new GoogleError(400, `* GenerateContentRequest.${where}.inline_data.mime_type: required field is not set`);
    if (typeof d.data !== 'string' || !d.data) throw new GoogleError(400, `* GenerateContentRequest.${where}.inline_data.data: required field is not set`);
    if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(d.data)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.inline_data.data' (TYPE_BYTES), Base64 decoding failed for "${d.data.slice(0, 20)}"`);
    part.inlineData = d;
  }
  if (part.fileData !== undefined) {
    if (!isObj(part.fileData)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.file_data'.`);
    const d = level(part.fileData, ['mimeType', 'fileUri', 'displayName'], `${where}.file_data`);
    if (typeof d.fileUri !== 'string' || !d.fileUri) throw new GoogleError(400, `* GenerateContentRequest.${where}.file_data.file_uri: required field is not set`);
    part.fileData = d;
  }
  if (part.functionCall !== undefined) {
    if (role !== 'model') throw new GoogleError(400, `Please ensure that function call turns come from the model (found one in a '${role}' turn at ${where}).`);
    const fc = isObj(part.functionCall) ? level(part.functionCall, ['id', 'name', 'args', 'partialArgs', 'willContinue'], `${where}.function_call`) : {};
    if (typeof fc.name !== 'string' || !fc.name) throw new GoogleError(400, `* GenerateContentRequest.${where}.function_call.name: Name cannot be empty.`);
    if (fc.args !== undefined && !isObj(fc.args)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.function_call.args' (type.googleapis.com/google.protobuf.Struct)`);
    part.functionCall = fc;
  }
  if (part.functionResponse !== undefined) {
    const fr = isObj(part.functionResponse) ? level(part.functionResponse, ['id', 'name', 'response', 'parts', 'willContinue', 'scheduling'], `${where}.function_response`) : {};
    if (typeof fr.name !== 'string' || !fr.name) throw new GoogleError(400, `* GenerateContentRequest.${where}.function_response.name: Name cannot be empty.`);
    if (!isObj(fr.response)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.function_response.response' (type.googleapis.com/google.protobuf.Struct), ${JSON.stringify(fr.response)}`);
    part.functionResponse = fr;
  }
  if (part.thoughtSignature !== undefined && (typeof part.thoughtSignature !== 'string' || !/^[A-Za-z0-9+/_-]*={0,2}$/.test(part.thoughtSignature))) {
    throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}.thought_signature' (TYPE_BYTES), Base64 decoding failed`);
  }
  return part;
}

function normalizeContent(c: unknown, where: string, isSystem: boolean): Json {
  if (!isObj(c)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}': expected an object.`);
  const content = level(c, CONTENT, where);
  const role = content.role ?? (isSystem ? 'user' : 'user');
  if (!isSystem && role !== 'user' && role !== 'model') {
    throw new GoogleError(400, `Please use a valid role: user, model.`);
  }
  if (!Array.isArray(content.parts) || content.parts.length === 0) {
    throw new GoogleError(400, `* GenerateContentRequest.${where}.parts: contents.parts must not be empty.`);
  }
  content.parts = content.parts.map((p, j) => normalizePart(p, `${where}.parts[${j}]`, String(role)));
  return content;
}

function normalizeTools(tools: unknown): Json[] {
  if (!Array.isArray(tools)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at 'tools': expected a list.`);
  return tools.map((t, i) => {
    if (!isObj(t)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at 'tools[${i}]'.`);
    const tool = level(t, TOOL, `tools[${i}]`);
    if (tool.functionDeclarations !== undefined) {
      if (!Array.isArray(tool.functionDeclarations)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at 'tools[${i}].function_declarations'.`);
      tool.functionDeclarations = tool.functionDeclarations.map((d, j) => {
        const w = `tools[${i}].function_declarations[${j}]`;
        const decl = isObj(d) ? level(d, DECL, w) : {};
        if (typeof decl.name !== 'string' || !/^[A-Za-z_][A-Za-z0-9_.:-]{0,127}$/.test(decl.name)) {
          throw new GoogleError(400, `* GenerateContentRequest.${w}.name: Invalid function name. Must start with a letter or an underscore. Must be a-z, A-Z, 0-9, or contain underscores, dots, colons and dashes, with a maximum length of 128.`);
        }
        if (decl.parameters !== undefined && decl.parametersJsonSchema !== undefined) {
          throw new GoogleError(400, `* GenerateContentRequest.${w}: parameters and parameters_json_schema cannot both be set.`);
        }
        if (decl.parameters !== undefined) checkOpenApiSchema(decl.parameters, `${w}.parameters`);
        return decl;
      });
    }
    if (tool.googleSearch !== undefined) {
      if (!isObj(tool.googleSearch)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at 'tools[${i}].google_search'.`);
      tool.googleSearch = level(tool.googleSearch, ['timeRangeFilter', 'searchTypes'], `tools[${i}].google_search`);
    }
    return tool;
  });
}

const OPENAPI_KEYS = [
  'type', 'format', 'title', 'description', 'nullable', 'enum', 'maxItems', 'minItems', 'properties', 'required', 'minProperties', 'maxProperties',
  'minLength', 'maxLength', 'pattern', 'example', 'anyOf', 'propertyOrdering', 'default', 'items', 'minimum', 'maximum',
];

/** `parameters`/`responseSchema` take an OpenAPI subset: JSON-Schema-only keys are unknown names. */
function checkOpenApiSchema(s: unknown, where: string): void {
  if (!isObj(s)) throw new GoogleError(400, `Invalid JSON payload received. Invalid value at '${where}'.`);
  for (const [k, v] of Object.entries(s)) {
    if (!OPENAPI_KEYS.includes(camel(k))) throw new GoogleError(400, `Invalid JSON payload received. Unknown name "${k}" at '${where}': Cannot find field.`);
    if (k === 'properties' && isObj(v)) for (const [pk, pv] of Object.entries(v)) checkOpenApiSchema(pv, `${where}.properties[${pk}].value`);
    if (k === 'items') checkOpenApiSchema(v, `${where}.items`);
    if (k === 'anyOf' && Array.isArray(v)) v.forEach((x, i) => checkOpenApiSchema(x, `${where}.any_of[${i}]`));
  }
}

/** Checks function call / response pairing the way the API does. */
function checkFunctionTurns(contents: Json[]): void {
  contents.forEach((c, i) => {
    const parts = c.parts as Json[];
    const responses = parts.filter((p) => p.functionResponse !== undefined);
    if (responses.length === 0) return;
    const prev = contents[i - 1];
    const calls = prev && prev.role === 'model' ? (prev.parts as Json[]).filter((p) => p.functionCall !== undefined) : [];
    if (calls.length === 0) {
      throw new GoogleError(400, 'Please ensure that function response turn comes immediately after a function call turn.');
    }
    if (calls.length !== responses.length) {
      throw new GoogleError(400, 'Please ensure that the number of function response parts is equal to the number of function call parts of the function call turn.');
    }
    const names = calls.map((p) => (p.functionCall as Json).name);
    for (const r of responses) {
      const name = (r.functionResponse as Json).name;
      const at = names.indexOf(name);
      if (at < 0) throw new GoogleError(400, `Please ensure that the function response names match the function call names of the previous turn (unknown function response name '${String(name)}').`);
      names.splice(at, 1);
    }
  });
}

/** Validates and returns the camelCase form of a generateContent body. */
export function normalizeRequest(body: unknown, model: string): Json {
  if (!isObj(body)) throw new GoogleError(400, 'Invalid JSON payload received. Expected an object.');
  const req = level(body, TOP, 'GenerateContentRequest');
  if (!Array.isArray(req.contents) || req.contents.length === 0) throw new GoogleError(400, '* GenerateContentRequest.contents: contents is not specified');
  req.contents = req.contents.map((c, i) => normalizeContent(c, `contents[${i}]`, false));
  if (req.systemInstruction !== undefined) req.systemInstruction = normalizeContent(req.systemInstruction, 'system_instruction', true);
  checkFunctionTurns(req.contents as Json[]);
  if (req.tools !== undefined) req.tools = normalizeTools(req.tools);
  if (req.toolConfig !== undefined) {
    const tc = isObj(req.toolConfig) ? level(req.toolConfig, ['functionCallingConfig', 'retrievalConfig', 'includeServerSideToolInvocations'], 'tool_config') : {};
    if (tc.functionCallingConfig !== undefined) {
      const fcc = isObj(tc.functionCallingConfig) ? level(tc.functionCallingConfig, ['mode', 'allowedFunctionNames'], 'tool_config.function_calling_config') : {};
      if (fcc.mode !== undefined && !MODES.includes(String(fcc.mode))) {
        throw new GoogleError(400, `Invalid JSON payload received. Invalid value at 'tool_config.function_calling_config.mode' (type.googleapis.com/google.ai.generativelanguage.v1beta.FunctionCallingConfig.Mode), "${String(fcc.mode)}"`);
      }
      if (fcc.allowedFunctionNames !== undefined && fcc.mode !== 'ANY' && fcc.mode !== 'VALIDATED') {
        throw new GoogleError(400, '* GenerateContentRequest.tool_config.function_calling_config.allowed_function_names: allowed_function_names is only allowed when mode is ANY or VALIDATED.');
      }
      tc.functionCallingConfig = fcc;
    }
    req.toolConfig = tc;
  }
  if (req.generationConfig !== undefined) {
    if (!isObj(req.generationConfig)) throw new GoogleError(400, "Invalid JSON payload received. Invalid value at 'generation_config'.");
    const g = level(req.generationConfig, GEN, 'generation_config');
    num(g.temperature, 'generation_config.temperature', 0, 2);
    num(g.topP, 'generation_config.top_p', 0, 1);
    num(g.topK, 'generation_config.top_k', 1, 1_000_000, true);
    num(g.maxOutputTokens, 'generation_config.max_output_tokens', 1, 1_000_000, true);
    num(g.candidateCount, 'generation_config.candidate_count', 1, 8, true);
    num(g.seed, 'generation_config.seed', -2147483648, 2147483647, true);
    num(g.presencePenalty, 'generation_config.presence_penalty', -2, 2);
    num(g.frequencyPenalty, 'generation_config.frequency_penalty', -2, 2);
    if (g.candidateCount !== undefined && g.candidateCount !== 1) throw new GoogleError(400, `Multiple candidates is not enabled for models/${model}`);
    if (g.stopSequences !== undefined) {
      if (!Array.isArray(g.stopSequences) || !g.stopSequences.every((s) => typeof s === 'string')) throw new GoogleError(400, "Invalid JSON payload received. Invalid value at 'generation_config.stop_sequences'.");
      if (g.stopSequences.length > 5) throw new GoogleError(400, '* GenerateContentRequest.generation_config.stop_sequences: the number of stop sequences must not exceed 5.');
    }
    if (g.responseSchema !== undefined && g.responseJsonSchema !== undefined) throw new GoogleError(400, '* GenerateContentRequest.generation_config: response_schema and response_json_schema cannot both be set.');
    if (g.responseSchema !== undefined) checkOpenApiSchema(g.responseSchema, 'generation_config.response_schema');
    if (g.thinkingConfig !== undefined) {
      const t = isObj(g.thinkingConfig) ? level(g.thinkingConfig, ['includeThoughts', 'thinkingBudget', 'thinkingLevel'], 'generation_config.thinking_config') : {};
      if (t.thinkingBudget !== undefined && t.thinkingLevel !== undefined) {
        throw new GoogleError(400, 'You can only set only one of thinking budget and thinking level.');
      }
      num(t.thinkingBudget, 'generation_config.thinking_config.thinking_budget', -1, 32768, true);
      g.thinkingConfig = t;
    }
    req.generationConfig = g;
  }
  if (/gemini-3/.test(model)) checkSignatures(req.contents as Json[]);
  checkSearchWithFunctions(req, model);
  return req;
}

/**
 * Google Search next to function declarations: Gemini 2.x refuses it; Gemini 3 takes it only when
 * the response may carry the server-side tool calls (toolConfig.includeServerSideToolInvocations).
 */
function checkSearchWithFunctions(req: Json, model: string): void {
  const tools = Array.isArray(req.tools) ? (req.tools as Json[]) : [];
  const search = tools.some((t) => t.googleSearch !== undefined);
  const functions = tools.some((t) => Array.isArray(t.functionDeclarations) && t.functionDeclarations.length > 0);
  if (!search || !functions) return;
  if (!/gemini-3/.test(model)) throw new GoogleError(400, 'Tool use with function calling is unsupported');
  const tc = isObj(req.toolConfig) ? req.toolConfig : {};
  if (tc.includeServerSideToolInvocations !== true) {
    throw new GoogleError(400, 'Built-in tools (google_search) and function calling can be combined only with tool_config.include_server_side_tool_invocations set to true.');
  }
}

/** Gemini 3 rejects a model turn whose first function call lacks its thought signature. */
function checkSignatures(contents: Json[]): void {
  contents.forEach((c, i) => {
    if (c.role !== 'model') return;
    const first = (c.parts as Json[]).find((p) => p.functionCall !== undefined);
    if (first && typeof first.thoughtSignature !== 'string') {
      throw new GoogleError(400, `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${String((first.functionCall as Json).name)}\` , position ${i + 1}. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`);
    }
  });
}
