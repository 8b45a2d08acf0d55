import ipaddr from 'ipaddr.js';

/**
 * Destination policy: which URLs and addresses an outgoing request (webhook delivery or callback) may reach.
 * Pure rules, used at create time (answered with a 422) and again by the outbound client before sending and
 * on every address it connects to (DNS rebinding).
 */

export type DestinationCheck = { ok: true; url: URL } | { ok: false; message: string };

/** A network destinations may reach although it is not public: an address and its prefix length. */
export type Network = readonly [ipaddr.IPv4 | ipaddr.IPv6, number];

/**
 * Which non-public addresses destinations may reach: none (`false`, the default), every one (`true`: development and
 * tests), or the networks an operator listed, so a production server can call its own internal services without
 * turning the guard off. Plain `http:` goes only where a non-public address may be reached: into those networks.
 */
export type PrivateAccess = boolean | { readonly networks: readonly Network[] };

/**
 * Reads a comma-separated list of networks (`10.0.0.0/8, 192.168.1.20, fd00::/8`; an address alone is its own
 * network), or says which entry is not one. An IPv4-mapped IPv6 network is kept as the IPv4 one it names.
 */
export function parseNetworks(text: string): { networks: Network[] } | { error: string } {
  const networks: Network[] = [];
  for (const entry of text.split(',').map((e) => e.trim())) {
    if (entry === '') continue;
    const network = parseNetwork(entry);
    if (network === null) return { error: `not an IP address or CIDR: ${entry}` };
    networks.push(network);
  }
  return { networks };
}

function parseNetwork(entry: string): Network | null {
  try {
    if (entry.includes('/')) {
      const [address, bits] = ipaddr.parseCIDR(entry);
      const base = unmapped(address);
      return base === address ? [address, bits] : bits >= 96 ? [base, bits - 96] : [address, bits];
    }
    const address = unmapped(ipaddr.parse(entry));
    return [address, address.kind() === 'ipv4' ? 32 : 128];
  } catch {
    return null;
  }
}

/**
 * Addresses no allowance may open: the clouds' instance metadata services, which hand out the machine's credentials
 * (AWS, GCP and Azure on 169.254.169.254, AWS's IPv6 one, Alibaba's), and the IPv4 ones through the NAT64 prefix.
 */
const NEVER_ALLOWED = [
  '169.254.169.254',
  'fd00:ec2::254',
  '100.100.100.200',
  '64:ff9b::a9fe:a9fe',
  '64:ff9b::6464:64c8',
];

/** Why a network may not be named as a destination's private network, or null when it may. */
export function destinationNetworkProblem([base, bits]: Network): string | null {
  const text = `${base.toString()}/${bits}`;
  if (bits === 0) return `${text} would allow every address: the guard would be off`;
  const metadata = NEVER_ALLOWED.find((ip) => inNetworks(ip, [[base, bits]]));
  return metadata === undefined
    ? null
    : `${text} holds the cloud metadata address ${metadata}, which hands out the machine's credentials`;
}

/** True when an address lies in one of the networks (an IPv4-mapped address is matched as the IPv4 one). */
export function inNetworks(ip: string, networks: readonly Network[]): boolean {
  const address = addressOf(ip);
  return address !== null && within(address, networks);
}

/** True when a destination may connect to this address: a public one, or a non-public one the access allows. */
export function isReachableAddress(ip: string, access: PrivateAccess): boolean {
  if (access === true) return true;
  const address = addressOf(ip);
  return address !== null && reachable(address, access);
}

/** True when plain `http:` may be sent to this address: only where non-public addresses may be reached. */
export function isPlainHttpAllowed(ip: string, access: PrivateAccess): boolean {
  if (access === true) return true;
  const address = addressOf(ip);
  return address !== null && plainHttpAllowed(address, access);
}

/** An address, parsed once for the checks that read it; null when the text is not one (which fails closed). */
function addressOf(ip: string): ipaddr.IPv4 | ipaddr.IPv6 | null {
  try {
    return ipaddr.parse(ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip);
  } catch {
    return null;
  }
}

function reachable(address: ipaddr.IPv4 | ipaddr.IPv6, access: PrivateAccess): boolean {
  if (access === true || !blocked(address)) return true;
  return access !== false && within(address, access.networks);
}

function plainHttpAllowed(address: ipaddr.IPv4 | ipaddr.IPv6, access: PrivateAccess): boolean {
  return access === true || (access !== false && within(address, access.networks));
}

function within(address: ipaddr.IPv4 | ipaddr.IPv6, networks: readonly Network[]): boolean {
  const a = unmapped(address);
  return networks.some(([base, bits]) => base.kind() === a.kind() && a.match(base, bits));
}

/** An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) as the IPv4 address it names; any other as it is. */
function unmapped(address: ipaddr.IPv4 | ipaddr.IPv6): ipaddr.IPv4 | ipaddr.IPv6 {
  return address.kind() === 'ipv6' && (address as ipaddr.IPv6).isIPv4MappedAddress()
    ? (address as ipaddr.IPv6).toIPv4Address()
    : address;
}

/** The URL schemes a destination may use. */
export function destinationSchemes(access: PrivateAccess): string[] {
  return access === false ? ['https:'] : ['https:', 'http:'];
}

// Names that resolve inside the host's network by convention, never to a public webhook receiver.
const BLOCKED_NAME_SUFFIXES = ['localhost', 'localdomain', 'internal', 'local', 'home.arpa'];

/**
 * Checks a destination URL before any connection. The WHATWG URL parser has already normalised numeric
 * IPv4 forms (decimal `2130706433`, octal `0177.0.0.1`, hex `0x7f.1`, short `127.1`), percent-encoded and
 * full-width host names, so the literal checked here is the one a socket would use.
 */
export function checkDestinationUrl(url: string, opts: { allowPrivate: PrivateAccess }): DestinationCheck {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { ok: false, message: 'must be a valid absolute URL' };
  }
  const access = opts.allowPrivate;
  const allowedSchemes = destinationSchemes(access);
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
  if (access === true) {
    return { ok: true, url: parsed };
  }

  const literal = ipLiteral(parsed.hostname);
  if (literal !== null) {
    const address = addressOf(literal);
    if (address === null || !reachable(address, access)) {
      return { ok: false, message: 'must not target a private, loopback, link-local or reserved address' };
    }
    return parsed.protocol === 'http:' && !plainHttpAllowed(address, access)
      ? { ok: false, message: PLAIN_HTTP_MESSAGE }
      : { ok: true, url: parsed };
  }
  if (access !== false) {
    // Internal names (`billing.svc.cluster.local`) may resolve into the allowed networks: the outbound client
    // judges the address it connects to, as it does for every name.
    return { ok: true, url: parsed };
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

/** Why plain `http:` was refused where the server allows some private networks. */
export const PLAIN_HTTP_MESSAGE = 'must use https outside the private networks this server allows';

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
  const address = addressOf(ip);
  return address === null || blocked(address);
}

function blocked(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
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
