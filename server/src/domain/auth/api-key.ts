import { createHash } from 'node:crypto';
import { API_KEY_SCOPES, type ApiKeyScope } from '@sched/contract';

/** Scopes an API key can hold: GET needs `read`, every other method `write`; `/v1/api-keys` needs `admin`. */
export const SCOPES = API_KEY_SCOPES;
export type Scope = ApiKeyScope;

/** The first key of an account (the one `sched accounts create` and the first start print) can do everything. */
export const OWNER_SCOPES: readonly Scope[] = Object.freeze(['read', 'write', 'admin']);

/** The longest grace period of a rotation: past it, the old secret should have been replaced. */
export const MAX_ROTATION_GRACE_MS = 30 * 24 * 3600_000;

/** Every key starts with this, so leaked keys are recognisable by secret scanners. */
const KEY_PREFIX = 'sk_sched_';

/** Builds a key from 32 random bytes (256 bits); only its SHA-256 is ever stored. */
export function buildApiKey(random: Buffer): { secret: string; prefix: string; hash: string } {
  const secret = KEY_PREFIX + random.toString('base64url');
  return { secret, prefix: secret.slice(0, KEY_PREFIX.length + 6), hash: hashApiKey(secret) };
}

/** A fast hash is right here: the secret has 256 bits of entropy, so there is nothing to brute-force. */
export function hashApiKey(secret: string): string {
  return createHash('sha256').update(secret, 'utf8').digest('hex');
}

/**
 * Stored credentials of third parties (request header values such as `Authorization`, Slack and Teams webhook
 * URLs, push keys) are shown only to keys with the `write` scope: a read-only key handed to a dashboard sees where
 * things point, not the credential (docs/security.md).
 */
export function seesCredentials(scopes: readonly Scope[]): boolean {
  return scopes.includes('write');
}

/** Stored header values as a caller may see them: the names always, the values only with `credentials`. */
export function shownHeaders(
  headers: Readonly<Record<string, string>>,
  credentials: boolean,
): Record<string, string> {
  if (credentials) return { ...headers };
  return Object.fromEntries(Object.keys(headers).map((name) => [name, '***']));
}

/**
 * A stored URL that may carry a credential in its path or query (an alert webhook, a callback URL), as a caller may
 * see it: whole with `credentials`, else its origin with the rest masked (`https://host/***`). A URL that does not
 * parse is masked whole.
 */
export function shownUrl(url: string, credentials: boolean): string {
  if (credentials) return url;
  try {
    return `${new URL(url).origin}/***`;
  } catch {
    return '***';
  }
}

/**
 * A contact's or recipient's email address or phone number as a caller may see it: whole with `credentials`, else
 * masked (`j***@example.com`, `+1******0100`), so a read-only key can tell entries apart without reading personal
 * data. Anything else (a channel's name) is shown as it is.
 */
export function shownAddress(address: string, credentials: boolean): string;
export function shownAddress(address: string | null, credentials: boolean): string | null;
export function shownAddress(address: string | null, credentials: boolean): string | null {
  if (credentials || address === null) return address;
  const at = address.lastIndexOf('@');
  if (at > 0) return `${address[0]}***${address.slice(at)}`;
  const digits = address.replace(/[\s().-]/g, '');
  if (/^\+?\d{6,}$/.test(digits)) {
    const plus = digits.startsWith('+') ? 1 : 0;
    const keepHead = plus + Math.min(1, digits.length - plus - 4);
    return `${digits.slice(0, keepHead)}${'*'.repeat(digits.length - keepHead - 4)}${digits.slice(-4)}`;
  }
  return address;
}

const EMAIL_IN_TEXT = /[^\s<>()[\]"',;:]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}/g;
const PHONE_IN_TEXT = /\+\d[\d\s().-]{4,}\d/g;

/** Text the service wrote about recipients (a timeline's notes) with every address and number in it masked likewise. */
export function shownText(text: string | null, credentials: boolean): string | null {
  if (credentials || text === null) return text;
  return text
    .replace(EMAIL_IN_TEXT, (email) => shownAddress(email, false))
    .replace(PHONE_IN_TEXT, (phone) => shownAddress(phone, false));
}

/** The scope a request needs: the route's own (`admin` for key management), else by method. */
export function requiredScope(method: string, routeScope?: Scope): Scope {
  if (routeScope) return routeScope;
  const m = method.toUpperCase();
  return m === 'GET' || m === 'HEAD' || m === 'OPTIONS' ? 'read' : 'write';
}

export function parseScopes(text: string): Scope[] | null {
  const parts = [
    ...new Set(
      text
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean),
    ),
  ];
  if (parts.length === 0 || parts.some((p) => !(SCOPES as readonly string[]).includes(p))) return null;
  return parts as Scope[];
}

/** Extracts the token of `Authorization: Bearer <token>`; null when absent or malformed. */
export function bearerToken(header: string | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match ? match[1]! : null;
}
