import { describe, expect, it } from 'vitest';
import {
  cookieValue,
  csrfTokenOf,
  hashSessionId,
  idleCutoff,
  lifetimeCutoff,
  SECURE_SESSION_COOKIE,
  SESSION_COOKIE,
  sessionCookie,
  signInAllowed,
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
    expect(sessionCookie(null, false)).toMatch(/^sched_session=; Max-Age=0; .*HttpOnly/);
  });

  it('is __Host- prefixed and Secure over https, with Path=/ and no Domain', () => {
    expect(sessionCookie('abc', true)).toBe(
      '__Host-sched_session=abc; Path=/; HttpOnly; SameSite=Strict; Secure',
    );
    expect(sessionCookie(null, true)).toMatch(/^__Host-sched_session=; Max-Age=0; .*; Secure$/);
    // A planted unprefixed cookie is not the prefixed one.
    expect(cookieValue('sched_session=planted; __Host-sched_session=real', SECURE_SESSION_COOKIE)).toBe(
      'real',
    );
    expect(cookieValue('sched_session=planted', SECURE_SESSION_COOKIE)).toBeNull();
  });

  it('refuses sign-in over plain http in production unless the public URL is this machine', () => {
    const at = (publicUrl: string, secure = false, production = true) =>
      signInAllowed({ secure, production, publicUrl });
    expect(at('http://sched.example.com')).toBe(false);
    expect(at('http://sched.example.com', true)).toBe(true);
    expect(at('http://sched.example.com', false, false)).toBe(true);
    expect(at('http://localhost:8080')).toBe(true);
    expect(at('http://127.0.0.1:8080')).toBe(true);
    expect(at('http://localhost.evil.example')).toBe(false);
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

  it('expires 7 days after sign-in however busy', () => {
    expect(lifetimeCutoff(new Date('2026-01-08T12:00:00Z')).toISOString()).toBe('2026-01-01T12:00:00.000Z');
  });
});
