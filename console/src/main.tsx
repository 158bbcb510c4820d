/**
 * The console: sign-in, then one page per view (hash routes, so any mount prefix works and the page
 * is a single static file). Every view reads the admin API only, one request per list, paged by
 * the server. A read-only admin sees no write controls (and the API refuses writes anyway).
 */
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import { render } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { api, setSession, whenSignedOut, type Session } from './api';
import { SignIn } from './ui/sign-in';
import { OverviewPage } from './pages/overview';
import { KeysPage } from './pages/keys';
import { UsagePage } from './pages/usage';
import { RequestsPage } from './pages/requests';
import { TasksPage } from './pages/tasks';
import { ModelsPage } from './pages/models';
import { AuditPage } from './pages/audit';

const PAGES = [
  { id: 'overview', title: 'Overview', view: OverviewPage },
  { id: 'keys', title: 'Keys', view: KeysPage },
  { id: 'usage', title: 'Usage', view: UsagePage },
  { id: 'requests', title: 'Requests', view: RequestsPage },
  { id: 'tasks', title: 'Task center', view: TasksPage },
  { id: 'models', title: 'Models', view: ModelsPage },
  { id: 'audit', title: 'Audit', view: AuditPage },
] as const;

function currentPage(): string {
  // `#/keys/<id>` is the keys page with one key open.
  const id = location.hash.replace(/^#\/?/, '').split('?')[0]?.split('/')[0] ?? '';
  return PAGES.some((p) => p.id === id) ? id : 'overview';
}

function App() {
  const [session, setS] = useState<Session | null | undefined>(undefined);
  const [notice, setNotice] = useState<string | undefined>(undefined);
  const [page, setPage] = useState(currentPage());
  const signedIn = (s: Session | null) => {
    setSession(s);
    setS(s);
  };
  useEffect(() => {
    whenSignedOut(() => {
      setNotice('Your session has ended; sign in again.');
      signedIn(null);
    });
    api<Session>('/session').then(signedIn, () => signedIn(null));
    const onHash = () => setPage(currentPage());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    const p = PAGES.find((x) => x.id === page);
    document.title = `${p?.title ?? ''} · modelgate console`;
    document.getElementById('main')?.focus();
  }, [page, session]);
  if (session === undefined) return <p class="muted">Loading…</p>;
  if (session === null) return <SignIn onSignedIn={signedIn} notice={notice} />;
  const current = PAGES.find((p) => p.id === page) ?? PAGES[0];
  const View = current.view;
  const canWrite = session.access === 'write';
  return (
    <>
      <a class="skip" href="#main" onClick={(e) => { e.preventDefault(); document.getElementById('main')?.focus(); }}>
        Skip to content
      </a>
      <header class="top">
        <span class="brand">modelgate</span>
        <nav aria-label="Console">
          <ul>
            {PAGES.map((p) => (
              <li key={p.id}>
                <a href={`#/${p.id}`} aria-current={p.id === current.id ? 'page' : undefined}>
                  {p.title}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            {session.actor} ({canWrite ? 'read-write' : 'read-only'})
          </span>
          {session.via === 'session' && (
            <button
              type="button"
              onClick={async () => {
                await api('/session', { method: 'DELETE' }).catch(() => undefined);
                setNotice('Signed out.');
                signedIn(null);
              }}
            >
              Sign out
            </button>
          )}
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <h1>{current.title}</h1>
        <View canWrite={canWrite} />
      </main>
    </>
  );
}

const root = document.getElementById('app');
if (root) render(<App />, root);
