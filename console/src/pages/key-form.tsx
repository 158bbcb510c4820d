/** The create / edit form of a key: name, owner, models, limits, budget, expiry, metadata. An edit sends only what changed. */
import { useState } from 'preact/hooks';
import { api, messageOf } from '../api';
import { SelectField, TextAreaField, TextField } from '../ui/controls';
import { localToIso } from '../ui/format';
import type { KeyRecord } from './types';

interface FormState {
  name: string;
  owner: string;
  models: string;
  rpm: string;
  tpm: string;
  concurrency: string;
  budgetUsd: string;
  budgetPeriod: string;
  expiresAt: string;
  metadata: string;
}

type Limits = NonNullable<KeyRecord['limits']>;

function initial(k?: KeyRecord): FormState {
  const l = k?.limits;
  return {
    name: k?.name ?? '',
    owner: k?.owner ?? '',
    models: (k?.models ?? ['*']).join(', '),
    rpm: l?.requestsPerMinute ? String(l.requestsPerMinute) : '',
    tpm: l?.tokensPerMinute ? String(l.tokensPerMinute) : '',
    concurrency: l?.concurrentRequests ? String(l.concurrentRequests) : '',
    budgetUsd: l?.budget ? String(l.budget.usd) : '',
    budgetPeriod: l?.budget?.period ?? 'month',
    expiresAt: k?.expiresAt ? new Date(new Date(k.expiresAt).getTime() - new Date().getTimezoneOffset() * 60_000).toISOString().slice(0, 16) : '',
    // One name=value per line: values may hold commas and '='.
    metadata: Object.entries(k?.metadata ?? {})
      .map(([a, b]) => `${a}=${b}`)
      .join('\n'),
  };
}

/** name=value lines (blank lines skipped); a line without a name and '=' is an error naming it. */
function parseMetadata(text: string): Record<string, string> {
  const metadata: Record<string, string> = {};
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return;
    const at = line.indexOf('=');
    const name = at > 0 ? line.slice(0, at).trim() : '';
    if (!name) throw new Error(`Metadata line ${i + 1} needs the form name=value.`);
    metadata[name] = line.slice(at + 1).trim();
  });
  return metadata;
}

/** The limits of the form, starting from `base` (what the key has): fields the form changed are set or removed, the rest kept. */
function limitsOf(f: FormState, base: Limits, was: FormState): Limits {
  const out: Limits = { ...base };
  const field = (value: string, before: string, key: 'requestsPerMinute' | 'tokensPerMinute' | 'concurrentRequests') => {
    if (value === before) return;
    if (value) out[key] = Number(value);
    else delete out[key];
  };
  field(f.rpm, was.rpm, 'requestsPerMinute');
  field(f.tpm, was.tpm, 'tokensPerMinute');
  field(f.concurrency, was.concurrency, 'concurrentRequests');
  if (f.budgetUsd !== was.budgetUsd || f.budgetPeriod !== was.budgetPeriod) {
    if (f.budgetUsd) out.budget = { usd: Number(f.budgetUsd), period: f.budgetPeriod as 'day' | 'week' | 'month' };
    else delete out.budget;
  }
  return out;
}

/**
 * The request body. Creating: every field filled in. Editing: only what the operator changed, so
 * what the form does not show (or shows differently) is left as it is.
 */
function bodyOf(f: FormState, editing: KeyRecord | undefined): Record<string, unknown> {
  const was = initial(editing);
  const body: Record<string, unknown> = {};
  const changed = (field: keyof FormState) => !editing || f[field] !== was[field];
  if (changed('name')) body.name = f.name;
  if (changed('owner') && (editing || f.owner.trim())) body.owner = f.owner.trim() ? f.owner.trim() : null;
  if (changed('models')) {
    const models = f.models.split(',').map((m) => m.trim()).filter(Boolean);
    body.models = models.length ? models : ['*'];
  }
  if (changed('metadata')) body.metadata = parseMetadata(f.metadata);
  const limitFields: Array<keyof FormState> = ['rpm', 'tpm', 'concurrency', 'budgetUsd', 'budgetPeriod'];
  if (limitFields.some(changed)) {
    const limits = limitsOf(f, editing?.limits ?? {}, editing ? was : initial());
    if (Object.keys(limits).length) body.limits = limits;
    else if (editing) body.limits = null;
  }
  if (changed('expiresAt')) {
    const expires = localToIso(f.expiresAt);
    if (expires) body.expiresAt = expires;
    else if (editing) body.expiresAt = null;
  }
  return body;
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
          const body = bodyOf(f, props.editing);
          const answer = props.editing
            ? Object.keys(body).length
              ? await api<KeyRecord>(`/keys/${encodeURIComponent(props.editing.id)}`, { method: 'PATCH', body })
              : props.editing
            : await api<KeyRecord & { key: string }>('/keys', { method: 'POST', body, headers: { 'idempotency-key': crypto.randomUUID() } });
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
        <TextField label="Requests per minute" type="number" min={1} step={1} value={f.rpm} onInput={set('rpm')} />
        <TextField label="Tokens per minute" type="number" min={1} step={1} value={f.tpm} onInput={set('tpm')} />
        <TextField label="Concurrent requests" type="number" min={1} step={1} value={f.concurrency} onInput={set('concurrency')} />
        <TextField label="Budget (USD)" type="number" min={0} step="any" value={f.budgetUsd} onInput={set('budgetUsd')} hint="Cents allowed, e.g. 12.50" />
        <SelectField label="Budget period" value={f.budgetPeriod} onChange={set('budgetPeriod')} options={[['day', 'Day'], ['week', 'Week'], ['month', 'Month']]} />
        <TextField label="Expires at" type="datetime-local" value={f.expiresAt} onInput={set('expiresAt')} />
        <TextAreaField label="Metadata" value={f.metadata} onInput={set('metadata')} hint="One name=value per line, e.g. team=a" />
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
