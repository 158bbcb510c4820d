/** What the benchmark sends: one request shape per scenario, for each target and for the mock itself. */
import {
  MODEL_CACHED,
  MODEL_CHUNKED,
  MODEL_VIA_ANTHROPIC,
  MODEL_VIA_OPENAI,
  PLATFORM_KEY,
  TARGETS,
  UPSTREAM_ANTHROPIC_MODEL,
  UPSTREAM_CHUNKED_MODEL,
  UPSTREAM_KEY,
  UPSTREAM_OPENAI_MODEL,
} from './settings.js';

export interface RequestSpec {
  path: string;
  headers: Record<string, string>;
  body: string;
}

/** The peer (Portkey) routes by headers: which provider it should call (on the mock, via custom host). */
export interface PeerRoute {
  provider: 'openai' | 'anthropic';
  spec: RequestSpec;
}

export type HostId = 'express' | 'koa' | 'bun';

export interface Scenario {
  id: string;
  title: string;
  /**
   * `host`: modelgate served by another host, compared with the node:http bridge on the same request.
   * `control`: modelgate with its control plane on (a SQLite store: the usage ledger written, the
   * platform key from the store), compared with the config-keys server on the same request.
   */
  kind: 'passthrough' | 'translated' | 'host' | 'control';
  stream: boolean;
  /** Minimum modelgate/floor throughput ratio the issue asks for. */
  targetRatio: number;
  /** modelgate's request (to the node bridge, or to the host of a host scenario). */
  gateway: RequestSpec;
  /** The same client request through the bare proxy, to the mock endpoint of the client's protocol. */
  floor: RequestSpec;
  /** The same call straight to the mock: the baseline of the "added latency" figures. */
  direct: RequestSpec;
  /** Portkey's form of the call; absent where the scenario is not the peer's (hosts). */
  peer?: PeerRoute;
  host?: HostId;
  /**
   * The server as shipped (`npm start`): the most CPU per request it may spend, as a multiple of the
   * floor's in the same repetition (issue 21). Absent: reported without a target; `false`: not run.
   */
  shippedCpuTarget?: number | false;
  /** Whether a 200 body is the complete answer (guards against measuring fast failures). */
  complete(text: string): boolean;
}

const SYSTEM = 'You are a concise assistant for an engineering team. Answer in one short paragraph and never invent facts.';
const TURNS = [
  { role: 'user', content: 'We run a gateway in front of several model vendors. What should we measure first?' },
  { role: 'assistant', content: 'Measure added latency and throughput against a bare proxy on the same machine, streamed and not.' },
  { role: 'user', content: 'Give me one sentence I can paste into the benchmark README.' },
];

export function openAIBody(model: string, stream: boolean): string {
  return JSON.stringify({ model, messages: [{ role: 'system', content: SYSTEM }, ...TURNS], temperature: 0.7, max_tokens: 256, stream });
}

export function anthropicBody(model: string, stream: boolean): string {
  return JSON.stringify({ model, max_tokens: 256, system: SYSTEM, messages: TURNS, temperature: 0.7, stream });
}

export const OPENAI_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${PLATFORM_KEY}` };
const ANTHROPIC_HEADERS = { 'content-type': 'application/json', 'x-api-key': PLATFORM_KEY, 'anthropic-version': '2023-06-01' };
/** What a caller of the vendor itself sends (the mock wants the upstream key). */
const OPENAI_DIRECT_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${UPSTREAM_KEY}` };
const ANTHROPIC_DIRECT_HEADERS = { 'content-type': 'application/json', 'x-api-key': UPSTREAM_KEY, 'anthropic-version': '2023-06-01' };
/** Portkey takes the provider key from the caller (it has no key store of its own in this mode). */
const PEER_HEADERS = { 'content-type': 'application/json', authorization: `Bearer ${UPSTREAM_KEY}` };

const openAISyncDone = (t: string) => t.includes('"finish_reason":"stop"') && t.includes('lazy dog.');
export const openAIStreamDone = (t: string) => t.includes('"finish_reason":"stop"') && t.includes(' lazy') && t.endsWith('data: [DONE]\n\n');
const anthropicSyncDone = (t: string) => t.includes('"stop_reason":"end_turn"') && t.includes('lazy dog.');
const anthropicStreamDone = (t: string) => t.includes('"stop_reason":"end_turn"') && t.includes(' lazy') && t.includes('event: message_stop');

type Requests = Pick<Scenario, 'gateway' | 'floor' | 'direct' | 'peer' | 'complete' | 'stream'>;

/** OpenAI chat client; `viaAnthropic`: the gateway's model lives on the Anthropic upstream. */
function openAIClient(viaAnthropic: boolean, stream: boolean): Requests {
  const path = '/v1/chat/completions';
  const upstreamModel = viaAnthropic ? UPSTREAM_ANTHROPIC_MODEL : UPSTREAM_OPENAI_MODEL;
  return {
    stream,
    gateway: { path, headers: OPENAI_HEADERS, body: openAIBody(viaAnthropic ? MODEL_VIA_ANTHROPIC : MODEL_VIA_OPENAI, stream) },
    floor: { path, headers: OPENAI_HEADERS, body: openAIBody(UPSTREAM_OPENAI_MODEL, stream) },
    direct: { path, headers: OPENAI_DIRECT_HEADERS, body: openAIBody(UPSTREAM_OPENAI_MODEL, stream) },
    peer: { provider: viaAnthropic ? 'anthropic' : 'openai', spec: { path, headers: PEER_HEADERS, body: openAIBody(upstreamModel, stream) } },
    complete: stream ? openAIStreamDone : openAISyncDone,
  };
}

/** Anthropic Messages client whose model lives on the OpenAI upstream. */
function anthropicClient(stream: boolean): Requests {
  const path = '/v1/messages';
  return {
    stream,
    gateway: { path, headers: ANTHROPIC_HEADERS, body: anthropicBody(MODEL_VIA_OPENAI, stream) },
    floor: { path, headers: ANTHROPIC_HEADERS, body: anthropicBody(UPSTREAM_ANTHROPIC_MODEL, stream) },
    direct: { path, headers: ANTHROPIC_DIRECT_HEADERS, body: anthropicBody(UPSTREAM_ANTHROPIC_MODEL, stream) },
    peer: { provider: 'openai', spec: { path, headers: { ...PEER_HEADERS, 'anthropic-version': '2023-06-01' }, body: anthropicBody(UPSTREAM_OPENAI_MODEL, stream) } },
    complete: stream ? anthropicStreamDone : anthropicSyncDone,
  };
}

/**
 * A response-cache hit: the same OpenAI request to a cached model, answered without an upstream call
 * (the probe's first call fills the cache). Compared with the floor relaying the call to the mock, a
 * hit should do better than 1.0; the ratio is reported like the others. Not the peer's (it has no cache here).
 */
function cacheHit(): Scenario {
  const { peer: _notCached, ...requests } = openAIClient(false, false);
  return { id: 'openai-cache-hit', title: 'OpenAI chat, response cache hit, JSON', kind: 'passthrough', targetRatio: 1, shippedCpuTarget: false, ...requests, gateway: { ...requests.gateway, body: openAIBody(MODEL_CACHED, false) } };
}

/** Pass-through JSON from an upstream that answers chunked (no Content-Length), as most vendors do. */
function chunkedSync(): Scenario {
  const requests = openAIClient(false, false);
  const upstream = (spec: RequestSpec): RequestSpec => ({ ...spec, body: openAIBody(UPSTREAM_CHUNKED_MODEL, false) });
  return {
    id: 'openai-sync-chunked',
    title: 'OpenAI chat, pass-through, JSON chunked by the upstream',
    kind: 'passthrough',
    targetRatio: TARGETS.passthroughRatio,
    shippedCpuTarget: SHIPPED_CPU.json,
    ...requests,
    gateway: { ...requests.gateway, body: openAIBody(MODEL_CHUNKED, false) },
    floor: upstream(requests.floor),
    direct: upstream(requests.direct),
    ...(requests.peer ? { peer: { ...requests.peer, spec: upstream(requests.peer.spec) } } : {}),
  };
}

/**
 * The control plane's cost (issue 23): the pass-through call through the server with its control
 * plane on (the child opens a SQLite store as the standalone server does, creates a key there and
 * answers with its secret; every request writes a ledger row) and through the config-keys server,
 * in the same repetitions. The gateway request's key is replaced by the store key's secret.
 */
function controlScenario(stream: boolean): Scenario {
  const { peer: _notCompared, ...requests } = openAIClient(false, stream);
  return {
    id: `control-openai-${stream ? 'stream' : 'sync'}`,
    title: `OpenAI chat, pass-through, ${stream ? 'SSE' : 'JSON'}: control plane on (SQLite ledger, store key) vs config keys`,
    kind: 'control',
    targetRatio: TARGETS.passthroughRatio,
    shippedCpuTarget: false,
    ...requests,
  };
}

function hostScenario(host: HostId, title: string): Scenario {
  const { peer: _notForHosts, ...requests } = openAIClient(false, false);
  return { id: `host-${host}`, title, kind: 'host', targetRatio: TARGETS.passthroughRatio, shippedCpuTarget: false, host, ...requests };
}

/** Issue 21's CPU-per-request targets for `npm start` against the floor: JSON, SSE pass-through, translated SSE. */
const SHIPPED_CPU = { json: 1.25, sse: 1.0, translatedSse: 1.1 } as const;

const PASS = TARGETS.passthroughRatio;
const TRANSLATED = TARGETS.translatedRatio;

export const SCENARIOS: Scenario[] = [
  { id: 'openai-sync', title: 'OpenAI chat, pass-through, JSON', kind: 'passthrough', targetRatio: PASS, shippedCpuTarget: SHIPPED_CPU.json, ...openAIClient(false, false) },
  chunkedSync(),
  { id: 'openai-stream', title: 'OpenAI chat, pass-through, SSE', kind: 'passthrough', targetRatio: PASS, shippedCpuTarget: SHIPPED_CPU.sse, ...openAIClient(false, true) },
  { id: 'openai-to-anthropic-sync', title: 'OpenAI client -> Anthropic upstream, JSON', kind: 'translated', targetRatio: TRANSLATED, ...openAIClient(true, false) },
  { id: 'openai-to-anthropic-stream', title: 'OpenAI client -> Anthropic upstream, SSE', kind: 'translated', targetRatio: TRANSLATED, shippedCpuTarget: SHIPPED_CPU.translatedSse, ...openAIClient(true, true) },
  { id: 'anthropic-to-openai-sync', title: 'Anthropic client -> OpenAI upstream, JSON', kind: 'translated', targetRatio: TRANSLATED, ...anthropicClient(false) },
  { id: 'anthropic-to-openai-stream', title: 'Anthropic client -> OpenAI upstream, SSE', kind: 'translated', targetRatio: TRANSLATED, shippedCpuTarget: SHIPPED_CPU.translatedSse, ...anthropicClient(true) },
  cacheHit(),
  controlScenario(false),
  controlScenario(true),
  hostScenario('express', 'Express 5 middleware (adapters/express.ts), pass-through JSON'),
  hostScenario('koa', 'Koa 3 middleware (adapters/koa.ts), pass-through JSON'),
  hostScenario('bun', 'Bun.serve + fetch adapter (adapters/fetch.ts), pass-through JSON'),
];
