import { describe, expect, it } from 'vitest';
import {
  cookieValue,
  csrfTokenOf,
  hashSessionId,
  idleCutoff,
  SESSION_COOKIE,
  sessionCookie,
} from './console-session.js';

describe('console session rules', () => {
  it('reads one cookie among several', () => {
    expect(cookieValue('a=1; sched_session=abc; b=2', SESSION_COOKIE)).toBe('abc');
    expect(cookieValue('sched_session_x=1', SESSION_COOKIE)).toBeNull();
    expect(cookieValue(undefined, SESSION_COOKIE)).toBeNull();
    expect(cookieValue('sched_session=', SESSION_COOKIE)).toBeNull();
  });

  it('sets an HttpOnly SameSite=Strict cookie, Secure only behind https, and clears it', () => {
    expect(sessionCookie('abc', false)).toBe('sched_session=abc; Path=/; HttpOnly; SameSite=Strict');
    expect(sessionCookie('abc', true)).toContain('; Secure');
    expect(sessionCookie(null, false)).toMatch(/^sched_session=; Max-Age=0; .*HttpOnly/);
  });

  it('derives distinct hashes and CSRF tokens per session id, neither equal to the id', () => {
    expect(hashSessionId('a')).not.toBe(hashSessionId('b'));
    expect(hashSessionId('a')).toMatch(/^[0-9a-f]{64}$/);
    expect(csrfTokenOf('a')).not.toBe(csrfTokenOf('b'));
    expect(csrfTokenOf('a')).toBe(csrfTokenOf('a'));
  });

  it('expires after 12 idle hours', () => {
    expect(idleCutoff(new Date('2026-01-01T12:00:00Z')).toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });
});
