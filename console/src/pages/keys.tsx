/** Keys: server-side search, filters and paging over any number of keys; create (the secret shown once), open one to manage it. */
import { useEffect, useState } from 'preact/hooks';
import { api, type ListPage } from '../api';
import { Badge, CopyButton, Dialog, Pager, SelectField, Status, TextField } from '../ui/controls';
import { fmtTime } from '../ui/format';
import { useCursor, useLoad } from '../ui/hooks';
import { KeyDetail } from './key-detail';
import { KeyForm } from './key-form';
import type { KeyRecord, PageProps } from './types';

function statusTone(s: KeyRecord['status']): 'ok' | 'warn' | 'bad' {
  return s === 'active' ? 'ok' : s === 'disabled' ? 'warn' : 'bad';
}

/** A key's status; a key past its expiry reads "expired" (it is refused) unless it was revoked. */
export function KeyStatusBadge(props: { k: KeyRecord }) {
  const { k } = props;
  if (k.expired && k.status !== 'revoked') return <Badge tone="bad">{k.status === 'disabled' ? 'disabled, expired' : 'expired'}</Badge>;
  return <Badge tone={statusTone(k.status)}>{k.status}</Badge>;
}

/** The secret of a key just created or rotated: shown this once, with a copy button. */
export function SecretOnce(props: { secret: string; onClose: () => void }) {
  return (
    <Dialog title="Copy the new secret now" open onClose={props.onClose}>
      <p>This is the only time the secret is shown. Store it somewhere safe.</p>
      <p>
        <output class="secret" aria-label="New key secret">
          {props.secret}
        </output>
      </p>
      <div class="actions">
        <CopyButton text={props.secret} label="Copy secret" />
        <button type="button" class="primary" onClick={props.onClose}>
          Done
        </button>
      </div>
    </Dialog>
  );
}

/** The key id in the address (`#/keys/<id>`), if one is open. */
function keyInHash(): string | undefined {
  const m = /^#\/keys\/([^?]+)/.exec(location.hash);
  return m ? decodeURIComponent(m[1] as string) : undefined;
}

export function KeysPage(props: PageProps) {
  const [search, setSearch] = useState('');
  const [status, setStatus] = useState('');
  const [owner, setOwner] = useState('');
  const [applied, setApplied] = useState({ search: '', status: '', owner: '' });
  const paging = useCursor([applied]);
  const list = useLoad(() => api<ListPage<KeyRecord>>('/keys', { query: { ...applied, limit: 25, after: paging.cursor } }), [applied, paging.cursor]);
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<string | undefined>(undefined);
  // The open key is part of the address (#/keys/<id>): linkable, and Back or the Keys link leave it.
  const [open, setOpenState] = useState<string | undefined>(keyInHash());
  useEffect(() => {
    const onHash = () => {
      setOpenState(keyInHash());
      document.getElementById('main')?.focus();
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  const setOpen = (id: string | undefined) => {
    location.hash = id ? `#/keys/${encodeURIComponent(id)}` : '#/keys';
  };
  if (open) return <KeyDetail id={open} canWrite={props.canWrite} onBack={() => (setOpen(undefined), list.reload())} />;
  return (
    <>
      <form
        class="filters"
        role="search"
        aria-label="Find keys"
        onSubmit={(e) => {
          e.preventDefault();
          setApplied({ search, status, owner });
        }}
      >
        <TextField label="Search" value={search} onInput={setSearch} placeholder="name, owner or metadata" />
        <SelectField label="Status" value={status} onChange={setStatus} options={[['', 'Any'], ['active', 'Active'], ['expired', 'Expired'], ['disabled', 'Disabled'], ['revoked', 'Revoked']]} />
        <TextField label="Owner" value={owner} onInput={setOwner} />
        <button type="submit">Apply filters</button>
        {props.canWrite && (
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New key
          </button>
        )}
      </form>
      <Dialog title="New key" open={creating} onClose={() => setCreating(false)}>
        <KeyForm
          onCancel={() => setCreating(false)}
          onDone={(k) => {
            setCreating(false);
            if (k.key) setSecret(k.key);
            list.reload();
          }}
        />
      </Dialog>
      {secret && <SecretOnce secret={secret} onClose={() => setSecret(undefined)} />}
      <Status loading={list.loading && !list.data} error={list.error} empty={list.data?.data.length === 0} emptyText="No keys match." />
      {list.data && list.data.data.length > 0 && (
        <div class="table-wrap" tabIndex={0} role="region" aria-label="Keys table">
          <table>
            <caption class="sr-only">Keys</caption>
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Status</th>
                <th scope="col">Owner</th>
                <th scope="col">Models</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
              </tr>
            </thead>
            <tbody>
              {list.data.data.map((k) => (
                <tr key={k.id}>
                  <td>
                    <button type="button" class="link" onClick={() => setOpen(k.id)} aria-label={`Open key ${k.name}`}>
                      {k.name}
                    </button>
                    {k.source === 'config' && <span class="muted"> (config)</span>}
                  </td>
                  <td>
                    <code>{k.prefix}…{k.last4}</code>
                  </td>
                  <td>
                    <KeyStatusBadge k={k} />
                  </td>
                  <td>{k.owner ?? '–'}</td>
                  <td>{k.models.join(', ')}</td>
                  <td>{fmtTime(k.createdAt)}</td>
                  <td>{fmtTime(k.lastUsedAt)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list.data && <Pager label="Keys" page={paging.page} hasMore={list.data.hasMore} nextCursor={list.data.nextCursor} onNext={paging.next} onPrev={paging.prev} />}
    </>
  );
}
