import ipaddr from 'ipaddr.js';

/**
 * Destination policy: which URLs and addresses an outgoing request (webhook delivery or callback) may reach.
 * Pure rules, used at create time (answered with a 422) and again by the outbound client before sending and
 * on every address it connects to (DNS rebinding).
 */

export type DestinationCheck = { ok: true; url: URL } | { ok: false; message: string };

// Names that resolve inside the host's network by convention, never to a public webhook receiver.
const BLOCKED_NAME_SUFFIXES = ['localhost', 'localdomain', 'internal', 'local', 'home.arpa'];

/**
 * Checks a destination URL before any connection. The WHATWG URL parser has already normalised numeric
 * IPv4 forms (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`), percent-encoded and
 * full-width host names, so the literal checked here is the one a socket would use.
 */
export function checkDestinationUrl(url: string, opts: { allowPrivate: boolean }): DestinationCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: 'must be a valid absolute URL' };
  }
  const allowedSchemes = opts.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!allowedSchemes.includes(parsed.protocol)) {
    return { ok: false, message: `must use ${allowedSchemes.map((s) => s.slice(0, -1)).join(' or ')}` };
  }
  // Credentials in a URL end up in logs and attempt records; headers are the place for them.
  if (parsed.username !== '' || parsed.password !== '') {
    return { ok: false, message: 'must not contain credentials; send them in a header' };
  }
  if (parsed.hostname === '') {
    return { ok: false, message: 'must have a host' };
  }
  if (opts.allowPrivate) {
    return { ok: true, url: parsed };
  }

  const literal = ipLiteral(parsed.hostname);
  if (literal !== null) {
    return isBlockedAddress(literal)
      ? { ok: false, message: 'must not target a private, loopback, link-local or reserved address' }
      : { ok: true, url: parsed };
  }
  const name = parsed.hostname.replace(/\.+$/, '').toLowerCase();
  if (BLOCKED_NAME_SUFFIXES.some((suffix) => name === suffix || name.endsWith(`.${suffix}`))) {
    return { ok: false, message: 'must not target a local or internal host name' };
  }
  if (!name.includes('.')) {
    // A single-label name is resolved through the host's search domains, i.e. to an internal machine.
    return { ok: false, message: 'must use a fully qualified public host name' };
  }
  return { ok: true, url: parsed };
}

/** Returns the IP text of a URL hostname that is an address literal, or null for a DNS name. */
function ipLiteral(hostname: string): string | null {
  if (hostname.startsWith('[') && hostname.endsWith(']')) {
    return hostname.slice(1, -1);
  }
  // The URL parser turns every numeric IPv4 form into dotted quad, so only that form needs recognising.
  return ipaddr.IPv4.isValidFourPartDecimal(hostname) ? hostname : null;
}

/**
 * True when an address must not be reached: anything but public unicast. Text that is not an IP address
 * counts as blocked (fail closed). Addresses that embed an IPv4 address (IPv4-mapped, IPv4-translated,
 * NAT64 64:ff9b::/96, 6to4, Teredo) are judged by the embedded address.
 */
export function isBlockedAddress(ip: string): boolean {
  const text = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (!ipaddr.isValid(text)) {
    return true;
  }
  const address = ipaddr.parse(text);
  return address.kind() === 'ipv4'
    ? isBlockedV4(address as ipaddr.IPv4)
    : isBlockedV6(address as ipaddr.IPv6);
}

// ipaddr.js names every special-purpose IPv4 block (private, loopback, linkLocal, carrierGradeNat,
// multicast, broadcast, unspecified, reserved incl. documentation, benchmarking 198.18/15 and 240/4,
// as112, amt); only what it leaves as 'unicast' is public.
function isBlockedV4(address: ipaddr.IPv4): boolean {
  return address.range() !== 'unicast';
}

function isBlockedV6(address: ipaddr.IPv6): boolean {
  const parts = address.parts;
  switch (address.range()) {
    case 'unicast':
      // ::/96 holds the deprecated IPv4-compatible addresses (::7f00:1); :: and ::1 are matched earlier.
      return parts.slice(0, 6).every((part) => part === 0);
    case 'ipv4Mapped':
    case 'rfc6145':
      return isBlockedV4(embeddedV4(parts[6], parts[7]));
    case 'rfc6052':
      // 64:ff9b::/96 is the well-known NAT64 prefix; 64:ff9b:1::/48 is for local use only.
      return parts[2] !== 0 || parts[3] !== 0 || parts[4] !== 0 || parts[5] !== 0
        ? true
        : isBlockedV4(embeddedV4(parts[6], parts[7]));
    case '6to4':
      return isBlockedV4(embeddedV4(parts[1], parts[2]));
    case 'teredo': {
      // 2001:0:<server v4>:<flags>:<port>:<client v4 xor ffff:ffff>
      const server = embeddedV4(parts[2], parts[3]);
      const client = embeddedV4((parts[6] ?? 0) ^ 0xffff, (parts[7] ?? 0) ^ 0xffff);
      return isBlockedV4(server) || isBlockedV4(client);
    }
    default:
      return true;
  }
}

function embeddedV4(high: number | undefined, low: number | undefined): ipaddr.IPv4 {
  const h = high ?? 0;
  const l = low ?? 0;
  return new ipaddr.IPv4([h >> 8, h & 0xff, l >> 8, l & 0xff]);
}
