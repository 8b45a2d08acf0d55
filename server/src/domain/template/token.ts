import { createHash } from 'node:crypto';

/** Characters of a trigger token shown where the token itself is not (masked views, lists). */
const TRIGGER_TOKEN_SHOWN = 6;

/**
 * A trigger token from 32 random bytes (256 bits), base64url so it sits in a URL path as it is. Only its SHA-256 is
 * stored; a fast hash is right here, since there is nothing to brute-force in 256 bits.
 */
export function buildTriggerToken(random: Buffer): { token: string; prefix: string; hash: string } {
  const token = random.toString('base64url');
  return { token, prefix: token.slice(0, TRIGGER_TOKEN_SHOWN), hash: hashTriggerToken(token) };
}

export function hashTriggerToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** `{base}/t/<token>`; the base is the public URL of the service, without a trailing slash. */
export function triggerUrl(base: string, token: string): string {
  return `${base.replace(/\/+$/, '')}/t/${token}`;
}

/** How a stored token is shown once only its hash is kept: the first characters, then an ellipsis. */
export function maskedToken(prefix: string): string {
  return `${prefix}…`;
}
