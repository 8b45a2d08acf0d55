import { createHash, randomBytes } from 'node:crypto';

/** A response token: 32 random bytes (256 bits), base64url; only its SHA-256 is stored. */
export function newResponseToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashResponseToken(token) };
}

/** A fast hash is right here: the token has 256 bits of entropy, so there is nothing to brute-force. */
export function hashResponseToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}
