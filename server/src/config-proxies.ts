// The values of SCHED_TRUST_PROXY and SCHED_CORS_ORIGINS: who may name the client, and which pages may call /v1.
import { parseNetworks } from './domain/destinations/policy.js';

export type TrustProxy = false | number | string[];

/**
 * `SCHED_TRUST_PROXY`: unset or `false` trusts no proxy (the socket's peer is the client); a number trusts that
 * many hops of `X-Forwarded-For`; otherwise a comma-separated list of proxy addresses or CIDRs (`10.0.0.0/8`).
 * `true` (trust anyone) is refused: any client could then choose its own IP and escape per-IP limits.
 */
export function parseTrustProxy(value: string | undefined): TrustProxy | { error: string } {
  const v = value?.trim() ?? '';
  if (v === '' || v === 'false') return false;
  if (v === 'true') return { error: 'true would trust any client; give a hop count or the proxy addresses' };
  if (/^\d+$/.test(v)) return Number(v) === 0 ? false : Number(v);
  const list = v
    .split(',')
    .map((x) => x.trim())
    .filter(Boolean);
  const networks = parseNetworks(v);
  return 'error' in networks ? networks : list;
}

/** SCHED_CORS_ORIGINS: `*` or origins (`https://app.example.com`, `http://localhost:5173`), comma-separated. */
export function parseCorsOrigins(value: string | undefined): string[] | { error: string } {
  const list = (value ?? '')
    .split(',')
    .map((o) => o.trim())
    .filter(Boolean);
  for (const origin of list) {
    if (origin === '*') continue;
    let url: URL | undefined;
    try {
      url = new URL(origin);
    } catch {
      url = undefined;
    }
    if (!url || !['http:', 'https:'].includes(url.protocol) || url.origin !== origin.replace(/\/$/, '')) {
      return { error: `not an origin (scheme://host[:port], nothing after): ${origin}` };
    }
  }
  return list.map((o) => o.replace(/\/$/, ''));
}
