/** Usage: filters, a chart and a table grouped by day, key, model or provider (from the rollups), CSV export of the rows. */
import { useMemo, useState } from 'preact/hooks';
import { api, apiUrl, type ListPage } from '../api';
import { TimeChart } from '../ui/chart';
import { Pager, SelectField, Status, KeyLabel } from '../ui/controls';
import { fmtInt, fmtUsd } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import { LedgerFilterForm, NO_FILTERS, type LedgerFilters } from './ledger-filters';
import type { PageProps, UsageBucket } from './types';

export function UsagePage(_props: PageProps) {
  const [filters, setFilters] = useState<LedgerFilters>(NO_FILTERS);
  const [groupBy, setGroupBy] = useState('day');
  const [applied, setApplied] = useState('day');
  const paging = useCursor([filters, applied]);
  const { status: _s, ...ledger } = filters;
  const list = useLoad(() => api<ListPage<UsageBucket>>('/usage', { query: { ...ledger, groupBy: applied, limit: 100, after: paging.cursor } }), [filters, applied, paging.cursor]);
  const chart = useMemo(() => {
    const rows = applied === 'day' ? (list.data?.data ?? []) : [];
    return {
      times: rows.map((r) => Date.parse(`${r.bucket}T00:00:00Z`)),
      series: [
        { label: 'Requests', values: rows.map((r) => r.requests), color: '#1f4e8c' },
        { label: 'Spend (USD)', values: rows.map((r) => r.costUsd), color: '#5b2a86', axis: 'right' as const, format: fmtUsd },
      ],
    };
  }, [list.data, applied]);
  const max = Math.max(1, ...(list.data?.data ?? []).map((r) => r.requests));
  return (
    <>
      <LedgerFilterForm
        label="Filter usage"
        onApply={(f) => {
          setFilters(f);
          setApplied(groupBy);
        }}
      >
        <SelectField label="Group by" value={groupBy} onChange={setGroupBy} options={[['day', 'Day'], ['key', 'Key'], ['model', 'Model'], ['provider', 'Provider']]} />
      </LedgerFilterForm>
      <p>
        <a class="button" href={apiUrl('/usage/export', ledger)} download>
          Export rows as CSV
        </a>
      </p>
      <Status loading={list.loading && !list.data} error={list.error} empty={list.data?.data.length === 0} emptyText="No usage matches." />
      {applied === 'day' && list.data && list.data.data.length > 1 && <TimeChart title="Requests and spend per day" times={chart.times} series={chart.series} />}
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Usage table">
          <table>
            <caption class="sr-only">Usage by {applied}</caption>
            <thead>
              <tr>
                <th scope="col">{applied === 'key' ? 'Key' : applied[0]?.toUpperCase() + applied.slice(1)}</th>
                <th scope="col" class="num">Requests</th>
                <th scope="col">Share</th>
                <th scope="col" class="num">Errors</th>
                <th scope="col" class="num">Input tokens</th>
                <th scope="col" class="num">Output tokens</th>
                <th scope="col" class="num">Spend</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((b) => (
                <tr key={b.bucket}>
                  <td>{b.keyName !== undefined ? <KeyLabel id={b.bucket} name={b.keyName} /> : b.bucket || '(none)'}</td>
                  <td class="num">{fmtInt(b.requests)}</td>
                  <td>
                    <meter min={0} max={max} value={b.requests} aria-label={`Share of requests for ${b.keyName ?? (b.bucket || 'none')}`} />
                  </td>
                  <td class="num">{fmtInt(b.errors)}</td>
                  <td class="num">{fmtInt(b.inputTokens)}</td>
                  <td class="num">{fmtInt(b.outputTokens)}</td>
                  <td class="num">{fmtUsd(b.costUsd)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager label="Usage" page={paging.page} hasMore={list.data.hasMore} nextCursor={list.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
    </>
  );
}
