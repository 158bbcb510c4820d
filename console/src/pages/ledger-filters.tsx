/** The ledger's filters (key, model, provider, status, date range), applied on submit; shared by Usage and Requests. */
import type { ComponentChildren } from 'preact';
import { useState } from 'preact/hooks';
import { SelectField, TextField } from '../ui/controls';

export interface LedgerFilters {
  keyId: string;
  model: string;
  provider: string;
  status: string;
  from: string;
  to: string;
}

export const NO_FILTERS: LedgerFilters = { keyId: '', model: '', provider: '', status: '', from: '', to: '' };

export function LedgerFilterForm(props: { label: string; withStatus?: boolean; onApply: (f: LedgerFilters) => void; children?: ComponentChildren }) {
  const [f, setF] = useState<LedgerFilters>(NO_FILTERS);
  const set = (field: keyof LedgerFilters) => (v: string) => setF((s) => ({ ...s, [field]: v }));
  return (
    <form
      class="filters"
      role="search"
      aria-label={props.label}
      onSubmit={(e) => {
        e.preventDefault();
        props.onApply(f);
      }}
    >
      <TextField label="Key id" value={f.keyId} onInput={set('keyId')} placeholder="key_…" />
      <TextField label="Model" value={f.model} onInput={set('model')} />
      <TextField label="Provider" value={f.provider} onInput={set('provider')} />
      {props.withStatus && <SelectField label="Status" value={f.status} onChange={set('status')} options={[['', 'Any'], ['success', 'Success'], ['error', 'Error'], ['401', '401'], ['429', '429'], ['500', '500']]} />}
      <TextField label="From" type="date" value={f.from} onInput={set('from')} />
      <TextField label="To" type="date" value={f.to} onInput={set('to')} />
      {props.children}
      <button type="submit">Apply filters</button>
    </form>
  );
}
