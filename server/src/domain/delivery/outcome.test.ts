import { describe, expect, it } from 'vitest';
import { classifyAttempt } from './outcome.js';

const response = (status: number) => classifyAttempt({ kind: 'response', status });

describe('classifyAttempt', () => {
  it.each([200, 201, 202, 204, 299])('%d is a success', (status) => {
    expect(response(status)).toBe('success');
  });

  it.each([400, 401, 403, 404, 405, 408, 409, 410, 413, 422, 499])('%d is permanent', (status) => {
    expect(response(status)).toBe('permanent');
  });

  it('429 is retryable', () => {
    expect(response(429)).toBe('retryable');
  });

  it.each([500, 502, 503, 504, 599])('%d is retryable', (status) => {
    expect(response(status)).toBe('retryable');
  });

  it.each([300, 301, 302, 303, 307, 308])('%d is permanent because redirects are not followed', (status) => {
    expect(response(status)).toBe('permanent');
  });

  it.each([100, 101, 103, 0, 600, 999])('anomalous status %d is retryable', (status) => {
    expect(response(status)).toBe('retryable');
  });

  it('timeouts and connection errors are retryable', () => {
    expect(classifyAttempt({ kind: 'timeout' })).toBe('retryable');
    expect(classifyAttempt({ kind: 'connection', message: 'ECONNREFUSED' })).toBe('retryable');
  });

  it('a destination refused by the SSRF guard is permanent', () => {
    expect(classifyAttempt({ kind: 'blocked', message: 'private address 10.0.0.1' })).toBe('permanent');
  });
});
