/**
 * The standalone server's access log: one line per request on stdout, from the onResponse hook.
 * JSON (default) or text. It holds ids, route, status, latency, tokens and cost, never a key, a
 * prompt or an answer: the hook event carries none, and the line is built field by field.
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

export function accessLogLine(e: ResponseEvent, now: Date): AccessLogLine {
  const u = e.usage;
  return {
    time: now.toISOString(),
    traceId: e.traceId,
    ...(e.requestId ? { requestId: e.requestId } : {}),
    method: e.method,
    path: e.path,
    ...(e.route ? { route: e.route } : {}),
    status: e.status,
    latencyMs: e.latencyMs,
    ...(e.keyId ? { keyId: e.keyId } : {}),
    ...(e.model ? { model: e.model } : {}),
    ...(e.provider ? { provider: e.provider } : {}),
    ...(e.upstreamModel ? { upstreamModel: e.upstreamModel } : {}),
    ...(e.stream !== undefined ? { stream: e.stream } : {}),
    ...(e.streamCompleted !== undefined ? { streamCompleted: e.streamCompleted } : {}),
    ...(u?.inputTokens !== undefined ? { inputTokens: u.inputTokens } : {}),
    ...(u?.outputTokens !== undefined ? { outputTokens: u.outputTokens } : {}),
    ...(e.costUsd !== undefined ? { costUsd: e.costUsd } : {}),
    ...(e.error ? { error: e.error.code } : {}),
  };
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
export function accessLogger(format: LogFormat, write: (line: string) => void): (e: ResponseEvent) => void {
  return (e) => {
    const line = accessLogLine(e, new Date());
    write(format === 'json' ? JSON.stringify(line) : formatText(line));
  };
}
