/** Requests: the usage ledger newest first, filtered and paged by the server. */
import { useState } from 'preact/hooks';
import { api, type ListPage } from '../api';
import { Badge, Pager, Status, KeyLabel } from '../ui/controls';
import { fmtInt, fmtMs, fmtTime, fmtUsd } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import { LedgerFilterForm, NO_FILTERS, type LedgerFilters } from './ledger-filters';
import type { LedgerRow, PageProps } from './types';

export function RequestsPage(_props: PageProps) {
  const [filters, setFilters] = useState<LedgerFilters>(NO_FILTERS);
  const paging = useCursor([filters]);
  const list = useLoad(() => api<ListPage<LedgerRow>>('/requests', { query: { ...filters, limit: 50, after: paging.cursor } }), [filters, paging.cursor]);
  return (
    <>
      <LedgerFilterForm label="Filter requests" withStatus onApply={setFilters} />
      <p>
        <button type="button" onClick={list.reload}>
          Refresh
        </button>
      </p>
      <Status loading={list.loading && !list.data} error={list.error} empty={list.data?.data.length === 0} emptyText="No requests match." />
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Requests table">
          <table>
            <caption class="sr-only">Requests, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Status</th>
                <th scope="col">Key</th>
                <th scope="col">Route</th>
                <th scope="col">Model</th>
                <th scope="col">Provider</th>
                <th scope="col" class="num">Latency</th>
                <th scope="col" class="num">Tokens in / out</th>
                <th scope="col" class="num">Cost</th>
                <th scope="col">Trace id</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((r) => (
                <tr key={r.traceId}>
                  <td>{fmtTime(r.time)}</td>
                  <td>
                    <Badge tone={r.status < 400 ? 'ok' : r.status < 500 ? 'warn' : 'bad'}>{r.status}</Badge> {r.errorCode ?? ''}
                  </td>
                  <td><KeyLabel id={r.keyId} name={r.keyName} /></td>
                  <td>{r.route}</td>
                  <td>{r.model ?? '–'}</td>
                  <td>{r.provider ?? '–'}</td>
                  <td class="num">{fmtMs(r.latencyMs)}</td>
                  <td class="num">{fmtInt(r.inputTokens)} / {fmtInt(r.outputTokens)}</td>
                  <td class="num">{fmtUsd(r.costUsd)}</td>
                  <td><code>{r.traceId}</code></td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager label="Requests" page={paging.page} hasMore={list.data.hasMore} nextCursor={list.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
    </>
  );
}
