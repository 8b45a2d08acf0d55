import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig, parseTrustProxy } from './config.js';

describe('SCHED_TRUST_PROXY', () => {
  it('trusts nobody by default, a hop count, or listed addresses and CIDRs', () => {
    expect(parseTrustProxy(undefined)).toBe(false);
    expect(parseTrustProxy('false')).toBe(false);
    expect(parseTrustProxy('0')).toBe(false);
    expect(parseTrustProxy('2')).toBe(2);
    expect(parseTrustProxy('10.0.0.0/8, 127.0.0.1,::1')).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
  });

  it('refuses true (any client could choose its IP) and names that are not addresses', () => {
    expect(() => loadConfig({ SCHED_TRUST_PROXY: 'true' })).toThrow(ConfigError);
    expect(() => loadConfig({ SCHED_TRUST_PROXY: 'loadbalancer.internal' })).toThrow(/SCHED_TRUST_PROXY/);
  });

  it('has inbound timeouts on by default', () => {
    const config = loadConfig({});
    expect(config.trustProxy).toBe(false);
    expect(config.httpRequestTimeoutMs).toBe(30_000);
    expect(config.httpConnectionTimeoutMs).toBeGreaterThan(0);
  });
});
