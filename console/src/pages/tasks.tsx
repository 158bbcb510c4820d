/** Task center: video tasks with live status and progress (refreshed while any runs), cancel, an inline player and a download. */
import { useEffect, useState } from 'preact/hooks';
import { api, apiUrl, messageOf, type ListPage } from '../api';
import { Badge, Confirm, Pager, SelectField, Status, TextField, KeyLabel } from '../ui/controls';
import { fmtTime, fmtUsd } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import type { PageProps } from './types';

interface Task {
  id: string;
  keyId: string;
  keyName: string | null;
  status: string;
  progress: number;
  model: string;
  provider: string;
  promptSummary: string;
  createdAt: string | null;
  completedAt: string | null;
  costUsd: number | null;
  error: { code: string; message: string } | null;
}

const RUNNING = new Set(['queued', 'in_progress']);
const tone = (s: string) => (s === 'succeeded' ? 'ok' : RUNNING.has(s) ? 'muted' : s === 'failed' ? 'bad' : 'warn');

export function TasksPage(props: PageProps) {
  const [status, setStatus] = useState('');
  const [keyId, setKeyId] = useState('');
  const [applied, setApplied] = useState({ status: '', keyId: '' });
  const paging = useCursor([applied]);
  const list = useLoad(() => api<ListPage<Task>>('/tasks', { query: { ...applied, limit: 20, after: paging.cursor } }), [applied, paging.cursor]);
  const [playing, setPlaying] = useState<string | undefined>(undefined);
  const [cancel, setCancel] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const running = list.data?.data.some((t) => RUNNING.has(t.status)) ?? false;
  useEffect(() => {
    if (!running) return;
    const timer = setInterval(list.reload, 2000);
    return () => clearInterval(timer);
  }, [running, list.reload]);
  return (
    <>
      <form class="filters" role="search" aria-label="Filter tasks" onSubmit={(e) => (e.preventDefault(), setApplied({ status, keyId }))}>
        <SelectField label="Status" value={status} onChange={setStatus} options={[['', 'Any'], ['queued', 'Queued'], ['in_progress', 'In progress'], ['succeeded', 'Succeeded'], ['failed', 'Failed'], ['cancelled', 'Cancelled']]} />
        <TextField label="Key id" value={keyId} onInput={setKeyId} />
        <button type="submit">Apply filters</button>
        <button type="button" onClick={list.reload}>Refresh</button>
      </form>
      {error && <p role="alert" class="error">{error}</p>}
      <Status loading={list.loading && !list.data} error={list.error} empty={list.data?.data.length === 0} emptyText="No video tasks yet." />
      {list.data && list.data.data.length > 0 && (
        <ul class="tasks" aria-live="polite">
          {list.data.data.map((t) => (
            <li key={t.id} class="card">
              <div class="task-head">
                <strong>{t.promptSummary || t.id}</strong>
                <Badge tone={tone(t.status)}>{t.status}</Badge>
              </div>
              <p class="muted">
                <code>{t.id}</code> · {t.model} · key <KeyLabel id={t.keyId} name={t.keyName} /> · created {fmtTime(t.createdAt)}
                {t.completedAt && ` · finished ${fmtTime(t.completedAt)}`} · cost {fmtUsd(t.costUsd)}
              </p>
              {t.error && (
                <p class="error">
                  {t.status === 'cancelled' ? 'Cancelled' : 'Failed'}: {t.error.message} (<code>{t.error.code}</code>)
                </p>
              )}
              <label>
                Progress <progress max={100} value={t.progress} aria-label={`Progress of ${t.id}`} /> {Math.round(t.progress)}%
              </label>
              <div class="actions">
                {t.status === 'succeeded' && (
                  <>
                    <button type="button" onClick={() => setPlaying(playing === t.id ? undefined : t.id)} aria-expanded={playing === t.id}>
                      {playing === t.id ? 'Hide player' : 'Play'}
                    </button>
                    <a class="button" href={apiUrl(`/tasks/${encodeURIComponent(t.id)}/content`)} download>
                      Download video
                    </a>
                  </>
                )}
                {props.canWrite && RUNNING.has(t.status) && (
                  <button type="button" class="danger" onClick={() => setCancel(t.id)}>
                    Cancel task
                  </button>
                )}
              </div>
              {playing === t.id && <video class="player" controls preload="metadata" src={apiUrl(`/tasks/${encodeURIComponent(t.id)}/content`)} aria-label={`Video of ${t.id}`} />}
            </li>
          ))}
        </ul>
      )}
      {list.data && <Pager label="Tasks" page={paging.page} hasMore={list.data.hasMore} nextCursor={list.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
      <Confirm
        open={cancel !== undefined}
        title="Cancel this task?"
        message="The upstream is asked to drop the job; it cannot be resumed."
        confirmText="Cancel task"
        dismissText="Keep it running"
        danger
        onClose={() => setCancel(undefined)}
        onConfirm={async () => {
          const id = cancel;
          setCancel(undefined);
          if (!id) return;
          try {
            await api(`/tasks/${encodeURIComponent(id)}/cancel`, { method: 'POST' });
          } catch (err) {
            setError(messageOf(err));
          }
          list.reload();
        }}
      />
    </>
  );
}
