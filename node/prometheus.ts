/**
 * Prometheus scrape endpoint of the standalone server. `@opentelemetry/exporter-prometheus` is the
 * MetricReader (cumulative, read on each scrape) and writes the text exposition format; this file
 * only serves it on `GET /metrics` of its own port. Names follow the OpenTelemetry-to-Prometheus
 * rules: dots become underscores, monotonic sums end in `_total`, up-down sums are gauges.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider, type ViewOptions } from '@opentelemetry/sdk-metrics';
import { SECONDS_INSTRUMENTS } from '../src/observability/telemetry.js';

/**
 * The exporter's serializer does not add the unit to a name, so each instrument measured in
 * seconds is renamed with `_seconds` (`gen_ai_client_operation_duration_seconds`): the names
 * operators scrape. A view renames one instrument; the list comes from where they are made.
 */
export const PROMETHEUS_VIEWS: ViewOptions[] = SECONDS_INSTRUMENTS.map((name) => ({ instrumentName: name, name: `${name}_seconds` }));

export interface MetricsEndpoint {
  meterProvider: MeterProvider;
  url: string;
  close(): Promise<void>;
}

/** A MeterProvider for the gateway and `GET /metrics` on its own port. */
export async function serveMetrics(port: number, host: string): Promise<MetricsEndpoint> {
  // The exporter's own server cannot listen on port 0 (it reads 0 as "use 9464") nor name the
  // text format version in its content type, so it is the reader only and the server is ours.
  const exporter = new PrometheusExporter({ preventServerStart: true });
  // No target_info series and no otel_scope_* labels: the series keep the labels the gateway gives.
  const serializer = new PrometheusSerializer('', false, undefined, true, true);
  const meterProvider = new MeterProvider({ readers: [exporter], views: PROMETHEUS_VIEWS });
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
    exporter
      .collect()
      .then(({ resourceMetrics }) => {
        const text = serializer.serialize(resourceMetrics);
        res.writeHead(200, { 'content-type': 'text/plain; version=0.0.4; charset=utf-8' }).end(req.method === 'HEAD' ? undefined : text.endsWith('\n') ? text : `${text}\n`);
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
