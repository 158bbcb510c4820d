/**
 * Shared vocabulary of the conformance matrix: what every client driver returns (a normalized view
 * of one answer, whatever the client protocol), the scenario inputs all drivers send, and the
 * stream traces the drivers record while the official SDK consumes a stream.
 */

export type ClientName = 'openai' | 'anthropic' | 'gemini';
export type UpstreamName = 'openai' | 'anthropic' | 'gemini';
export type Mode = 'sync' | 'stream';
export type ScenarioName = 'plain-text' | 'system-multi-turn' | 'parallel-tools' | 'image-input' | 'pdf-input' | 'stop-and-max-tokens' | 'usage';

export const SCENARIOS: ScenarioName[] = ['plain-text', 'system-multi-turn', 'parallel-tools', 'image-input', 'pdf-input', 'stop-and-max-tokens', 'usage'];

/**
 * Finish reasons as the client protocol can say them: OpenAI stop/length/tool_calls; Anthropic
 * end_turn/max_tokens/tool_use/stop_sequence; Gemini STOP/MAX_TOKENS (no tool-call reason).
 */
export type NormalizedFinish = 'stop' | 'length' | 'tool_calls' | 'stop_sequence' | 'other';

interface NormalizedToolCall {
  /** The call id the client saw (Gemini calls may have none). */
  id?: string;
  /** Position among the message's tool calls (OpenAI `index`, order elsewhere). */
  index: number;
  name: string;
  args: Record<string, unknown>;
}

/** What an SDK stream looked like on the way, beyond the assembled answer. */
export type StreamTrace =
  | {
      client: 'openai';
      /** Chunks with a non-empty content delta. */
      contentDeltas: number;
      /** The first fragment of each tool call, in arrival order. */
      toolCallStarts: Array<{ index: number; id: string | undefined; name: string | undefined }>;
      /** Later fragments that repeated id/name/type (the wire format sends them only once). */
      toolCallRepeats: number;
      /** Per tool call index: how many argument fragments arrived. */
      argumentFragments: Record<number, number>;
      /** Chunks carrying a finish_reason. */
      finishChunks: number;
      /** Chunks carrying usage, with the length of their `choices` array. */
      usageChunks: Array<{ choices: number }>;
      /** Distinct chunk ids (all chunks of one completion share one). */
      ids: number;
    }
  | {
      client: 'anthropic';
      /** Event types in order (ping excluded). */
      events: string[];
      /** content_block_start: index and block type, in order. */
      blockStarts: Array<{ index: number; type: string }>;
      /** content_block_stop indexes, in order. */
      blockStops: number[];
      textDeltas: number;
      jsonDeltas: number;
      /** Usage of message_start and of message_delta as sent. */
      startUsage: Record<string, unknown>;
      deltaUsage: Record<string, unknown>;
    }
  | {
      client: 'gemini';
      chunks: number;
      /** Chunks with a non-empty text part. */
      textChunks: number;
      /** Each chunk's functionCall parts (whole calls, never split). */
      functionCallChunks: Array<Array<{ name: string | undefined; args: Record<string, unknown> | undefined }>>;
      /** Chunks that carry a finishReason. */
      finishChunks: number;
      /** Distinct responseIds. */
      responseIds: number;
    };

export interface TurnResult {
  text: string;
  toolCalls: NormalizedToolCall[];
  finishReason: NormalizedFinish;
  /** The client protocol's own value (e.g. `end_turn`, `STOP`). */
  rawFinish: string | null;
  /** Anthropic's stop_sequence (null elsewhere). */
  stopSequence: string | null;
  usage: { input: number; output: number; total?: number } | undefined;
  /** The model the answer names (the upstream's concrete model) and the answer's id. */
  model: string | undefined;
  id: string | undefined;
  trace?: StreamTrace;
}

export interface ScenarioRun {
  model: string;
  mode: Mode;
}

/** One driver per client protocol; every scenario returns one result per request turn. */
export type Driver = Record<ScenarioName, (run: ScenarioRun) => Promise<TurnResult[]>>;

// ---- scenario inputs (the same conversation in every protocol) ----

export { PDF, PNG } from '../helpers/samples.js';

export const INPUT = {
  plain: 'hello world',
  system: 'be brief',
  history: [
    { role: 'user', text: 'first question' },
    { role: 'assistant', text: 'first answer' },
    { role: 'user', text: 'second question' },
  ] as const,
  toolPrompt: 'weather and time in Paris?',
  toolResults: ['r1', 'r2'] as const,
  imagePrompt: 'describe this',
  /** A second image, by URL (vendors fetch it; the mocks only count it). */
  imageUrl: 'https://example.com/cat.jpg',
  pdfPrompt: 'summarize',
  stopPrompt: 'one two three',
  /** Leading space: the cut text then ends without whitespace in every vendor's stream split. */
  stopSequence: ' two',
  maxTokens: 3,
  usageHistory: [
    { role: 'user', text: 'u1' },
    { role: 'assistant', text: 'a1' },
    { role: 'user', text: 'u2' },
    { role: 'assistant', text: 'a2' },
    { role: 'user', text: 'count my tokens please' },
  ] as const,
};

/** Two function tools as JSON Schema; the mocks answer {city:"Paris"} and {utc:true, offset:1}. */
export const TOOLS = [
  { name: 'get_weather', description: 'Current weather for a city', parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] } },
  { name: 'get_time', description: 'Local time', parameters: { type: 'object', properties: { utc: { type: 'boolean' }, offset: { type: 'integer' } } } },
] as const;

export function mutableSchema(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
}
