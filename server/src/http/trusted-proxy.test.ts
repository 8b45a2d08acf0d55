import { describe, expect, it } from 'vitest';
import { trustedPeer } from './trusted-proxy.js';

describe('trustedPeer', () => {
  it('trusts nobody by default and any peer with a hop count', () => {
    expect(trustedPeer(false)('127.0.0.1')).toBe(false);
    expect(trustedPeer(1)('203.0.113.9')).toBe(true);
  });

  it('trusts only listed addresses and ranges, IPv4-mapped peers included', () => {
    const trusted = trustedPeer(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(trusted('10.1.2.3')).toBe(true);
    expect(trusted('::ffff:10.1.2.3')).toBe(true);
    expect(trusted('127.0.0.1')).toBe(true);
    expect(trusted('::1')).toBe(true);
    expect(trusted('11.0.0.1')).toBe(false);
    expect(trusted('::2')).toBe(false);
    expect(trusted(undefined)).toBe(false);
    expect(trusted('not an address')).toBe(false);
  });
});
