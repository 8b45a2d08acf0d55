import { createHash, createHmac } from 'node:crypto';

/** The cookie holding a console session id (HttpOnly, SameSite=Strict, Secure behind https). */
export const SESSION_COOKIE = 'sched_session';

/** The header a cookie-authenticated write must carry, holding the session's CSRF token. */
export const CSRF_HEADER = 'x-sched-csrf';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;

/** Only this hash of a session id is stored, as for API keys: 256 random bits leave nothing to brute-force. */
export function hashSessionId(id: string): string {
  return createHash('sha256').update(`console-session:${id}`, 'utf8').digest('hex');
}

/**
 * The session's CSRF token, derived from the id the cookie carries (nothing more to store). A page on another
 * origin can make the browser send the cookie but can neither read it nor this token, and cannot set a custom
 * header without a CORS preflight the service never grants.
 */
export function csrfTokenOf(id: string): string {
  return createHmac('sha256', id).update('sched-console-csrf').digest('base64url');
}

/** The instant before which a session's last use means it has expired. */
export function idleCutoff(now: Date): Date {
  return new Date(now.getTime() - SESSION_IDLE_MS);
}

/** A cookie's value by name from a `Cookie` header; null when absent. */
export function cookieValue(header: string | undefined, name: string): string | null {
  if (!header) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

/** The `Set-Cookie` value that stores (or, with `id` null, clears) the session cookie. */
export function sessionCookie(id: string | null, secure: boolean): string {
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  if (id === null) return [`${SESSION_COOKIE}=`, 'Max-Age=0', ...attributes].join('; ');
  // A browser-session cookie: the server decides expiry (12 h idle), and closing the browser forgets it.
  return [`${SESSION_COOKIE}=${id}`, ...attributes].join('; ');
}
