import { describe, expect, it } from 'vitest';
import {
  checkDestinationUrl,
  destinationSchemes,
  inNetworks,
  isBlockedAddress,
  isPlainHttpAllowed,
  isReachableAddress,
  PLAIN_HTTP_MESSAGE,
  type PrivateAccess,
  parseNetworks,
} from './policy.js';

const strict = { allowPrivate: false };
const lenient = { allowPrivate: true };

describe('isBlockedAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['10.1.2.3', 'private 10/8'],
    ['172.16.0.1', 'private 172.16/12'],
    ['172.31.255.255', 'private 172.16/12'],
    ['192.168.1.1', 'private 192.168/16'],
    ['169.254.169.254', 'cloud metadata (link-local)'],
    ['169.254.1.1', 'link-local'],
    ['100.64.0.1', 'CGNAT'],
    ['100.100.100.200', 'CGNAT (Alibaba metadata)'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'this network 0/8'],
    ['192.0.0.1', 'IETF protocol assignments'],
    ['192.0.2.1', 'documentation TEST-NET-1'],
    ['198.51.100.1', 'documentation TEST-NET-2'],
    ['203.0.113.1', 'documentation TEST-NET-3'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['240.0.0.1', 'reserved 240/4'],
    ['::1', 'IPv6 loopback'],
    ['::', 'IPv6 unspecified'],
    ['fe80::1', 'IPv6 link-local'],
    ['fe80::1%eth0', 'IPv6 link-local with zone'],
    ['fc00::1', 'unique-local'],
    ['fd00:ec2::254', 'unique-local (AWS metadata)'],
    ['fec0::1', 'deprecated site-local'],
    ['ff02::1', 'IPv6 multicast'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback, hex form'],
    ['::ffff:10.0.0.1', 'IPv4-mapped private'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata'],
    ['::ffff:0:127.0.0.1', 'IPv4-translated loopback'],
    ['::7f00:1', 'IPv4-compatible loopback'],
    ['::808:808', 'IPv4-compatible (deprecated) even when public'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::a00:1', 'NAT64 of 10.0.0.1'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['64:ff9b:1::808:808', 'local-use NAT64 prefix'],
    ['2002:7f00:1::1', '6to4 of loopback'],
    ['2002:a00:1::1', '6to4 of 10.0.0.1'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo with client 127.0.0.1'],
    ['2001:db8::1', 'IPv6 documentation'],
    ['2001:2::1', 'IPv6 benchmarking'],
    ['100::1', 'IPv6 discard'],
    ['[::1]', 'bracketed IPv6 loopback'],
    ['127.1', 'short IPv4 loopback'],
    ['2130706433', 'decimal IPv4 loopback'],
    ['example.com', 'not an address: fail closed'],
    ['', 'empty: fail closed'],
  ])('blocks %s (%s)', (ip) => {
    expect(isBlockedAddress(ip)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '93.184.216.34',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '198.20.0.1',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '[2606:4700:4700::1111]',
  ])('allows public %s', (ip) => {
    expect(isBlockedAddress(ip)).toBe(false);
  });
});

describe('checkDestinationUrl', () => {
  it('accepts a public https URL and returns it parsed', () => {
    const result = checkDestinationUrl('https://hooks.example.com/in?x=1', strict);
    expect(result.ok).toBe(true);
    if (result.ok) {
      expect(result.url.hostname).toBe('hooks.example.com');
      expect(result.url.search).toBe('?x=1');
    }
  });

  it.each([
    'https://93.184.216.34/hook',
    'https://[2606:4700:4700::1111]:8443/hook',
    'https://example.com./trailing-dot',
    // Names are judged by their resolved address when connecting, not here.
    'https://127.0.0.1.nip.io/',
  ])('accepts %s', (url) => {
    expect(checkDestinationUrl(url, strict).ok).toBe(true);
  });

  it('requires https unless private destinations are allowed', () => {
    expect(checkDestinationUrl('http://example.com/', strict)).toEqual({
      ok: false,
      message: 'must use https',
    });
    expect(checkDestinationUrl('http://example.com/', lenient).ok).toBe(true);
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'javascript:alert(1)',
    'gopher://example.com/',
    'ws://example.com/',
  ])('refuses the scheme of %s in both modes', (url) => {
    expect(checkDestinationUrl(url, strict).ok).toBe(false);
    expect(checkDestinationUrl(url, lenient)).toEqual({ ok: false, message: 'must use https or http' });
  });

  it.each(['https://user:secret@example.com/', 'https://user@example.com/', 'https://:secret@example.com/'])(
    'refuses credentials in %s in both modes',
    (url) => {
      const expected = { ok: false, message: 'must not contain credentials; send them in a header' };
      expect(checkDestinationUrl(url, strict)).toEqual(expected);
      expect(checkDestinationUrl(url, lenient)).toEqual(expected);
    },
  );

  it.each(['not a url', '/relative/path', '', 'https://'])('refuses the malformed %j', (url) => {
    expect(checkDestinationUrl(url, strict).ok).toBe(false);
  });

  // Every form below reaches a blocked address; the WHATWG parser normalises the IPv4 ones to dotted quad.
  it.each([
    'https://127.0.0.1/',
    'https://2130706433/',
    'https://0177.0.0.1/',
    'https://0x7f.1/',
    'https://0x7f000001/',
    'https://127.1/',
    'https://127.0.0.1./',
    'https://%31%32%37.0.0.1/',
    'https://\uff11\uff12\uff17.\uff10.\uff10.\uff11/',
    'https://0.0.0.0/',
    'https://0/',
    'https://[::1]/',
    'https://[::]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    'https://[0:0:0:0:0:ffff:127.0.0.1]/',
    'https://[::127.0.0.1]/',
    'https://[64:ff9b::127.0.0.1]/',
    'https://[fe80::1]/',
    'https://[fd00:ec2::254]/',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/',
    'https://172.16.0.1/',
    'https://192.168.0.1/',
    'https://100.64.0.1/',
    'https://224.0.0.1/',
  ])('blocks the address literal in %s', (url) => {
    expect(checkDestinationUrl(url, strict)).toEqual({
      ok: false,
      message: 'must not target a private, loopback, link-local or reserved address',
    });
    expect(checkDestinationUrl(url, lenient).ok).toBe(true);
  });

  it.each([
    'https://localhost/',
    'https://LOCALHOST:8443/',
    'https://localhost./',
    'https://api.localhost/',
    'https://metadata.google.internal/computeMetadata/v1/',
    'https://db.internal/',
    'https://printer.local/',
    'https://router.home.arpa/',
    'https://box.localdomain/',
  ])('blocks the local name in %s', (url) => {
    expect(checkDestinationUrl(url, strict)).toEqual({
      ok: false,
      message: 'must not target a local or internal host name',
    });
    expect(checkDestinationUrl(url, lenient).ok).toBe(true);
  });

  it.each(['https://intranet/', 'https://metadata/', 'https://intranet./'])(
    'blocks the single-label name in %s',
    (url) => {
      expect(checkDestinationUrl(url, strict)).toEqual({
        ok: false,
        message: 'must use a fully qualified public host name',
      });
    },
  );
});

/** The networks of a list that parses (the test fails on one that does not). */
function networksOf(text: string): PrivateAccess {
  const parsed = parseNetworks(text);
  if ('error' in parsed) throw new Error(parsed.error);
  return parsed;
}

describe('allowed private networks', () => {
  const internal = networksOf('10.20.0.0/16, 192.168.1.7,fd00:1::/64');

  it('reads addresses and CIDRs, an address alone being its own network', () => {
    const parsed = parseNetworks(' 10.20.0.0/16, 192.168.1.7 ,fd00:1::/64,');
    expect('networks' in parsed && parsed.networks.map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual([
      '10.20.0.0/16',
      '192.168.1.7/32',
      'fd00:1::/64',
    ]);
    expect(parseNetworks('')).toEqual({ networks: [] });
  });

  it.each(['10.0.0.0/33', '300.1.1.1', 'intranet', '10.0.0.0/8/1', 'fd00::/129', '10.0.0.0/-1'])(
    'refuses the entry %s by name',
    (entry) => {
      expect(parseNetworks(`10.0.0.0/8,${entry}`)).toEqual({ error: `not an IP address or CIDR: ${entry}` });
    },
  );

  it('keeps an IPv4-mapped network as the IPv4 one it names', () => {
    const access = networksOf('::ffff:127.0.0.0/104');
    expect(isReachableAddress('127.0.0.1', access)).toBe(true);
    expect(isReachableAddress('::ffff:127.0.0.9', access)).toBe(true);
    expect(isReachableAddress('10.0.0.1', access)).toBe(false);
  });

  it.each([
    ['10.20.3.4', true],
    ['10.21.0.1', false],
    ['192.168.1.7', true],
    ['192.168.1.8', false],
    ['::ffff:10.20.0.1', true],
    ['[fd00:1::5]', true],
    ['fd00:2::5', false],
    ['127.0.0.1', false],
    ['169.254.169.254', false],
    ['not an address', false],
  ])('%s is in the networks: %s', (ip, inside) => {
    expect(typeof internal === 'object' && inNetworks(ip, internal.networks)).toBe(inside);
    // Inside the networks a non-public address may be reached; outside, only a public one.
    expect(isReachableAddress(ip, internal)).toBe(inside);
  });

  it('reaches public addresses as ever, and sends plain http only into the networks', () => {
    expect(isReachableAddress('93.184.216.34', internal)).toBe(true);
    expect(isPlainHttpAllowed('93.184.216.34', internal)).toBe(false);
    expect(isPlainHttpAllowed('10.20.0.1', internal)).toBe(true);
    expect(isPlainHttpAllowed('10.20.0.1', false)).toBe(false);
    expect(isPlainHttpAllowed('93.184.216.34', true)).toBe(true);
    expect(destinationSchemes(internal)).toEqual(['https:', 'http:']);
    expect(destinationSchemes(false)).toEqual(['https:']);
  });

  it('judges a URL: literals by the networks, names when connecting', () => {
    const check = (url: string) => {
      const result = checkDestinationUrl(url, { allowPrivate: internal });
      return result.ok ? 'ok' : result.message;
    };
    expect(check('http://10.20.0.9:8080/hook')).toBe('ok');
    expect(check('https://[fd00:1::5]/hook')).toBe('ok');
    expect(check('https://10.21.0.9/hook')).toBe(
      'must not target a private, loopback, link-local or reserved address',
    );
    expect(check('https://169.254.169.254/latest/meta-data/')).toBe(
      'must not target a private, loopback, link-local or reserved address',
    );
    expect(check('https://93.184.216.34/hook')).toBe('ok');
    expect(check('http://93.184.216.34/hook')).toBe(PLAIN_HTTP_MESSAGE);
    // Internal names may resolve into the networks: the outbound client judges the address it connects to.
    expect(check('http://billing.svc.cluster.local/hook')).toBe('ok');
    expect(check('https://intranet/hook')).toBe('ok');
    expect(check('ftp://10.20.0.9/')).toBe('must use https or http');
  });
});
