/**
 * OpenTelemetry GenAI semantic-convention names and the small readers that fill them: which
 * operation a route or protocol performs, the vendor's `gen_ai.provider.name`, the request
 * settings worth recording (never the content), and id, model and finish reasons of an answer.
 */
import type { ProtocolName } from '../ir/types.js';
import type { ProviderType } from '../config/schema.js';

export const ATTR = {
  operation: 'gen_ai.operation.name',
  providerName: 'gen_ai.provider.name',
  requestModel: 'gen_ai.request.model',
  responseModel: 'gen_ai.response.model',
  responseId: 'gen_ai.response.id',
  finishReasons: 'gen_ai.response.finish_reasons',
  inputTokens: 'gen_ai.usage.input_tokens',
  outputTokens: 'gen_ai.usage.output_tokens',
  maxTokens: 'gen_ai.request.max_tokens',
  temperature: 'gen_ai.request.temperature',
  topP: 'gen_ai.request.top_p',
  tokenType: 'gen_ai.token.type',
  inputMessages: 'gen_ai.input.messages',
  outputMessages: 'gen_ai.output.messages',
  serverAddress: 'server.address',
  serverPort: 'server.port',
  errorType: 'error.type',
  httpMethod: 'http.request.method',
  httpRoute: 'http.route',
  httpStatus: 'http.response.status_code',
  urlPath: 'url.path',
  keyId: 'modelgate.key.id',
  traceId: 'modelgate.trace_id',
  clientProtocol: 'modelgate.protocol.client',
  upstreamProtocol: 'modelgate.protocol.upstream',
  passthrough: 'modelgate.passthrough',
  model: 'modelgate.model',
  providerId: 'modelgate.provider.id',
  attempt: 'modelgate.attempt',
  outcome: 'modelgate.outcome',
  stream: 'modelgate.stream',
  streamCompleted: 'modelgate.stream.completed',
  videoState: 'modelgate.video.state',
} as const;

/** `gen_ai.provider.name` per provider type (the convention's well-known values where one exists). */
const PROVIDER_NAMES: Record<ProviderType, string> = {
  openai: 'openai',
  'openai-compatible': 'openai',
  anthropic: 'anthropic',
  gemini: 'gcp.gemini',
  mock: 'modelgate.mock',
};

export function genAiProviderName(type: ProviderType): string {
  return PROVIDER_NAMES[type] ?? type;
}

/** `gen_ai.operation.name` of a call in a protocol: Gemini's generateContent is `generate_content`, the others chat. */
export function operationOfProtocol(protocol: ProtocolName): string {
  return protocol === 'gemini' ? 'generate_content' : 'chat';
}

interface RouteFacts {
  operation?: string;
  clientProtocol: string;
}

/** What each model-calling route is, by route template; other routes are plain HTTP. */
const ROUTE_FACTS: Record<string, RouteFacts> = {
  '/v1/chat/completions': { operation: 'chat', clientProtocol: 'openai-chat' },
  '/v1/responses': { operation: 'chat', clientProtocol: 'openai-responses' },
  '/v1/messages': { operation: 'chat', clientProtocol: 'anthropic-messages' },
  '/v1beta/interactions': { operation: 'chat', clientProtocol: 'gemini-interactions' },
  '/{version}/models/{model}:{action}': { operation: 'generate_content', clientProtocol: 'gemini' },
  '/v1/images/generations': { operation: 'generate_content', clientProtocol: 'openai-images' },
  '/v1/embeddings': { operation: 'embeddings', clientProtocol: 'openai-embeddings' },
  '/v1beta/openai/embeddings': { operation: 'embeddings', clientProtocol: 'openai-embeddings' },
  '/{version}/models/{model}:{embedAction}': { operation: 'embeddings', clientProtocol: 'gemini-embeddings' },
  '/v1beta/openai/chat/completions': { operation: 'chat', clientProtocol: 'openai-chat' },
  '/v1beta/openai/images/generations': { operation: 'generate_content', clientProtocol: 'openai-images' },
  '/v1/images/edits': { operation: 'generate_content', clientProtocol: 'openai-images' },
  '/v1/video/generations': { operation: 'generate_content', clientProtocol: 'openai-videos' },
  '/v1/messages/count_tokens': { clientProtocol: 'anthropic-messages' },
  '/v1/responses/input_tokens': { clientProtocol: 'openai-responses' },
};

export function routeFacts(route: string | undefined, path: string): RouteFacts | undefined {
  if (!route) return undefined;
  const facts = ROUTE_FACTS[route];
  // Gemini's countTokens shares the route of generateContent but generates nothing.
  if (facts && route === '/{version}/models/{model}:{action}' && path.endsWith(':countTokens')) return { clientProtocol: 'gemini' };
  return facts;
}

export interface RequestSettings {
  maxTokens?: number;
  temperature?: number;
  topP?: number;
}

const num = (v: unknown): number | undefined => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);
const obj = (v: unknown): Record<string, unknown> | undefined => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined);

/** max tokens, temperature and top_p as each client protocol names them (OpenAI, Anthropic, Responses, Gemini, Interactions). */
export function requestSettings(body: Record<string, unknown>): RequestSettings {
  const gen = obj(body.generationConfig) ?? obj(body.generation_config) ?? {};
  const maxTokens = num(body.max_completion_tokens) ?? num(body.max_tokens) ?? num(body.max_output_tokens) ?? num(gen.maxOutputTokens) ?? num(gen.max_output_tokens);
  const temperature = num(body.temperature) ?? num(gen.temperature);
  const topP = num(body.top_p) ?? num(gen.topP) ?? num(gen.top_p);
  return {
    ...(maxTokens !== undefined ? { maxTokens } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(topP !== undefined ? { topP } : {}),
  };
}

export interface ResponseFacts {
  id?: string;
  model?: string;
  finishReasons?: string[];
}

const str = (v: unknown): string | undefined => (typeof v === 'string' && v ? v : undefined);

/** Id, model and finish reasons of a whole answer in any chat protocol (OpenAI, Anthropic, Responses, Gemini, Interactions). */
export function responseFacts(json: Record<string, unknown>): ResponseFacts {
  const id = str(json.id) ?? str(json.responseId);
  const model = str(json.model) ?? str(json.modelVersion);
  const reasons: string[] = [];
  if (Array.isArray(json.choices)) for (const c of json.choices) {
    const r = str(obj(c)?.finish_reason);
    if (r) reasons.push(r);
  }
  if (Array.isArray(json.candidates)) for (const c of json.candidates) {
    const r = str(obj(c)?.finishReason);
    if (r) reasons.push(r);
  }
  const stop = str(json.stop_reason);
  if (stop) reasons.push(stop);
  if (!reasons.length && json.object === 'response') {
    // An incomplete response says why (`max_output_tokens`, `content_filter`), as the stream relay reports it.
    const status = str(json.status);
    const reason = status === 'incomplete' ? str(obj(json.incomplete_details)?.reason) : undefined;
    if (reason ?? status) reasons.push((reason ?? status) as string);
  }
  // Set field by field (conditional spreads copy an object per field).
  const facts: ResponseFacts = {};
  if (id) facts.id = id;
  if (model) facts.model = model;
  if (reasons.length) facts.finishReasons = reasons;
  return facts;
}

/**
 * Id and model from the first event of a pass-through stream (OpenAI chunk, Anthropic
 * `message_start`, Responses `response.created`, Gemini chunk, Interactions start); one parse per
 * stream, the rest is relayed unparsed.
 */
export function streamStartFacts(data: string): ResponseFacts {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    return {};
  }
  const o = obj(json);
  if (!o) return {};
  const inner = obj(o.message) ?? obj(o.response) ?? obj(o.interaction) ?? o;
  const { id, model } = responseFacts(inner);
  const facts: ResponseFacts = {};
  if (id) facts.id = id;
  if (model) facts.model = model;
  return facts;
}
