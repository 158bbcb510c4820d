/** One key: its settings, edit, rotate with a grace period, disable / enable / revoke (confirmed), and its own usage. */
import { useMemo, useState } from 'preact/hooks';
import { api, messageOf, type ListPage } from '../api';
import { TimeChart } from '../ui/chart';
import { Badge, Confirm, Dialog, Status, TextField } from '../ui/controls';
import { fmtInt, fmtTime, fmtUsd } from '../ui/format';
import { useLoad } from '../ui/hooks';
import { KeyForm } from './key-form';
import { KeyStatusBadge, SecretOnce } from './keys';
import type { KeyRecord, Series, UsageBucket } from './types';

type Action = 'disable' | 'enable' | 'revoke';

export function KeyDetail(props: { id: string; canWrite: boolean; onBack: () => void }) {
  const path = `/keys/${encodeURIComponent(props.id)}`;
  const key = useLoad(() => api<KeyRecord>(path), [path]);
  const series = useLoad(() => api<Series>('/overview/series', { query: { window: '30d', keyId: props.id } }), [props.id]);
  const byModel = useLoad(() => api<ListPage<UsageBucket>>('/usage', { query: { keyId: props.id, groupBy: 'model', limit: 50 } }), [props.id]);
  const [editing, setEditing] = useState(false);
  const [rotating, setRotating] = useState(false);
  const [grace, setGrace] = useState('3600');
  const [confirm, setConfirm] = useState<Action | undefined>(undefined);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  const [error, setError] = useState<string | undefined>(undefined);
  const [rotateError, setRotateError] = useState<string | undefined>(undefined);
  const chart = useMemo(() => {
    const pts = series.data?.points ?? [];
    return { times: pts.map((p) => Date.parse(p.time)), series: [{ label: 'Requests', values: pts.map((p) => p.requests), color: '#1f4e8c' }, { label: 'Spend (USD)', values: pts.map((p) => p.costUsd), color: '#5b2a86', axis: 'right' as const, format: fmtUsd }] };
  }, [series.data]);
  const act = async (a: Action) => {
    setConfirm(undefined);
    setError(undefined);
    try {
      await api(a === 'revoke' ? path : `${path}/${a}`, { method: a === 'revoke' ? 'DELETE' : 'POST' });
      key.reload();
    } catch (err) {
      setError(messageOf(err));
    }
  };
  const k = key.data;
  const writable = props.canWrite && k?.source === 'store' && k.status !== 'revoked';
  return (
    <>
      <p>
        <button type="button" class="link" onClick={props.onBack}>
          ← All keys
        </button>
      </p>
      <Status loading={key.loading && !k} error={key.error} />
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {k && (
        <section class="card" aria-labelledby="key-title">
          <h2 id="key-title">
            {k.name} <KeyStatusBadge k={k} />
          </h2>
          <dl class="props">
            <div><dt>Id</dt><dd><code>{k.id}</code></dd></div>
            <div><dt>Secret</dt><dd><code>{k.prefix}…{k.last4}</code></dd></div>
            <div><dt>Owner</dt><dd>{k.owner ?? '–'}</dd></div>
            <div><dt>Models</dt><dd>{k.models.join(', ')}</dd></div>
            <div><dt>Requests per minute</dt><dd>{fmtInt(k.limits?.requestsPerMinute)}</dd></div>
            <div><dt>Tokens per minute</dt><dd>{fmtInt(k.limits?.tokensPerMinute)}</dd></div>
            <div><dt>Concurrent requests</dt><dd>{fmtInt(k.limits?.concurrentRequests)}</dd></div>
            <div><dt>Budget</dt><dd>{k.limits?.budget ? `${fmtUsd(k.limits.budget.usd)} per ${k.limits.budget.period}` : '–'}</dd></div>
            <div><dt>Expires</dt><dd>{fmtTime(k.expiresAt)}</dd></div>
            <div><dt>Metadata</dt><dd>{Object.keys(k.metadata).length ? <ul class="plain">{Object.entries(k.metadata).map(([a, b]) => <li key={a}>{`${a}=${b}`}</li>)}</ul> : '–'}</dd></div>
            <div><dt>Created</dt><dd>{fmtTime(k.createdAt)}</dd></div>
            <div><dt>Last used</dt><dd>{fmtTime(k.lastUsedAt)}</dd></div>
          </dl>
          {writable && (
            <div class="actions">
              <button type="button" onClick={() => setEditing(true)}>Edit</button>
              <button type="button" onClick={() => setRotating(true)}>Rotate secret</button>
              {k.status === 'active' ? (
                <button type="button" onClick={() => setConfirm('disable')}>Disable</button>
              ) : (
                <button type="button" onClick={() => setConfirm('enable')}>Enable</button>
              )}
              <button type="button" class="danger" onClick={() => setConfirm('revoke')}>Revoke</button>
            </div>
          )}
        </section>
      )}
      {k && (
        <Dialog title={`Edit ${k.name}`} open={editing} onClose={() => setEditing(false)}>
          <KeyForm editing={k} onCancel={() => setEditing(false)} onDone={() => (setEditing(false), key.reload())} />
        </Dialog>
      )}
      <Dialog title="Rotate the secret" open={rotating} onClose={() => setRotating(false)}>
        <form
          onSubmit={async (e) => {
            e.preventDefault();
            setRotateError(undefined);
            try {
              const r = await api<{ key: string }>(`${path}/rotate`, { method: 'POST', body: { gracePeriodSeconds: Number(grace) || 0 }, headers: { 'idempotency-key': crypto.randomUUID() } });
              // The dialog stays open with its error until a rotation succeeds.
              setRotating(false);
              setError(undefined);
              setSecret(r.key);
              key.reload();
            } catch (err) {
              setRotateError(messageOf(err));
            }
          }}
        >
          <p>A new secret replaces the current one; the old one keeps working for the grace period.</p>
          <TextField label="Grace period (seconds)" type="number" min={0} step={1} value={grace} onInput={setGrace} />
          {rotateError && (
            <p role="alert" class="error">
              {rotateError}
            </p>
          )}
          <div class="actions">
            <button type="button" onClick={() => setRotating(false)}>Cancel</button>
            <button type="submit" class="primary">Rotate</button>
          </div>
        </form>
      </Dialog>
      <Confirm
        open={confirm !== undefined}
        title={confirm === 'revoke' ? 'Revoke this key?' : confirm === 'disable' ? 'Disable this key?' : 'Enable this key?'}
        message={confirm === 'revoke' ? 'A revoked key is refused from now on and cannot be enabled again.' : confirm === 'disable' ? 'Requests with this key are refused until it is enabled again.' : 'Requests with this key are accepted again.'}
        confirmText={confirm === 'revoke' ? 'Revoke key' : confirm === 'disable' ? 'Disable key' : 'Enable key'}
        danger={confirm !== 'enable'}
        onConfirm={() => confirm && void act(confirm)}
        onClose={() => setConfirm(undefined)}
      />
      {secret && <SecretOnce secret={secret} onClose={() => setSecret(undefined)} />}
      <section class="card">
        <h2>Usage of this key</h2>
        <Status loading={series.loading && !series.data} error={series.error} />
        {series.data && <TimeChart title="Requests and spend per day, last 30 days" times={chart.times} series={chart.series} />}
        <Status loading={byModel.loading && !byModel.data} error={byModel.error} empty={byModel.data?.data.length === 0} emptyText="No usage yet." />
        {byModel.data && byModel.data.data.length > 0 && (
          <div class="table-wrap" tabIndex={0} role="region" aria-label="Usage of this key by model"><table>
            <caption>By model</caption>
            <thead>
              <tr><th scope="col">Model</th><th scope="col" class="num">Requests</th><th scope="col" class="num">Tokens</th><th scope="col" class="num">Spend</th></tr>
            </thead>
            <tbody>
              {byModel.data.data.map((b) => (
                <tr key={b.bucket}><td>{b.bucket || '(none)'}</td><td class="num">{fmtInt(b.requests)}</td><td class="num">{fmtInt(b.inputTokens + b.outputTokens)}</td><td class="num">{fmtUsd(b.costUsd)}</td></tr>
              ))}
            </tbody>
          </table></div>
        )}
      </section>
    </>
  );
}
