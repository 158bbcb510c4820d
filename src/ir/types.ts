/**
 * The canonical representation every protocol decodes to and every provider encodes from.
 * Types only (plus tiny helpers): no wire format knowledge lives here.
 */
import type { GatewayError } from '../core/errors.js';

export type ProtocolName = 'openai-chat' | 'openai-responses' | 'anthropic-messages' | 'gemini' | 'gemini-interactions';

/** Vendor-only fields, keyed by protocol, so nothing is lost silently. */
export type ProviderOptions = Partial<Record<ProtocolName, Record<string, unknown>>>;

export interface IRTextPart {
  type: 'text';
  text: string;
  /** Sources the text cites (web search results). */
  citations?: IRCitation[];
  /** The model declined to answer and this text says so (OpenAI Responses' `refusal` content): never cached. */
  refusal?: true;
  /** e.g. Anthropic cache_control, OpenAI annotations. */
  providerOptions?: ProviderOptions;
}

/**
 * A web page a text cites. `startIndex`/`endIndex` are character offsets (UTF-16 code units) into
 * the text part (in a stream: into the text block of `text-citation`'s id); without them the whole
 * part cites the page.
 */
export interface IRCitation {
  type: 'url';
  url: string;
  title?: string;
  startIndex?: number;
  endIndex?: number;
}

/** A web search the vendor ran while answering (OpenAI `web_search_call`). */
export interface IRWebSearchPart {
  type: 'web-search';
  id: string;
  status: 'completed' | 'failed';
  /** The queries the model searched for, when the vendor says. */
  queries?: string[];
  /** The pages found. */
  sources?: Array<{ url: string; title?: string }>;
  /** The vendor's own blocks, so the same vendor gets them back verbatim on the next turn. */
  providerOptions?: ProviderOptions;
}

export type IRMediaSource =
  | { kind: 'url'; url: string; mediaType?: string }
  | { kind: 'base64'; mediaType: string; data: string };

export interface IRImagePart {
  type: 'image';
  source: IRMediaSource;
  detail?: 'auto' | 'low' | 'high';
  providerOptions?: ProviderOptions;
}

/** A document such as a PDF. */
export interface IRFilePart {
  type: 'file';
  source: IRMediaSource | { kind: 'file-id'; fileId: string };
  filename?: string;
  providerOptions?: ProviderOptions;
}

export interface IRToolCallPart {
  type: 'tool-call';
  id: string;
  name: string;
  /** JSON text of the arguments (may be invalid JSON when the model produced it). */
  arguments: string;
  providerOptions?: ProviderOptions;
}

export interface IRToolResultPart {
  type: 'tool-result';
  toolCallId: string;
  /** The called tool's name when known (Gemini matches results by name). */
  toolName?: string;
  content: Array<IRTextPart | IRImagePart | IRFilePart>;
  isError?: boolean;
  providerOptions?: ProviderOptions;
}

export interface IRReasoningPart {
  type: 'reasoning';
  text: string;
  /** Anthropic thinking signature / Gemini thoughtSignature. */
  signature?: string;
  /** Anthropic redacted_thinking data. */
  redactedData?: string;
  providerOptions?: ProviderOptions;
}

export type IRContentPart = IRTextPart | IRImagePart | IRFilePart | IRToolCallPart | IRToolResultPart | IRReasoningPart | IRWebSearchPart;

export interface IRMessage {
  role: 'user' | 'assistant' | 'tool';
  content: IRContentPart[];
  name?: string;
}

export interface IRFunctionTool {
  type: 'function';
  name: string;
  description?: string;
  /** JSON Schema of the arguments. */
  parameters?: Record<string, unknown>;
  strict?: boolean;
  providerOptions?: ProviderOptions;
}

/** A tool only one vendor understands (web search, code execution, ...). */
export interface IRProviderTool {
  type: 'provider';
  protocol: ProtocolName;
  /** The vendor's own tool name/type, used in "cannot translate" errors. */
  name: string;
  raw: Record<string, unknown>;
}

/**
 * A web search the vendor runs itself: OpenAI's `web_search`, Anthropic's web search server tool,
 * Gemini's `googleSearch`. Its calls and sources come back as `web-search` parts, its citations on
 * text parts.
 */
export interface IRWebSearchTool {
  type: 'web-search';
  /** Search only these domains (OpenAI `filters.allowed_domains`, Anthropic `allowed_domains`). */
  allowedDomains?: string[];
  /** Where the user is, to localize results. */
  userLocation?: { city?: string; region?: string; country?: string; timezone?: string };
  /** The client's declaration as sent (an OpenAI upstream gets it unchanged). */
  raw?: Record<string, unknown>;
}

export type IRTool = IRFunctionTool | IRProviderTool | IRWebSearchTool;

/** `web-search`: the answer must search the web (OpenAI's `tool_choice: {type: "web_search"}`). */
export type IRToolChoice = { type: 'auto' } | { type: 'none' } | { type: 'required' } | { type: 'tool'; name: string } | { type: 'web-search' };

export type IRResponseFormat =
  | { type: 'text' }
  | { type: 'json' }
  | { type: 'json_schema'; name?: string; description?: string; schema: Record<string, unknown>; strict?: boolean };

export interface IRChatRequest {
  /** The model id the caller asked for (public id). */
  model: string;
  system?: IRTextPart[];
  messages: IRMessage[];
  tools?: IRTool[];
  toolChoice?: IRToolChoice;
  parallelToolCalls?: boolean;
  maxTokens?: number;
  temperature?: number;
  topP?: number;
  topK?: number;
  stop?: string[];
  presencePenalty?: number;
  frequencyPenalty?: number;
  seed?: number;
  n?: number;
  responseFormat?: IRResponseFormat;
  reasoning?: { effort?: 'none' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh' | 'max'; budgetTokens?: number; includeThoughts?: boolean };
  user?: string;
  stream: boolean;
  /** Whether the client asked for usage in the stream (OpenAI include_usage). */
  streamUsage?: boolean;
  /** Fields of the inbound protocol the IR does not model, keyed by protocol. */
  providerOptions?: ProviderOptions;
}

export type IRFinishReasonUnified = 'stop' | 'length' | 'tool-calls' | 'content-filter' | 'error' | 'other';

export interface IRFinishReason {
  unified: IRFinishReasonUnified;
  /** The vendor's own value, e.g. `end_turn`, `STOP`, `stop_sequence`. */
  raw?: string;
  /** The stop sequence that matched, when known. */
  stopSequence?: string;
}

/** Token usage; a field is undefined when unknown, never a made-up 0. */
export interface IRUsage {
  inputTokens?: number;
  outputTokens?: number;
  /** Part of inputTokens read from cache. */
  cachedInputTokens?: number;
  /** Part of inputTokens written to cache (Anthropic cache_creation). */
  cacheWriteTokens?: number;
  /** Part of outputTokens spent on reasoning. */
  reasoningTokens?: number;
  totalTokens?: number;
}

export interface IRChatResponse {
  id: string;
  /** The concrete model the upstream reports. */
  model: string;
  content: IRContentPart[];
  finishReason: IRFinishReason;
  usage: IRUsage;
  created?: number;
  providerMetadata?: ProviderOptions;
}

export type IRStreamEvent =
  | { type: 'message-start'; id: string; model: string; usage?: IRUsage }
  /** `refusal`: the block is the model declining to answer (see IRTextPart). */
  | { type: 'text-start'; id: string; refusal?: true }
  | { type: 'text-delta'; id: string; delta: string }
  | { type: 'text-end'; id: string }
  | { type: 'reasoning-start'; id: string }
  | { type: 'reasoning-delta'; id: string; delta: string }
  | { type: 'reasoning-signature'; id: string; signature: string }
  | { type: 'reasoning-end'; id: string }
  /** `index` is the tool call's position among this message's tool calls (0, 1, ...). */
  | { type: 'tool-call-start'; id: string; index: number; name: string }
  | { type: 'tool-call-delta'; id: string; index: number; delta: string }
  | { type: 'tool-call-end'; id: string; index: number }
  /** A web search the vendor ran (announced when it starts; `web-search-end` carries the query and sources). */
  | { type: 'web-search-start'; id: string }
  | { type: 'web-search-end'; part: IRWebSearchPart }
  /** A citation of the text block `id` (text-start/-delta/-end), arriving after the text it cites. */
  | { type: 'text-citation'; id: string; citation: IRCitation }
  | { type: 'usage'; usage: IRUsage }
  | { type: 'finish'; finishReason: IRFinishReason; usage: IRUsage }
  | { type: 'error'; error: GatewayError };

/**
 * A setting the upstream could not take as sent: dropped or adjusted. The caller hears of it
 * (x-modelgate-warnings header, hook events), so nothing is dropped silently.
 */
export interface IRWarning {
  /**
   * The setting as the IR names it (`topK`, `maxTokens`, `reasoning`, `messages`; the client codec
   * turns it into the client's own field name), or for a field the IR does not model, its path in
   * the client's body (`safetySettings`, `generationConfig.responseLogprobs`, `cache_control`).
   */
  setting: string;
  /** What happened, short and ASCII: `dropped (not supported by openai)`, `clamped to 24576`. */
  action: string;
  /** One sentence for people. */
  message: string;
}

/** Merges usage reports; later defined values win. */
export function mergeUsage(a: IRUsage, b: IRUsage | undefined): IRUsage {
  if (!b) return a;
  const out: IRUsage = { ...a };
  for (const [k, v] of Object.entries(b) as Array<[keyof IRUsage, number | undefined]>) {
    if (v !== undefined) out[k] = v;
  }
  return out;
}

export function totalOf(u: IRUsage): number | undefined {
  if (u.totalTokens !== undefined) return u.totalTokens;
  if (u.inputTokens === undefined && u.outputTokens === undefined) return undefined;
  return (u.inputTokens ?? 0) + (u.outputTokens ?? 0);
}
