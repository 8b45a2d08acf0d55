import ipaddr from 'ipaddr.js';
import type { TrustProxy } from '../config-proxies.js';

/** `10.0.0.0/8` or a plain address (a /32 or /128), as parsed once at start. */
function parseRange(text: string): [ipaddr.IPv4 | ipaddr.IPv6, number] {
  if (text.includes('/')) return ipaddr.parseCIDR(text);
  const address = ipaddr.parse(text);
  return [address, address.kind() === 'ipv4' ? 32 : 128];
}

/**
 * Whether the socket's peer is one of the proxies `SCHED_TRUST_PROXY` names, and so may set headers about the
 * client (`X-Request-Id`). A hop count trusts the peer whatever it is: the operator said a proxy is always there.
 */
export function trustedPeer(trustProxy: TrustProxy): (address: string | undefined) => boolean {
  if (trustProxy === false) return () => false;
  if (typeof trustProxy === 'number') return () => true;
  const ranges = trustProxy.map(parseRange);
  return (address) => {
    if (!address || !ipaddr.isValid(address)) return false;
    let peer = ipaddr.parse(address);
    if (peer.kind() === 'ipv6' && (peer as ipaddr.IPv6).isIPv4MappedAddress()) {
      peer = (peer as ipaddr.IPv6).toIPv4Address();
    }
    return ranges.some(([range, bits]) => range.kind() === peer.kind() && peer.match(range, bits));
  };
}
