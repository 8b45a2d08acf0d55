import { useEffect, useState } from 'preact/hooks';

/** Every view lives under this prefix; the rest of the path and the query string are the view's state. */
const BASE = '/console';

export interface Route {
  /** Path below /console, without leading slash: `actions/<id>`. */
  path: string;
  query: URLSearchParams;
}

function current(): Route {
  const path = window.location.pathname.startsWith(BASE)
    ? window.location.pathname.slice(BASE.length).replace(/^\/+/, '')
    : '';
  return { path, query: new URLSearchParams(window.location.search) };
}

const listeners = new Set<() => void>();

/** Goes to a view: `navigate('actions', { status: 'failed' })`; empty values are left out of the URL. */
export function navigate(
  path: string,
  query: Record<string, string | undefined> = {},
  replace = false,
): void {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const qs = params.toString();
  const url = `${BASE}/${path}${qs ? `?${qs}` : ''}`;
  if (replace) window.history.replaceState(null, '', url);
  else window.history.pushState(null, '', url);
  for (const l of listeners) l();
}

/** A link's href for a view. */
export function href(path: string, query: Record<string, string | undefined> = {}): string {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v) params.set(k, v);
  const qs = params.toString();
  return `${BASE}/${path}${qs ? `?${qs}` : ''}`;
}

/** The current view, re-rendered on navigation (links, back and forward). */
export function useRoute(): Route {
  const [route, setRoute] = useState(current);
  useEffect(() => {
    const update = () => setRoute(current());
    listeners.add(update);
    window.addEventListener('popstate', update);
    return () => {
      listeners.delete(update);
      window.removeEventListener('popstate', update);
    };
  }, []);
  return route;
}

/** Same-origin links under /console navigate in the page instead of reloading it. */
export function interceptLinks(): void {
  document.addEventListener('click', (e) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    const a = (e.target as Element | null)?.closest?.('a');
    if (!a || a.target || a.origin !== window.location.origin || !a.pathname.startsWith(BASE)) return;
    // An in-page anchor (the skip link) is the browser's to follow: it moves focus, which a pushState would not.
    if (a.hash && a.pathname === window.location.pathname) return;
    e.preventDefault();
    window.history.pushState(null, '', a.pathname + a.search);
    for (const l of listeners) l();
  });
}
