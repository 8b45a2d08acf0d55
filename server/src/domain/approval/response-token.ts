import { createHash, randomBytes } from 'node:crypto';

/**
 * What a stored token opens: `link` the response page; `slack` a Slack app button's reference; `reply` the
 * Reply-To address of an approval email. All die together with the round's links.
 */
export type ResponseTokenKind = 'link' | 'slack' | 'reply';

/** A response token: 32 random bytes (256 bits), base64url; only its SHA-256 is stored. */
export function newResponseToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashResponseToken(token) };
}

/** A fast hash is right here: the token has 256 bits of entropy, so there is nothing to brute-force. */
export function hashResponseToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * A reply token: 24 random bytes (192 bits) in lower-case hex, so that `reply+<token>@domain` stays within the
 * 64 characters of an address's local part and survives mail systems that change its case.
 */
export function newReplyToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('hex');
  return { token, hash: hashResponseToken(token) };
}
