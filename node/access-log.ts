/**
 * The standalone server's access log: one line per request, from the onResponse hook, handed to a
 * writer (access-log-writer.ts: stdout or a file, buffered). JSON (default) or text. It holds ids,
 * route, status, latency, tokens and cost, never a key, a prompt or an answer: the hook event
 * carries none, and the line is built field by field.
 */
import type { ResponseEvent } from '../src/observability/hooks.js';

export type LogFormat = 'json' | 'text';

export interface AccessLogLine {
  time: string;
  traceId: string;
  requestId?: string;
  method: string;
  path: string;
  route?: string;
  status: number;
  latencyMs: number;
  keyId?: string;
  model?: string;
  provider?: string;
  upstreamModel?: string;
  stream?: boolean;
  streamCompleted?: boolean;
  inputTokens?: number;
  outputTokens?: number;
  costUsd?: number;
  error?: string;
}

export function accessLogLine(e: ResponseEvent, time: string): AccessLogLine {
  // Assigned field by field in a fixed order (the line's key order): no intermediate objects per field.
  const l: AccessLogLine = { time, traceId: e.traceId } as AccessLogLine;
  if (e.requestId) l.requestId = e.requestId;
  l.method = e.method;
  l.path = e.path;
  if (e.route) l.route = e.route;
  l.status = e.status;
  l.latencyMs = e.latencyMs;
  if (e.keyId) l.keyId = e.keyId;
  if (e.model) l.model = e.model;
  if (e.provider) l.provider = e.provider;
  if (e.upstreamModel) l.upstreamModel = e.upstreamModel;
  if (e.stream !== undefined) l.stream = e.stream;
  if (e.streamCompleted !== undefined) l.streamCompleted = e.streamCompleted;
  const u = e.usage;
  if (u?.inputTokens !== undefined) l.inputTokens = u.inputTokens;
  if (u?.outputTokens !== undefined) l.outputTokens = u.outputTokens;
  if (e.costUsd !== undefined) l.costUsd = e.costUsd;
  if (e.error) l.error = e.error.code;
  return l;
}

/** `2026-01-01T00:00:00.000Z POST /v1/chat/completions 200 12ms key=team model=gpt-4o provider=openai tokens=10/5 cost=0.0001 trace=…` */
export function formatText(l: AccessLogLine): string {
  const parts = [l.time, l.method, l.path, String(l.status), `${l.latencyMs}ms`];
  if (l.keyId) parts.push(`key=${l.keyId}`);
  if (l.model) parts.push(`model=${l.model}`);
  if (l.provider) parts.push(`provider=${l.provider}`);
  if (l.inputTokens !== undefined || l.outputTokens !== undefined) parts.push(`tokens=${l.inputTokens ?? '-'}/${l.outputTokens ?? '-'}`);
  if (l.costUsd !== undefined) parts.push(`cost=${l.costUsd}`);
  if (l.stream) parts.push(l.streamCompleted === false ? 'stream=incomplete' : 'stream');
  if (l.error) parts.push(`error=${l.error}`);
  parts.push(`trace=${l.traceId}`);
  return parts.join(' ');
}

/** An onResponse hook writing one access-log line per request. */
export function accessLogger(format: LogFormat, write: (line: string) => void, now: () => number = Date.now): (e: ResponseEvent) => void {
  // Requests finishing within the same millisecond share one time string (toISOString was a
  // tenth of the hook's cost).
  let lastMs = Number.NaN;
  let lastTime = '';
  return (e) => {
    const ms = now();
    if (ms !== lastMs) {
      lastMs = ms;
      lastTime = new Date(ms).toISOString();
    }
    const line = accessLogLine(e, lastTime);
    write(format === 'json' ? JSON.stringify(line) : formatText(line));
  };
}
