import './no-eval.js';
import { render } from 'preact';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { clientFor } from './api.js';
import { PANELS } from './panels/index.js';
import { href, interceptLinks, useRoute } from './router.js';
import { currentSession, type Session, signIn, signOut } from './session.js';
import { Shortcuts } from './shortcuts.js';
import { ConsoleContext } from './ui.js';
import './styles.css';

function SignIn({ onSignedIn, notice }: { onSignedIn: (s: Session) => void; notice?: string }) {
  const [error, setError] = useState<string>();
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const form = e.currentTarget as HTMLFormElement;
    const key = String(new FormData(form).get('api_key') ?? '').trim();
    setBusy(true);
    setError(undefined);
    try {
      const session = await signIn(key);
      form.reset();
      onSignedIn(session);
    } catch (err) {
      setError((err as Error).message);
    } finally {
      setBusy(false);
    }
  };
  return (
    <main class="signin" id="main">
      <h1>sched console</h1>
      {notice && (
        <p class="note" role="status">
          {notice}
        </p>
      )}
      <form onSubmit={submit}>
        <label for="api_key">API key</label>
        <input
          id="api_key"
          name="api_key"
          type="password"
          autoComplete="off"
          spellcheck={false}
          required
          aria-describedby="key-help"
          aria-invalid={error ? true : undefined}
        />
        <p id="key-help" class="muted">
          A key of this account, e.g. the one in <code>.sched/credentials</code>. It is exchanged for a
          session cookie and not kept by this page. A read-only key opens a read-only console.
        </p>
        {error && (
          <p class="note error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          Sign in
        </button>
      </form>
    </main>
  );
}

function Shell({
  session,
  onSignOut,
  onExpired,
}: {
  session: Session;
  onSignOut: () => void;
  onExpired: () => void;
}) {
  const route = useRoute();
  const console = useMemo(
    () => ({
      client: clientFor(session),
      session,
      canWrite: session.scopes.includes('write'),
      expired: onExpired,
    }),
    [session, onExpired],
  );
  const section = route.path.split('/')[0] ?? '';
  const panels = PANELS.filter((p) => console.canWrite || !p.needsWrite);
  const panel = panels.find((p) => p.path === section);
  const main = useRef<HTMLElement>(null);
  const shown = useRef(false);
  // On a narrow screen the panels fold behind a menu button (the stylesheet hides it on a wide one).
  const [menuOpen, setMenuOpen] = useState(false);
  // A new view moves focus to its content, so keyboard and screen-reader users land where the change happened; the
  // first view leaves focus at the top of the page, where the skip link is.
  useEffect(() => {
    if (shown.current) main.current?.focus({ preventScroll: true });
    shown.current = true;
    setMenuOpen(false);
    document.title = `${panel?.label ?? 'Not found'} · sched console`;
  }, [route.path]);
  return (
    <ConsoleContext.Provider value={console}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href={href('')}>
          sched
        </a>
        <span class="who">{console.canWrite ? `scopes: ${session.scopes.join(', ')}` : 'read only'}</span>
        <button type="button" onClick={onSignOut}>
          Sign out
        </button>
        <button
          type="button"
          class="menu"
          aria-expanded={menuOpen}
          aria-controls="panels-nav"
          onClick={() => setMenuOpen(!menuOpen)}
        >
          Menu
        </button>
        <nav aria-label="Panels" id="panels-nav" class={menuOpen ? 'open' : undefined}>
          <ul>
            {panels.map((p) => (
              <li key={p.path}>
                <a href={href(p.path)} aria-current={p.path === section ? 'page' : undefined}>
                  {p.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      <main id="main" ref={main} tabIndex={-1}>
        {panel ? (
          <panel.component route={route} />
        ) : (
          <>
            <h1>Not found</h1>
            <p>
              No panel at this address. <a href={href('')}>Overview</a>
            </p>
          </>
        )}
      </main>
      <Shortcuts />
    </ConsoleContext.Provider>
  );
}

function App() {
  const [state, setState] = useState<{ session?: Session | null; notice?: string }>({});
  useEffect(() => {
    currentSession().then(
      (session) => setState({ session }),
      (err: Error) => setState({ session: null, notice: err.message }),
    );
  }, []);
  const onExpired = useMemo(
    () => () => setState({ session: null, notice: 'Your session has ended: sign in again.' }),
    [],
  );
  if (state.session === undefined)
    return (
      <p class="muted" aria-live="polite">
        Loading…
      </p>
    );
  if (state.session === null)
    return <SignIn notice={state.notice} onSignedIn={(session) => setState({ session })} />;
  const session = state.session;
  return (
    <Shell
      session={session}
      onExpired={onExpired}
      onSignOut={() => signOut(session).then(() => setState({ session: null, notice: 'Signed out.' }))}
    />
  );
}

interceptLinks();
const root = document.getElementById('app');
if (root) {
  root.textContent = '';
  render(<App />, root);
}
