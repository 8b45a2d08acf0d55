// The console's own sign-in endpoint (not part of /v1): the API key goes to the server once and is exchanged for
// an HttpOnly session cookie the page cannot read. What the page keeps is the CSRF token and the scopes, in memory.

import type { ApiKeyScope } from '@sched/contract';

export interface Session {
  csrf_token: string;
  scopes: ApiKeyScope[];
}

const SESSION_URL = '/console/session';

async function messageOf(res: Response): Promise<string> {
  try {
    const body = (await res.json()) as { message?: string; errors?: Record<string, string[]> };
    const fields = Object.values(body.errors ?? {}).flat();
    return fields[0] ?? body.message ?? `HTTP ${res.status}`;
  } catch {
    return `HTTP ${res.status}`;
  }
}

/** The session the cookie holds, or null when signed out or expired. */
export async function currentSession(): Promise<Session | null> {
  const res = await fetch(SESSION_URL, { headers: { accept: 'application/json' } });
  if (res.status === 401) return null;
  if (!res.ok) throw new Error(await messageOf(res));
  return ((await res.json()) as { data: Session }).data;
}

export async function signIn(apiKey: string): Promise<Session> {
  const res = await fetch(SESSION_URL, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ api_key: apiKey }),
  });
  if (!res.ok) throw new Error(await messageOf(res));
  return ((await res.json()) as { data: Session }).data;
}

export async function signOut(session: Session): Promise<void> {
  await fetch(SESSION_URL, { method: 'DELETE', headers: { 'x-sched-csrf': session.csrf_token } });
}
