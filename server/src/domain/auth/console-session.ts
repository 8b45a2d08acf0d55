import { createHash, createHmac } from 'node:crypto';

/**
 * The cookie holding a console session id (HttpOnly, SameSite=Strict). Served over https it is
 * `__Host-sched_session` with `Secure`: the prefix makes browsers refuse one set with a `Domain` or a narrower
 * `Path`, so a sibling subdomain cannot plant a cookie that shadows it. Browsers refuse the prefix without `Secure`,
 * which plain http (development) cannot have: there it is `sched_session`.
 */
export const SESSION_COOKIE = 'sched_session';
export const SECURE_SESSION_COOKIE = '__Host-sched_session';

/** The session cookie's name over https (`secure`) or plain http. */
export function sessionCookieName(secure: boolean): string {
  return secure ? SECURE_SESSION_COOKIE : SESSION_COOKIE;
}

/** The header a cookie-authenticated write must carry, holding the session's CSRF token. */
export const CSRF_HEADER = 'x-sched-csrf';

/** A session ends after this long without a request. */
export const SESSION_IDLE_MS = 12 * 3_600_000;

/** And this long after sign-in, however busy: a stolen cookie does not live for ever. */
export const SESSION_LIFETIME_MS = 7 * 24 * 3_600_000;

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

/** The instant before which a session's sign-in means it has expired, however recently it was used. */
export function lifetimeCutoff(now: Date): Date {
  return new Date(now.getTime() - SESSION_LIFETIME_MS);
}

/**
 * Whether a console may be signed into over this connection: always over https; over plain http only outside
 * production, or where the public URL is on the local machine (a session cookie sent in clear text over a network
 * can be read by anyone on the path).
 */
export function signInAllowed(args: { secure: boolean; production: boolean; publicUrl: string }): boolean {
  if (args.secure || !args.production) return true;
  const host = URL.canParse(args.publicUrl) ? new URL(args.publicUrl).hostname : '';
  return ['localhost', '127.0.0.1', '[::1]'].includes(host);
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
  const name = sessionCookieName(secure);
  const attributes = ['Path=/', 'HttpOnly', 'SameSite=Strict', ...(secure ? ['Secure'] : [])];
  if (id === null) return [`${name}=`, 'Max-Age=0', ...attributes].join('; ');
  // A browser-session cookie: the server decides expiry (12 h idle, 7 days in all), and closing the browser forgets it.
  return [`${name}=${id}`, ...attributes].join('; ');
}
