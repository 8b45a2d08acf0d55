import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Signatures on outgoing webhook requests and callbacks, shared by the server (signing) and the SDK (verifying).
 * Every signed request carries two schemes over the same raw body:
 *
 * 1. `X-Service-Signature: t=<unix seconds>,v1=<hex>` where hex = HMAC-SHA256(key = UTF-8 bytes of the secret,
 *    message = "<t>.<raw body>"). Several `v1=` entries may appear (secret rotation); any match is enough.
 * 2. Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds) and
 *    `webhook-signature: v1,<base64>` where base64 = HMAC-SHA256(key, "<id>.<timestamp>.<raw body>"). The key is
 *    the base64-decoded part after `whsec_` when the secret starts with `whsec_`, else the secret's UTF-8 bytes.
 *    So receivers verify with `new Webhook(secret, { format: 'raw' })` for a plain (ASCII) secret, or
 *    `new Webhook('whsec_...')` for a whsec secret. Space-separated signatures are allowed.
 *
 * The timestamp is signed, and a verifier refuses timestamps further than the tolerance (default 300 s) from its
 * clock either way, so a captured request cannot be replayed later. `webhook-id` is the stable delivery id
 * receivers deduplicate by.
 */

export const SERVICE_SIGNATURE_HEADER = 'X-Service-Signature';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;

const WHSEC_PREFIX = 'whsec_';

export type SignedBody = string | Uint8Array;

function hmac(key: string | Uint8Array, prefix: string, body: SignedBody): Buffer {
  return createHmac('sha256', key).update(prefix).update(body).digest();
}

/** The HMAC key of the Standard Webhooks scheme for a secret. */
export function standardWebhooksKey(secret: string): Buffer {
  return secret.startsWith(WHSEC_PREFIX)
    ? Buffer.from(secret.slice(WHSEC_PREFIX.length), 'base64')
    : Buffer.from(secret, 'utf8');
}

/** Hex HMAC of the X-Service-Signature scheme. */
export function serviceSignature(secret: string, timestamp: number, body: SignedBody): string {
  return hmac(secret, `${timestamp}.`, body).toString('hex');
}

/** Base64 HMAC of the Standard Webhooks scheme (without the `v1,` prefix). */
export function standardWebhooksSignature(
  secret: string,
  messageId: string,
  timestamp: number,
  body: SignedBody,
): string {
  return hmac(standardWebhooksKey(secret), `${messageId}.${timestamp}.`, body).toString('base64');
}

/** The four signature headers for one request. `timestamp` is in unix seconds. */
export function signRequest(args: {
  secret: string;
  messageId: string;
  timestamp: number;
  body: SignedBody;
}): Record<string, string> {
  const { secret, messageId, body } = args;
  if (secret.length === 0) throw new Error('A webhook secret must not be empty');
  const t = Math.floor(args.timestamp);
  return {
    [SERVICE_SIGNATURE_HEADER]: `t=${t},v1=${serviceSignature(secret, t, body)}`,
    [WEBHOOK_ID_HEADER]: messageId,
    [WEBHOOK_TIMESTAMP_HEADER]: String(t),
    [WEBHOOK_SIGNATURE_HEADER]: `v1,${standardWebhooksSignature(secret, messageId, t, body)}`,
  };
}

export type SignatureVerification =
  | { ok: true; scheme: 'x-service-signature' | 'standard-webhooks' }
  | { ok: false; reason: string };

type HeaderBag = Record<string, string | string[] | undefined>;

/**
 * Verifies a signed request. When `X-Service-Signature` is present it alone decides (a bad one is not rescued by
 * the other scheme); otherwise the Standard Webhooks headers are checked. `body` must be the raw body as received.
 */
export function verifySignature(args: {
  secret: string;
  headers: HeaderBag;
  body: SignedBody;
  toleranceSeconds?: number;
  now?: Date;
}): SignatureVerification {
  const { secret, body } = args;
  if (!secret) return { ok: false, reason: 'empty secret' };
  const headers = lowerCaseHeaders(args.headers);
  const nowSeconds = Math.floor((args.now ?? new Date()).getTime() / 1000);
  const tolerance = args.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  const fresh = (t: number) => Math.abs(nowSeconds - t) <= tolerance;

  const service = first(headers[SERVICE_SIGNATURE_HEADER.toLowerCase()]);
  if (service !== undefined) {
    const parsed = parseServiceHeader(service);
    if (!parsed) return { ok: false, reason: `malformed ${SERVICE_SIGNATURE_HEADER} header` };
    if (!fresh(parsed.timestamp)) return { ok: false, reason: 'timestamp outside the tolerance' };
    const expected = serviceSignature(secret, parsed.timestamp, body);
    return parsed.signatures.some((candidate) => safeEqual(candidate.toLowerCase(), expected))
      ? { ok: true, scheme: 'x-service-signature' }
      : { ok: false, reason: 'signature mismatch' };
  }

  const id = first(headers[WEBHOOK_ID_HEADER]);
  const timestamp = first(headers[WEBHOOK_TIMESTAMP_HEADER]);
  const signatureValue = headers[WEBHOOK_SIGNATURE_HEADER];
  const signatures = Array.isArray(signatureValue) ? signatureValue.join(' ') : signatureValue;
  if (id === undefined && timestamp === undefined && signatures === undefined) {
    return { ok: false, reason: 'no signature headers' };
  }
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) {
    return { ok: false, reason: 'malformed Standard Webhooks headers' };
  }
  const t = Number(timestamp);
  if (!fresh(t)) return { ok: false, reason: 'timestamp outside the tolerance' };
  const expected = standardWebhooksSignature(secret, id, t, body);
  const match = signatures
    .split(' ')
    .filter((entry) => entry.startsWith('v1,'))
    .some((entry) => safeEqual(entry.slice(3), expected));
  return match ? { ok: true, scheme: 'standard-webhooks' } : { ok: false, reason: 'signature mismatch' };
}

function lowerCaseHeaders(headers: HeaderBag): HeaderBag {
  const out: HeaderBag = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function parseServiceHeader(value: string): { timestamp: number; signatures: string[] } | null {
  let timestamp: number | null = null;
  const signatures: string[] = [];
  for (const part of value.split(',')) {
    const [key, ...rest] = part.trim().split('=');
    const val = rest.join('=');
    if (key === 't' && /^\d+$/.test(val)) timestamp = Number(val);
    else if (key === 'v1' && val) signatures.push(val);
  }
  return timestamp === null || signatures.length === 0 ? null : { timestamp, signatures };
}

/** Constant-time comparison; the length is not secret (both sides have a fixed digest length). */
function safeEqual(candidate: string, expected: string): boolean {
  const a = Buffer.from(candidate);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
