/**
 * Closed-loop load from the parent: `connections` workers on one undici Pool, each sending the
 * next request as soon as the previous answer was read to the end. Bounded by time and count.
 */
import { Pool } from 'undici';
import type { RequestSpec } from './scenarios.js';
import { summarize, type LatencySummary } from './stats.js';

export interface LoadOptions {
  origin: string;
  spec: RequestSpec;
  connections: number;
  warmupMs: number;
  durationMs: number;
  maxRequests: number;
  complete: (text: string) => boolean;
  /** CPU meters (microseconds used so far) read at the start and end of the measured window. */
  cpuMeters?: Record<string, () => Promise<number>>;
}

export interface LoadResult {
  /** Completed requests per second inside the measured window. */
  rps: number;
  /** Requests completed inside the measured window. */
  count: number;
  /** Non-200 or incomplete answers over the whole phase (warmup included). */
  errors: number;
  firstError?: string;
  /** Full-answer latency (last byte read), ms. */
  latency: LatencySummary;
  /** Time to the first body byte (for SSE: the first event), ms. */
  ttfb: LatencySummary;
  /** Average body chunks per answer as read by the client (roughly: writes by the proxy). */
  chunksPerResponse: number;
  /** CPU microseconds per completed request in the measured window, per meter. */
  cpuPerRequestUs: Record<string, number>;
}

async function readMeters(meters: Record<string, () => Promise<number>>): Promise<Record<string, number>> {
  const entries = await Promise.all(Object.entries(meters).map(async ([k, read]) => [k, await read()] as const));
  return Object.fromEntries(entries);
}

export async function runLoad(o: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(o.origin, { connections: o.connections, pipelining: 1, keepAliveTimeout: 30_000 });
  const start = performance.now();
  const measureFrom = start + o.warmupMs;
  const measureTo = measureFrom + o.durationMs;
  const latencies: number[] = [];
  const ttfbs: number[] = [];
  let started = 0;
  /** Completed inside the window but started during the warmup: throughput only. */
  let straddling = 0;
  /** Body chunks the client read, summed over measured requests (how many pieces the proxy wrote). */
  let chunkCounts = 0;
  let chunkSamples = 0;
  let errors = 0;
  let firstError: string | undefined;

  const meters = o.cpuMeters ?? {};
  let cpuStart: Promise<Record<string, number>> | undefined;
  let cpuEnd: Promise<Record<string, number>> | undefined;
  const startTimer = setTimeout(() => {
    cpuStart = readMeters(meters);
  }, o.warmupMs);
  const endTimer = setTimeout(() => {
    cpuEnd = readMeters(meters);
  }, o.warmupMs + o.durationMs);

  const worker = async (): Promise<void> => {
    while (started < o.maxRequests && performance.now() < measureTo) {
      started++;
      const t0 = performance.now();
      let ok = false;
      let detail = '';
      let tFirstByte = t0;
      try {
        const res = await pool.request({ path: o.spec.path, method: 'POST', headers: o.spec.headers, body: o.spec.body });
        tFirstByte = performance.now();
        // Collected as bytes and decoded once: the load generator shares its core with the mock.
        const chunks: Buffer[] = [];
        for await (const chunk of res.body as AsyncIterable<Buffer>) {
          if (chunks.length === 0) tFirstByte = performance.now();
          chunks.push(chunk);
        }
        const pieces = chunks.length;
        const text = (pieces === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)).toString('utf8');
        if (t0 >= measureFrom) {
          chunkCounts += pieces;
          chunkSamples++;
        }
        ok = res.statusCode === 200 && o.complete(text);
        if (!ok) detail = `HTTP ${res.statusCode}: ${text.slice(0, 300)}`;
      } catch (err) {
        detail = (err as Error).message;
      }
      const t1 = performance.now();
      if (!ok) {
        errors++;
        firstError ??= detail;
        continue;
      }
      if (t0 >= measureFrom && t1 <= measureTo) {
        latencies.push(t1 - t0);
        ttfbs.push(tFirstByte - t0);
      } else if (t1 > measureFrom && t1 <= measureTo) straddling++;
    }
  };
  await Promise.all(Array.from({ length: o.connections }, worker));
  clearTimeout(startTimer);
  clearTimeout(endTimer);
  await pool.close();
  const cpuFrom = await cpuStart;
  const cpuTo = await (cpuEnd ?? readMeters(meters));
  const count = latencies.length + straddling;
  const windowMs = Math.min(measureTo, performance.now()) - measureFrom;
  const cpuPerRequestUs: Record<string, number> = {};
  if (cpuFrom && count > 0) for (const k of Object.keys(meters)) cpuPerRequestUs[k] = ((cpuTo[k] ?? 0) - (cpuFrom[k] ?? 0)) / count;
  return {
    cpuPerRequestUs,
    chunksPerResponse: chunkSamples ? chunkCounts / chunkSamples : 0,
    rps: windowMs > 0 ? (count * 1000) / windowMs : 0,
    count,
    errors,
    ...(firstError !== undefined ? { firstError } : {}),
    latency: summarize(latencies),
    ttfb: summarize(ttfbs),
  };
}

/** One request, to tell whether a scenario works on this build (e.g. a codec not written yet). */
export async function probe(origin: string, spec: RequestSpec, complete: (text: string) => boolean): Promise<{ ok: boolean; detail: string }> {
  const pool = new Pool(origin, { connections: 1 });
  try {
    const res = await pool.request({ path: spec.path, method: 'POST', headers: spec.headers, body: spec.body });
    const text = await res.body.text();
    if (res.statusCode === 200 && complete(text)) return { ok: true, detail: '' };
    return { ok: false, detail: `HTTP ${res.statusCode}: ${text.slice(0, 400)}` };
  } catch (err) {
    return { ok: false, detail: (err as Error).message };
  } finally {
    await pool.close();
  }
}
