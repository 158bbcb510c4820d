/** The create / edit form of a key: name, owner, models, limits, budget, expiry, metadata. */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { SelectField, TextField } from '../ui/controls';
import { localToIso } from '../ui/format';
import type { KeyRecord } from './types';

interface FormState {
  name: string;
  owner: string;
  models: string;
  rpm: string;
  tpm: string;
  budgetUsd: string;
  budgetPeriod: string;
  expiresAt: string;
  metadata: string;
}

function initial(k?: KeyRecord): FormState {
  return {
    name: k?.name ?? '',
    owner: k?.owner ?? '',
    models: (k?.models ?? ['*']).join(', '),
    rpm: k?.limits?.requestsPerMinute ? String(k.limits.requestsPerMinute) : '',
    tpm: k?.limits?.tokensPerMinute ? String(k.limits.tokensPerMinute) : '',
    budgetUsd: k?.limits?.budget ? String(k.limits.budget.usd) : '',
    budgetPeriod: k?.limits?.budget?.period ?? 'month',
    expiresAt: k?.expiresAt ? new Date(new Date(k.expiresAt).getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '',
    metadata: Object.entries(k?.metadata ?? {})
      .map(([a, b]) => `${a}=${b}`)
      .join(', '),
  };
}

function bodyOf(f: FormState, editing: boolean): Record<string, unknown> {
  const limits: Record<string, unknown> = {};
  if (f.rpm) limits.requestsPerMinute = Number(f.rpm);
  if (f.tpm) limits.tokensPerMinute = Number(f.tpm);
  if (f.budgetUsd) limits.budget = { usd: Number(f.budgetUsd), period: f.budgetPeriod };
  const metadata: Record<string, string> = {};
  for (const pair of f.metadata.split(',')) {
    const [k, ...v] = pair.split('=');
    if (k && k.trim()) metadata[k.trim()] = v.join('=').trim();
  }
  const models = f.models.split(',').map((m) => m.trim()).filter(Boolean);
  const expires = localToIso(f.expiresAt);
  return {
    name: f.name,
    owner: f.owner.trim() ? f.owner.trim() : null,
    models: models.length ? models : ['*'],
    metadata,
    ...(Object.keys(limits).length ? { limits } : editing ? { limits: null } : {}),
    ...(expires ? { expiresAt: expires } : editing ? { expiresAt: null } : {}),
  };
}

export function KeyForm(props: { editing?: KeyRecord; onDone: (answer: KeyRecord & { key?: string }) => void; onCancel: () => void }) {
  const [f, setF] = useState<FormState>(initial(props.editing));
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const set = (field: keyof FormState) => (v: string) => setF((s) => ({ ...s, [field]: v }));
  return (
    <form
      onSubmit={async (e) => {
        e.preventDefault();
        setBusy(true);
        setError(undefined);
        try {
          const answer = props.editing
            ? await api<KeyRecord>(`/keys/${encodeURIComponent(props.editing.id)}`, { method: 'PATCH', body: bodyOf(f, true) })
            : await api<KeyRecord & { key: string }>('/keys', { method: 'POST', body: bodyOf(f, false), headers: { 'idempotency-key': crypto.randomUUID() } });
          props.onDone(answer);
        } catch (err) {
          setError(messageOf(err));
        } finally {
          setBusy(false);
        }
      }}
    >
      <div class="form-grid">
        <TextField label="Name" value={f.name} onInput={set('name')} required />
        <TextField label="Owner" value={f.owner} onInput={set('owner')} placeholder="alice@example.com" />
        <TextField label="Models" value={f.models} onInput={set('models')} hint="Comma-separated patterns, e.g. gpt-4o*, claude-*" />
        <TextField label="Requests per minute" type="number" value={f.rpm} onInput={set('rpm')} />
        <TextField label="Tokens per minute" type="number" value={f.tpm} onInput={set('tpm')} />
        <TextField label="Budget (USD)" type="number" value={f.budgetUsd} onInput={set('budgetUsd')} />
        <SelectField label="Budget period" value={f.budgetPeriod} onChange={set('budgetPeriod')} options={[['day', 'Day'], ['week', 'Week'], ['month', 'Month']]} />
        <TextField label="Expires at" type="datetime-local" value={f.expiresAt} onInput={set('expiresAt')} />
        <TextField label="Metadata" value={f.metadata} onInput={set('metadata')} hint="Comma-separated name=value pairs, e.g. team=a" />
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="actions">
        <button type="button" onClick={props.onCancel}>
          Cancel
        </button>
        <button type="submit" class="primary" disabled={busy}>
          {props.editing ? 'Save changes' : 'Create key'}
        </button>
      </div>
    </form>
  );
}
