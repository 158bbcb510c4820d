/** The sign-in form: the admin key goes to POST /session once and is forgotten (a password field, no storage). */
import { useState } from 'preact/hooks';
import { api, messageOf, type Session } from '../api';
import { TextField } from './controls';

export function SignIn(props: { onSignedIn: (s: Session) => void; notice?: string | undefined }) {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  return (
    <main id="main" class="signin">
      <h1>modelgate console</h1>
      {props.notice && <p class="muted">{props.notice}</p>}
      <form
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(undefined);
          try {
            const s = await api<Session>('/session', { method: 'POST', body: { key } });
            setKey('');
            props.onSignedIn(s);
          } catch (err) {
            setError(messageOf(err));
          } finally {
            setBusy(false);
          }
        }}
      >
        <TextField label="Admin key" type="password" value={key} onInput={setKey} required autoComplete="current-password" name="admin-key" hint="Exchanged for a session cookie; the key itself is not kept by the browser." />
        {error && (
          <p role="alert" class="error">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy || !key}>
          Sign in
        </button>
      </form>
    </main>
  );
}
