/** What the benchmark sends: one request shape per scenario, for the floor and for modelgate. */
import { MODEL_VIA_ANTHROPIC, MODEL_VIA_OPENAI, PLATFORM_KEY } from './settings.js';

export interface RequestSpec {
  path: string;
  headers: Record<string, string>;
  body: string;
}

export interface Scenario {
  id: string;
  title: string;
  kind: 'passthrough' | 'translated';
  /** Minimum gateway/floor throughput ratio the issue asks for. */
  targetRatio: number;
  /** Upper bound for the added p50 latency at one connection, in ms (pass-through only). */
  targetAddedP50Ms?: number;
  gateway: RequestSpec;
  /** The same client request through the bare proxy, to the mock endpoint of the client's protocol. */
  floor: RequestSpec;
  /** Whether a 200 body is the complete answer (guards against measuring fast failures). */
  complete(text: string): boolean;
}

const SYSTEM = 'You are a concise assistant for an engineering team. Answer in one short paragraph and never invent facts.';
const TURNS = [
  { role: 'user', content: 'We run a gateway in front of several model vendors. What should we measure first?' },
  { role: 'assistant', content: 'Measure added latency and throughput against a bare proxy on the same machine, streamed and not.' },
  { role: 'user', content: 'Give me one sentence I can paste into the benchmark README.' },
];

function openAIBody(model: string, stream: boolean): string {
  return JSON.stringify({ model, messages: [{ role: 'system', content: SYSTEM }, ...TURNS], temperature: 0.7, max_tokens: 256, stream });
}

function anthropicBody(model: string, stream: boolean): string {
  return JSON.stringify({ model, max_tokens: 256, system: SYSTEM, messages: TURNS, temperature: 0.7, stream });
}

const OPENAI_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${PLATFORM_KEY}` };
const ANTHROPIC_HEADERS = { 'content-type': 'application/json', 'x-api-key': PLATFORM_KEY, 'anthropic-version': '2023-06-01' };

const openAISyncDone = (t: string) => t.includes('"finish_reason":"stop"') && t.includes('lazy dog.');
const openAIStreamDone = (t: string) => t.includes('"finish_reason":"stop"') && t.includes(' lazy') && t.endsWith('data: [DONE]\n\n');
const anthropicSyncDone = (t: string) => t.includes('"stop_reason":"end_turn"') && t.includes('lazy dog.');
const anthropicStreamDone = (t: string) => t.includes('"stop_reason":"end_turn"') && t.includes(' lazy') && t.includes('event: message_stop');

function openAIClient(model: string, stream: boolean): Pick<Scenario, 'gateway' | 'floor' | 'complete'> {
  const path = '/v1/chat/completions';
  return {
    gateway: { path, headers: OPENAI_HEADERS, body: openAIBody(model, stream) },
    floor: { path, headers: OPENAI_HEADERS, body: openAIBody('gpt-bench', stream) },
    complete: stream ? openAIStreamDone : openAISyncDone,
  };
}

function anthropicClient(model: string, stream: boolean): Pick<Scenario, 'gateway' | 'floor' | 'complete'> {
  const path = '/v1/messages';
  return {
    gateway: { path, headers: ANTHROPIC_HEADERS, body: anthropicBody(model, stream) },
    floor: { path, headers: ANTHROPIC_HEADERS, body: anthropicBody('claude-bench', stream) },
    complete: stream ? anthropicStreamDone : anthropicSyncDone,
  };
}

export const SCENARIOS: Scenario[] = [
  { id: 'openai-sync', title: 'OpenAI chat, pass-through, non-streamed', kind: 'passthrough', targetRatio: 0.7, targetAddedP50Ms: 1, ...openAIClient(MODEL_VIA_OPENAI, false) },
  { id: 'openai-stream', title: 'OpenAI chat, pass-through, streamed', kind: 'passthrough', targetRatio: 0.7, targetAddedP50Ms: 1, ...openAIClient(MODEL_VIA_OPENAI, true) },
  { id: 'openai-to-anthropic-sync', title: 'OpenAI client -> Anthropic upstream, non-streamed', kind: 'translated', targetRatio: 0.5, ...openAIClient(MODEL_VIA_ANTHROPIC, false) },
  { id: 'openai-to-anthropic-stream', title: 'OpenAI client -> Anthropic upstream, streamed', kind: 'translated', targetRatio: 0.5, ...openAIClient(MODEL_VIA_ANTHROPIC, true) },
  { id: 'anthropic-to-openai-sync', title: 'Anthropic client -> OpenAI upstream, non-streamed', kind: 'translated', targetRatio: 0.5, ...anthropicClient(MODEL_VIA_OPENAI, false) },
  { id: 'anthropic-to-openai-stream', title: 'Anthropic client -> OpenAI upstream, streamed', kind: 'translated', targetRatio: 0.5, ...anthropicClient(MODEL_VIA_OPENAI, true) },
];
