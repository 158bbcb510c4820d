/** Overview: requests, errors, tokens and spend over 24 h / 7 d / 30 d, the top models and keys, the instances' health. */
import { useMemo, useState } from 'preact/hooks';
import { api, type ListPage } from '../api';
import { TimeChart, type ChartSeries } from '../ui/chart';
import { Badge, SelectField, Status, KeyLabel } from '../ui/controls';
import { fmtInt, fmtTime, fmtUsd } from '../ui/format';
import { useLoad } from '../ui/hooks';
import type { PageProps, Series, TopEntry } from './types';

interface Instance {
  id: string;
  name: string;
  startedAt: string;
  lastSeenAt: string;
  health: 'healthy' | 'degraded' | 'stale';
  reason: string;
  stats: { ledger: { queued: number; written: number; dropped: number } };
}

function TopTable(props: { title: string; by: 'model' | 'key'; window: string }) {
  const top = useLoad(() => api<{ data: TopEntry[] }>('/overview/top', { query: { by: props.by, window: props.window, limit: 10 } }), [props.by, props.window]);
  return (
    <section class="card">
      <h2>{props.title}</h2>
      <Status loading={top.loading && !top.data} error={top.error} empty={top.data?.data.length === 0} emptyText="No requests in this window." />
      {top.data && top.data.data.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label={`${props.title} table`}><table>
          <thead>
            <tr>
              <th scope="col">{props.by === 'model' ? 'Model' : 'Key'}</th>
              <th scope="col" class="num">Requests</th>
              <th scope="col" class="num">Errors</th>
              <th scope="col" class="num">Spend</th>
            </tr>
          </thead>
          <tbody>
            {top.data.data.map((t) => (
              <tr key={t.id}>
                <td>{props.by === 'key' ? <KeyLabel id={t.id} name={t.name} /> : t.id || '(none)'}</td>
                <td class="num">{fmtInt(t.requests)}</td>
                <td class="num">{fmtInt(t.errors)}</td>
                <td class="num">{fmtUsd(t.costUsd)}</td>
              </tr>
            ))}
          </tbody>
        </table></div>
      )}
    </section>
  );
}

export function OverviewPage(_props: PageProps) {
  const [window, setWindow] = useState('24h');
  const series = useLoad(() => api<Series>('/overview/series', { query: { window } }), [window]);
  const instances = useLoad(() => api<ListPage<Instance>>('/instances', { query: { limit: 20 } }), []);
  const charts = useMemo(() => {
    const pts = series.data?.points ?? [];
    const times = pts.map((p) => Date.parse(p.time));
    const traffic: ChartSeries[] = [
      { label: 'Requests', values: pts.map((p) => p.requests), color: '#1f4e8c' },
      { label: 'Errors', values: pts.map((p) => p.errors), color: '#b3261e' },
    ];
    const tokens: ChartSeries[] = [
      { label: 'Input tokens', values: pts.map((p) => p.inputTokens), color: '#0b6e4f' },
      { label: 'Output tokens', values: pts.map((p) => p.outputTokens), color: '#7a4d00' },
    ];
    const spend: ChartSeries[] = [{ label: 'Spend (USD)', values: pts.map((p) => p.costUsd), color: '#5b2a86', format: (v) => fmtUsd(v) }];
    const totals = pts.reduce((a, p) => ({ requests: a.requests + p.requests, errors: a.errors + p.errors, tokens: a.tokens + p.inputTokens + p.outputTokens, cost: a.cost + p.costUsd }), { requests: 0, errors: 0, tokens: 0, cost: 0 });
    return { times, traffic, tokens, spend, totals };
  }, [series.data]);
  return (
    <>
      <div class="filters">
        <SelectField label="Window" value={window} onChange={setWindow} options={[['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days']]} />
      </div>
      <Status loading={series.loading && !series.data} error={series.error} />
      {series.data && (
        <>
          <dl class="totals">
            <div><dt>Requests</dt><dd>{fmtInt(charts.totals.requests)}</dd></div>
            <div><dt>Errors</dt><dd>{fmtInt(charts.totals.errors)}</dd></div>
            <div><dt>Tokens</dt><dd>{fmtInt(charts.totals.tokens)}</dd></div>
            <div><dt>Spend</dt><dd>{fmtUsd(charts.totals.cost)}</dd></div>
          </dl>
          <div class="grid">
            <TimeChart title={`Requests and errors per ${series.data.step}`} times={charts.times} series={charts.traffic} />
            <TimeChart title={`Tokens per ${series.data.step}`} times={charts.times} series={charts.tokens} />
            <TimeChart title={`Spend per ${series.data.step}`} times={charts.times} series={charts.spend} />
          </div>
        </>
      )}
      <div class="grid">
        <TopTable title="Top models" by="model" window={window} />
        <TopTable title="Top keys" by="key" window={window} />
      </div>
      <section class="card">
        <h2>Instances</h2>
        <Status loading={instances.loading && !instances.data} error={instances.error} empty={instances.data?.data.length === 0} emptyText="No instance has reported yet." />
        {instances.data && instances.data.data.length > 0 && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Instances table"><table>
            <thead>
              <tr>
                <th scope="col">Instance</th>
                <th scope="col">Health</th>
                <th scope="col">Started</th>
                <th scope="col">Last heartbeat</th>
                <th scope="col" class="num">Usage rows queued</th>
              </tr>
            </thead>
            <tbody>
              {instances.data.data.map((i) => (
                <tr key={i.id}>
                  <td>{i.name}</td>
                  <td>
                    <Badge tone={i.health === 'healthy' ? 'ok' : i.health === 'degraded' ? 'warn' : 'bad'}>{i.health}</Badge> {i.reason}
                  </td>
                  <td>{fmtTime(i.startedAt)}</td>
                  <td>{fmtTime(i.lastSeenAt)}</td>
                  <td class="num">{fmtInt(i.stats.ledger.queued)}</td>
                </tr>
              ))}
            </tbody>
          </table></div>
        )}
      </section>
    </>
  );
}
