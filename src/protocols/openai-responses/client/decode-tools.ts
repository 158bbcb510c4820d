/**
 * Responses tools -> IR tools, for an upstream of another vendor. Function tools map one to one.
 * Tool types that only group function tools (`namespace`, as Codex sends) are flattened; a function
 * keeps its own name unless another tool has it too, then it becomes `<namespace>__<name>`.
 * `custom` tools (free-form text input, e.g. Codex's apply_patch) become a function with one string
 * argument `input`. The name map turns the upstream's calls back into `function_call` /
 * `custom_tool_call` items carrying their `namespace`. A tool search the client runs itself
 * (`tool_search` with `execution: "client"`, as Codex declares it) is a function too; its calls come
 * back as `tool_search_call` items, and the tools its outputs load are declared with the others.
 * `web_search` becomes the vendor's own search tool; OpenAI's other hosted tools are a 400 naming
 * the tool: no other vendor can run them.
 */
import { GatewayError } from '../../../core/errors.js';
import type { IRFunctionTool, IRTool, IRToolChoice, IRWebSearchTool } from '../../../ir/types.js';
import { parseOrThrow } from '../../shared/zod-error.js';
import { clientToolSearchSchema, customToolSchema, functionToolSchema, namespaceToolSchema, type CustomToolWire, type FunctionToolWire, type ResponsesRequest } from '../openai-responses-api.js';

export interface ClientToolRef {
  /** The name the client declared. */
  name: string;
  namespace?: string;
  kind: 'function' | 'custom' | 'tool_search';
}

/** Names as the client declared them <-> names sent upstream. */
export class ToolNames {
  private readonly byUpstream = new Map<string, ClientToolRef>();
  private readonly byClient = new Map<string, string>();

  private static key(name: string, namespace?: string | null): string {
    return `${namespace ?? ''}\u0000${name}`;
  }

  add(ref: ClientToolRef, upstreamName: string): void {
    this.byUpstream.set(upstreamName, ref);
    this.byClient.set(ToolNames.key(ref.name, ref.namespace), upstreamName);
  }

  has(upstreamName: string): boolean {
    return this.byUpstream.has(upstreamName);
  }

  /** The upstream name of a client tool (an unknown namespaced one gets the flattened form). */
  upstreamName(name: string, namespace?: string | null): string {
    return this.byClient.get(ToolNames.key(name, namespace)) ?? (namespace ? flatName(namespace, name) : name);
  }

  /** The client's view of an upstream tool name. */
  clientRef(upstreamName: string): ClientToolRef {
    return this.byUpstream.get(upstreamName) ?? { name: upstreamName, kind: 'function' };
  }
}

function flatName(namespace: string, name: string): string {
  return namespace.endsWith('_') ? `${namespace}${name}` : `${namespace}__${name}`;
}

/** The function a client-run tool search becomes upstream. */
export const TOOL_SEARCH = 'tool_search';

/** The JSON schema a custom tool gets upstream: one string argument. */
const CUSTOM_INPUT = 'input';

function customAsFunction(tool: CustomToolWire, upstreamName: string): IRFunctionTool {
  let description = tool.description ?? '';
  const format = tool.format;
  if (format && format.type === 'grammar') {
    const grammar = format as { syntax: string; definition: string };
    description += `${description ? '\n\n' : ''}The input must follow this ${grammar.syntax} grammar:\n${grammar.definition}`;
  }
  return {
    type: 'function',
    name: upstreamName,
    ...(description ? { description } : {}),
    parameters: {
      type: 'object',
      properties: { [CUSTOM_INPUT]: { type: 'string', description: 'The free-form input of the tool.' } },
      required: [CUSTOM_INPUT],
      additionalProperties: false,
    },
  };
}

/** A custom tool call's `input`: the `input` argument, or the raw arguments when they are not that shape. */
export function customInputOf(args: string): string {
  try {
    const parsed = JSON.parse(args) as unknown;
    if (parsed && typeof parsed === 'object' && typeof (parsed as Record<string, unknown>)[CUSTOM_INPUT] === 'string') return (parsed as Record<string, string>)[CUSTOM_INPUT] as string;
  } catch {
    // not JSON: keep it as it is
  }
  return args;
}

export function customArguments(input: string): string {
  return JSON.stringify({ [CUSTOM_INPUT]: input });
}

function functionToIR(tool: FunctionToolWire, upstreamName: string): IRFunctionTool {
  return {
    type: 'function',
    name: upstreamName,
    ...(tool.description ? { description: tool.description } : {}),
    ...(tool.parameters ? { parameters: tool.parameters } : {}),
    ...(tool.strict != null ? { strict: tool.strict } : {}),
  };
}

/** OpenAI's web search tool under its current and dated names. */
const WEB_SEARCH = new Set(['web_search', 'web_search_preview', 'web_search_2025_08_26', 'web_search_preview_2025_03_11']);

const isStringArray = (v: unknown): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string');

/** `web_search` -> the IR's web search, which each vendor runs with its own search tool. */
function decodeWebSearch(raw: Record<string, unknown>, param: string): IRWebSearchTool {
  const out: IRWebSearchTool = { type: 'web-search', raw };
  const filters = raw.filters;
  if (filters != null) {
    const domains = typeof filters === 'object' ? (filters as Record<string, unknown>).allowed_domains : undefined;
    if (domains != null && !isStringArray(domains)) throw new GatewayError('invalid_request', 'filters.allowed_domains must be a list of domains.', { param: `${param}.filters.allowed_domains` });
    if (domains?.length) out.allowedDomains = domains;
  }
  const loc = raw.user_location;
  if (loc != null) {
    if (typeof loc !== 'object') throw new GatewayError('invalid_request', 'user_location must be an object.', { param: `${param}.user_location` });
    const picked: NonNullable<IRWebSearchTool['userLocation']> = {};
    for (const k of ['city', 'region', 'country', 'timezone'] as const) {
      const v = (loc as Record<string, unknown>)[k];
      if (v != null) {
        if (typeof v !== 'string') throw new GatewayError('invalid_request', `user_location.${k} must be a string.`, { param: `${param}.user_location.${k}` });
        picked[k] = v;
      }
    }
    if (Object.keys(picked).length) out.userLocation = picked;
  }
  return out;
}

/**
 * OpenAI's hosted tools (`param` names where the tool was declared, e.g. `tools[2]`). `web_search`
 * becomes the vendor's own search; no other vendor can run the others.
 */
function decodeHostedTool(tool: { type: string } & Record<string, unknown>, param: string, model: string): IRTool {
  if (WEB_SEARCH.has(tool.type)) return decodeWebSearch(tool, param);
  throw new GatewayError('unsupported', `The tool '${tool.type}' (${param}) is one of OpenAI's hosted tools; the model '${model}' cannot run it.`, { param });
}

/**
 * Every tool declaration of a request: `tools`, then the tools of `additional_tools` and
 * `tool_search_output` input items (tools a client makes available mid-conversation; other vendors
 * need them declared up front).
 */
function declarations(req: Pick<ResponsesRequest, 'tools' | 'input'>): Array<{ raw: { type: string } & Record<string, unknown>; param: string }> {
  const out = (req.tools ?? []).map((raw, i) => ({ raw, param: `tools[${i}]` }));
  if (Array.isArray(req.input)) {
    req.input.forEach((item, i) => {
      if ((item.type !== 'additional_tools' && item.type !== 'tool_search_output') || !Array.isArray(item.tools)) return;
      (item.tools as unknown[]).forEach((raw, j) => {
        const param = `input[${i}].tools[${j}]`;
        if (!raw || typeof raw !== 'object' || typeof (raw as { type?: unknown }).type !== 'string') {
          throw new GatewayError('invalid_request', 'A tool needs a type.', { param: `${param}.type` });
        }
        out.push({ raw: raw as { type: string } & Record<string, unknown>, param });
      });
    });
  }
  return out;
}

interface Declared {
  ref: ClientToolRef;
  wire: FunctionToolWire | CustomToolWire;
  param: string;
}

export interface DecodedTools {
  tools: IRTool[];
  toolChoice?: IRToolChoice;
  names: ToolNames;
}

/** `skipHosted`: leave OpenAI's hosted tools out instead of refusing them (reading a pass-through turn). */
export function decodeTools(req: Pick<ResponsesRequest, 'tools' | 'tool_choice' | 'input'>, model: string, opts: { skipHosted?: boolean } = {}): DecodedTools {
  const names = new ToolNames();
  const declared: Declared[] = [];
  const hosted: IRTool[] = [];
  for (const { raw, param } of declarations(req)) {
    if (raw.type === 'function') {
      const wire = parseOrThrow(functionToolSchema, raw, param);
      declared.push({ ref: { name: wire.name, kind: 'function' }, wire, param });
    } else if (raw.type === 'custom') {
      const wire = parseOrThrow(customToolSchema, raw, param);
      declared.push({ ref: { name: wire.name, kind: 'custom' }, wire, param });
    } else if (raw.type === 'tool_search' && raw.execution === 'client') {
      const wire = parseOrThrow(clientToolSearchSchema, raw, param);
      const fn: FunctionToolWire = { type: 'function', name: TOOL_SEARCH, ...(wire.description ? { description: wire.description } : {}), parameters: wire.parameters ?? { type: 'object', properties: {} } };
      declared.push({ ref: { name: TOOL_SEARCH, kind: 'tool_search' }, wire: fn, param });
    } else if (raw.type === 'namespace') {
      const ns = parseOrThrow(namespaceToolSchema, raw, param);
      ns.tools.forEach((wire, j) => {
        declared.push({ ref: { name: wire.name, namespace: ns.name, kind: wire.type === 'custom' ? 'custom' : 'function' }, wire, param: `${param}.tools[${j}]` });
      });
    } else if (!opts.skipHosted) hosted.push(decodeHostedTool(raw, param, model));
  }

  const counts = new Map<string, number>();
  for (const d of declared) counts.set(d.ref.name, (counts.get(d.ref.name) ?? 0) + 1);
  const tools: IRTool[] = [];
  for (const d of declared) {
    const upstream = d.ref.namespace && (counts.get(d.ref.name) ?? 0) > 1 ? flatName(d.ref.namespace, d.ref.name) : d.ref.name;
    if (names.has(upstream) || upstream.length > 64) {
      throw new GatewayError('invalid_request', `The tool name '${d.ref.name}'${d.ref.namespace ? ` of namespace '${d.ref.namespace}'` : ''} is used twice.`, { param: `${d.param}.name` });
    }
    names.add(d.ref, upstream);
    tools.push(d.wire.type === 'custom' ? customAsFunction(d.wire as CustomToolWire, upstream) : functionToIR(d.wire as FunctionToolWire, upstream));
  }
  tools.push(...hosted);

  const out: DecodedTools = { tools, names };
  const choice = req.tool_choice;
  if (choice == null || opts.skipHosted) return out;
  if (typeof choice === 'string') {
    out.toolChoice = { type: choice };
    return out;
  }
  const named = (name: unknown, param: string): string => {
    const upstream = typeof name === 'string' ? names.upstreamName(name) : '';
    if (!upstream || !names.has(upstream)) {
      throw new GatewayError('invalid_request', `tool_choice names the tool '${String(name)}', which is not among the tools.`, { param });
    }
    return upstream;
  };
  if (choice.type === 'function' || choice.type === 'custom') {
    out.toolChoice = { type: 'tool', name: named(choice.name, 'tool_choice.name') };
  } else if (choice.type === 'allowed_tools') {
    const allowed = Array.isArray(choice.tools) ? choice.tools : [];
    const keep = new Set(allowed.map((t, k) => named((t as { name?: unknown }).name, `tool_choice.tools[${k}]`)));
    out.tools = tools.filter((t) => t.type !== 'function' || keep.has(t.name));
    out.toolChoice = { type: choice.mode === 'required' ? 'required' : 'auto' };
  } else if (WEB_SEARCH.has(choice.type)) {
    if (!tools.some((t) => t.type === 'web-search')) throw new GatewayError('invalid_request', `tool_choice names '${choice.type}', which is not among the tools.`, { param: 'tool_choice' });
    out.toolChoice = { type: 'web-search' };
  } else {
    throw new GatewayError('unsupported', `tool_choice of type '${choice.type}' names one of OpenAI's hosted tools; the model '${model}' cannot run it.`, { param: 'tool_choice' });
  }
  return out;
}
