/**
 * Prometheus scrape endpoint of the standalone server: an in-process OpenTelemetry MetricReader
 * (cumulative) read on each scrape and written in the text exposition format (0.0.4). Names follow
 * the OpenTelemetry-to-Prometheus rules: dots become underscores, the unit `s` adds `_seconds`,
 * curly-brace units add nothing, monotonic sums end in `_total`, up-down sums are gauges.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Attributes } from '@opentelemetry/api';
import { AggregationTemporality, DataPointType, MeterProvider, MetricReader, type MetricData, type ResourceMetrics } from '@opentelemetry/sdk-metrics';

/** A reader that exports nothing by itself: it is read on every scrape. */
export class ScrapeReader extends MetricReader {
  constructor() {
    super({ aggregationTemporalitySelector: () => AggregationTemporality.CUMULATIVE });
  }
  protected async onShutdown(): Promise<void> {}
  protected async onForceFlush(): Promise<void> {}
}

function metricName(name: string): string {
  const n = name.replace(/[^a-zA-Z0-9_:]/g, '_');
  return /^[0-9]/.test(n) ? `_${n}` : n;
}

function unitSuffix(unit: string): string {
  if (!unit || unit.startsWith('{')) return '';
  if (unit === 's') return '_seconds';
  if (unit === 'ms') return '_milliseconds';
  if (unit === 'By') return '_bytes';
  if (unit === '1') return '_ratio';
  return `_${unit.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

function labelName(key: string): string {
  const n = key.replace(/[^a-zA-Z0-9_]/g, '_');
  return /^[0-9]/.test(n) ? `_${n}` : n;
}

function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelValue(v: unknown): string {
  if (Array.isArray(v)) return JSON.stringify(v);
  return String(v);
}

function labels(attrs: Attributes, extra: Array<[string, string]> = []): string {
  const pairs = [...Object.entries(attrs).filter(([, v]) => v !== undefined).map(([k, v]) => [labelName(k), labelValue(v)] as [string, string]), ...extra];
  if (!pairs.length) return '';
  return `{${pairs.map(([k, v]) => `${k}="${escapeLabel(v)}"`).join(',')}}`;
}

function num(v: number): string {
  if (v === Infinity) return '+Inf';
  if (v === -Infinity) return '-Inf';
  if (Number.isNaN(v)) return 'NaN';
  return String(v);
}

function helpText(s: string): string {
  return s.replace(/\\/g, '\\\\').replace(/\n/g, '\\n');
}

function writeMetric(m: MetricData, out: string[]): void {
  const base = metricName(m.descriptor.name) + unitSuffix(m.descriptor.unit);
  if (m.dataPointType === DataPointType.SUM) {
    const name = m.isMonotonic ? (base.endsWith('_total') ? base : `${base}_total`) : base;
    out.push(`# HELP ${name} ${helpText(m.descriptor.description)}`, `# TYPE ${name} ${m.isMonotonic ? 'counter' : 'gauge'}`);
    for (const p of m.dataPoints) out.push(`${name}${labels(p.attributes)} ${num(p.value)}`);
  } else if (m.dataPointType === DataPointType.GAUGE) {
    out.push(`# HELP ${base} ${helpText(m.descriptor.description)}`, `# TYPE ${base} gauge`);
    for (const p of m.dataPoints) out.push(`${base}${labels(p.attributes)} ${num(p.value)}`);
  } else if (m.dataPointType === DataPointType.HISTOGRAM) {
    out.push(`# HELP ${base} ${helpText(m.descriptor.description)}`, `# TYPE ${base} histogram`);
    for (const p of m.dataPoints) {
      const { boundaries, counts } = p.value.buckets;
      let cumulative = 0;
      boundaries.forEach((le, i) => {
        cumulative += counts[i] ?? 0;
        out.push(`${base}_bucket${labels(p.attributes, [['le', num(le)]])} ${cumulative}`);
      });
      out.push(`${base}_bucket${labels(p.attributes, [['le', '+Inf']])} ${p.value.count}`);
      out.push(`${base}_sum${labels(p.attributes)} ${num(p.value.sum ?? 0)}`);
      out.push(`${base}_count${labels(p.attributes)} ${p.value.count}`);
    }
  }
  // Exponential histograms are not configured by the gateway; they are left out.
}

/** The text exposition format of everything the reader collected. */
export function toPrometheusText(rm: ResourceMetrics): string {
  const out: string[] = [];
  for (const scope of rm.scopeMetrics) for (const m of scope.metrics) writeMetric(m, out);
  return out.length ? `${out.join('\n')}\n` : '';
}

export interface MetricsEndpoint {
  meterProvider: MeterProvider;
  url: string;
  close(): Promise<void>;
}

/** A MeterProvider for the gateway and `GET /metrics` on its own port. */
export async function serveMetrics(port: number, host: string): Promise<MetricsEndpoint> {
  const reader = new ScrapeReader();
  const meterProvider = new MeterProvider({ readers: [reader] });
  const server: Server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('Not found; metrics are at /metrics\n');
      return;
    }
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('Method not allowed\n');
      return;
    }
    reader
      .collect()
      .then(({ resourceMetrics }) => {
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : toPrometheusText(resourceMetrics));
      })
      .catch(() => {
        res.writeHead(500, { 'content-type': 'text/plain' }).end('Metrics could not be collected\n');
      });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const addr = server.address() as AddressInfo;
  const h = addr.family === 'IPv6' ? `[${addr.address}]` : addr.address;
  return {
    meterProvider,
    url: `http://${h}:${addr.port}/metrics`,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
      await meterProvider.shutdown().catch(() => undefined);
    },
  };
}
