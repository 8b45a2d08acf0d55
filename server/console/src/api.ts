import { createClient, type SchedClient } from '@sched/sdk';
import type { Session } from './session.js';

/**
 * The typed client of /v1 for this page: no API key (the session cookie authenticates, same origin), and the
 * session's CSRF token on every request, which the server requires of cookie-authenticated writes.
 */
export function clientFor(session: Session): SchedClient {
  return createClient({ baseUrl: window.location.origin, headers: { 'x-sched-csrf': session.csrf_token } });
}
