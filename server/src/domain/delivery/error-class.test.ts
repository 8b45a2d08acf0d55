import { describe, expect, it } from 'vitest';
import { classifyError, impliedErrorClass, parseStatusCodeFilter } from './error-class.js';

describe('classifyError', () => {
  it('a 2xx has no class; any other status is http', () => {
    expect(classifyError({ kind: 'response', status: 200 })).toBeNull();
    expect(classifyError({ kind: 'response', status: 204 })).toBeNull();
    for (const status of [301, 404, 429, 500, 503, 101])
      expect(classifyError({ kind: 'response', status })).toBe('http');
  });

  it('timeouts and refused destinations', () => {
    expect(classifyError({ kind: 'timeout' })).toBe('timeout');
    expect(classifyError({ kind: 'blocked' })).toBe('blocked');
  });

  it('connection errors by code: resolver, TLS, the rest', () => {
    const conn = (code: string | undefined, message = 'x') =>
      classifyError({ kind: 'connection', code, message });
    expect(conn('ENOTFOUND')).toBe('dns');
    expect(conn('EAI_AGAIN')).toBe('dns');
    expect(conn('ERR_TLS_CERT_ALTNAME_INVALID')).toBe('tls');
    expect(conn('ERR_SSL_WRONG_VERSION_NUMBER')).toBe('tls');
    expect(conn('DEPTH_ZERO_SELF_SIGNED_CERT')).toBe('tls');
    expect(conn('CERT_HAS_EXPIRED')).toBe('tls');
    expect(conn('ECONNREFUSED')).toBe('connect');
    expect(conn('ECONNRESET')).toBe('connect');
    expect(conn('UND_ERR_SOCKET')).toBe('connect');
    expect(conn(undefined, 'getaddrinfo ENOTFOUND nowhere.example')).toBe('dns');
    expect(
      conn(undefined, 'Client network socket disconnected before secure TLS connection was established'),
    ).toBe('tls');
    expect(conn(undefined, 'other side closed')).toBe('connect');
  });
});

describe('parseStatusCodeFilter', () => {
  it('an exact code or a class', () => {
    expect(parseStatusCodeFilter('503')).toEqual({ exact: 503 });
    expect(parseStatusCodeFilter('4xx')).toEqual({ from: 400, to: 499 });
    expect(parseStatusCodeFilter('5XX')).toEqual({ from: 500, to: 599 });
  });
  it('anything else is refused', () => {
    for (const bad of ['', '99', '600', '6xx', 'abc', '4x', '50', '5000', '-1'])
      expect(parseStatusCodeFilter(bad)).toBeNull();
  });
});

describe('impliedErrorClass', () => {
  it('a code or class outside 2xx is always http; one taking in a 2xx implies nothing', () => {
    expect(impliedErrorClass({ exact: 503 })).toBe('http');
    expect(impliedErrorClass({ from: 400, to: 499 })).toBe('http');
    expect(impliedErrorClass({ from: 100, to: 199 })).toBe('http');
    expect(impliedErrorClass({ exact: 200 })).toBeNull();
    expect(impliedErrorClass({ from: 200, to: 299 })).toBeNull();
    // Every code of a class agrees with classifyError.
    for (const status of [101, 301, 404, 429, 500, 599])
      expect(impliedErrorClass({ exact: status })).toBe(classifyError({ kind: 'response', status }));
  });
});
