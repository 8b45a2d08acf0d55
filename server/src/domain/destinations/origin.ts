/**
 * A destination is an **origin**: scheme, host and port, the unit a receiver lives at. Two ports of one host, or
 * http and https of one host, are two receivers that fail apart, so the circuit breaker, flow control, pause and
 * settings are kept per origin. The spelling is the URL standard's serialisation: lower-case scheme and host, an
 * internationalised name as punycode, an IPv6 literal in brackets, the scheme's default port (443, 80) left out and
 * any other written out, and no trailing dot on the name (`https://api.example.com`, `http://127.0.0.1:9000`).
 * Pure: no I/O.
 */

const SCHEMES = new Set(['http:', 'https:']);

/** The pair a destination is named by: its origin, and the host it is on (as `destination_host` names it). */
export interface DestinationKey {
  origin: string;
  host: string;
}

function keyOf(url: URL): DestinationKey | null {
  if (!SCHEMES.has(url.protocol)) return null;
  const host = url.hostname.replace(/\.+$/, '').toLowerCase();
  if (host === '') return null;
  return { origin: `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`, host };
}

/** The origin an action's request goes to; null when the URL does not parse or is not http(s). */
export function destinationOrigin(url: string): string | null {
  try {
    return keyOf(new URL(url))?.origin ?? null;
  } catch {
    return null;
  }
}

/** The host part of an origin this module wrote (brackets kept for an IPv6 literal). */
export function hostOfOrigin(origin: string): string {
  return new URL(origin).hostname;
}

/** Whether a destination as a caller wrote it names its scheme (`http://…`), rather than a bare host. */
export function namesScheme(input: string): boolean {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(input.trim());
}

/**
 * A destination as a caller names it in a path: an origin (`http://127.0.0.1:9000`, nothing after it but an
 * optional `/`), or a bare host, which means that host over https on the default port (`api.example.com` is
 * `https://api.example.com`; `api.example.com:8443` is `https://api.example.com:8443`). Null when it is neither.
 */
export function parseDestination(input: string): DestinationKey | null {
  const raw = input.trim();
  if (raw === '' || raw.length > 300 || /[\s?#@\\]/.test(raw)) return null;
  const scheme = namesScheme(raw);
  if (!scheme && raw.includes('/')) return null;
  let url: URL;
  try {
    url = new URL(scheme ? raw : `https://${raw}`);
  } catch {
    return null;
  }
  if (url.pathname !== '/' || url.username || url.password) return null;
  if (scheme && !/^[a-z][a-z0-9+.-]*:\/\/[^/]+\/?$/i.test(raw)) return null;
  return keyOf(url);
}
