/** Audit: who changed what and when, newest first, filtered and paged by the server. */
import { useState } from 'preact/hooks';
import { api, type ListPage } from '../api';
import { Pager, Status, TextField } from '../ui/controls';
import { fmtTime } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import type { PageProps } from './types';

interface AuditEntry { id: string; time: string; actor: string; action: string; targetType: string; targetId: string; before: unknown; after: unknown }

function changes(before: unknown, after: unknown): string {
  if (!before || !after || typeof before !== 'object' || typeof after !== 'object') return after ? JSON.stringify(after) : '';
  const b = before as Record<string, unknown>;
  const a = after as Record<string, unknown>;
  return Object.keys(a)
    .filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]) && k !== 'updatedAt')
    .map((k) => `${k}: ${JSON.stringify(b[k])} → ${JSON.stringify(a[k])}`)
    .join('; ');
}

export function AuditPage(_props: PageProps) {
  const [f, setF] = useState({ actor: '', action: '', targetId: '' });
  const [applied, setApplied] = useState(f);
  const paging = useCursor([applied]);
  const list = useLoad(() => api<ListPage<AuditEntry>>('/audit', { query: { ...applied, limit: 50, after: paging.cursor } }), [applied, paging.cursor]);
  return (
    <>
      <form class="filters" role="search" aria-label="Filter the audit log" onSubmit={(e) => (e.preventDefault(), setApplied(f))}>
        <TextField label="Actor" value={f.actor} onInput={(v) => setF({ ...f, actor: v })} />
        <TextField label="Action" value={f.action} onInput={(v) => setF({ ...f, action: v })} placeholder="key.rotate" />
        <TextField label="Target id" value={f.targetId} onInput={(v) => setF({ ...f, targetId: v })} />
        <button type="submit">Apply filters</button>
      </form>
      <Status loading={list.loading && !list.data} error={list.error} empty={list.data?.data.length === 0} emptyText="No changes recorded." />
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Audit log table">
          <table>
            <caption class="sr-only">Audit log, newest first</caption>
            <thead><tr><th scope="col">Time</th><th scope="col">Actor</th><th scope="col">Action</th><th scope="col">Target</th><th scope="col">Change</th></tr></thead>
            <tbody>
              {list.data.data.map((e) => (
                <tr key={e.id}>
                  <td>{fmtTime(e.time)}</td>
                  <td>{e.actor}</td>
                  <td><code>{e.action}</code></td>
                  <td>{e.targetType} <code>{e.targetId}</code></td>
                  <td class="change">{changes(e.before, e.after)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager label="Audit" page={paging.page} hasMore={list.data.hasMore} nextCursor={list.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
    </>
  );
}
