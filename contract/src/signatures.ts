import type { Buffer as NodeBuffer } from 'node:buffer';
import type * as NodeCrypto from 'node:crypto';
import { hmac } from '@noble/hashes/hmac';
import { sha256 } from '@noble/hashes/sha2';

/**
 * Signatures on outgoing webhook requests and callbacks, shared by the server (signing) and the SDK (verifying).
 * docs/signatures.md is the reference for receivers; this header is the summary. Every signed request carries:
 *
 * 1. `X-Service-Signature: t=<unix seconds>,v1=<hex>,v2=<hex>`, both HMAC-SHA256 keyed with the secret's UTF-8
 *    bytes. v1 signs "<t>.<raw body>" and is kept for verifiers written before v2 (a documented transition);
 *    v2 signs "<webhook-id>.<t>.<raw body>", so a captured signature cannot authenticate a request with another
 *    webhook-id, and a receiver deduplicating by the authenticated id refuses a replay.
 * 2. Standard Webhooks (https://www.standardwebhooks.com): `webhook-id`, `webhook-timestamp` (unix seconds) and
 *    `webhook-signature: v1,<base64>` over "<webhook-id>.<timestamp>.<raw body>". The key is the base64-decoded
 *    part after `whsec_` when the secret starts with `whsec_`, else the secret's UTF-8 bytes.
 *
 * HMAC: node:crypto when the runtime has it (Node, Deno and Bun expose `process.getBuiltinModule`), reached without a
 * static `node:` import so that browser bundles of the SDK load this module; elsewhere the audited pure-JS
 * @noble/hashes. Web Crypto would make signing and verifying asynchronous. Measured (signRequest, 1 KB body, busy
 * 2-core machine): ~220 us with noble, ~80 us with node:crypto; at 100 KB, 7 ms against 0.5 ms.
 */

export const SERVICE_SIGNATURE_HEADER = 'X-Service-Signature';
export const WEBHOOK_ID_HEADER = 'webhook-id';
export const WEBHOOK_TIMESTAMP_HEADER = 'webhook-timestamp';
export const WEBHOOK_SIGNATURE_HEADER = 'webhook-signature';
export const DEFAULT_SIGNATURE_TOLERANCE_SECONDS = 300;
/** A `whsec_` secret must decode to at least this many key bytes (192 bits); shorter keys are guessable. */
export const WHSEC_MIN_KEY_BYTES = 24;

const WHSEC_PREFIX = 'whsec_';
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;
const encoder = new TextEncoder();

export type SignedBody = string | Uint8Array;

function bytes(value: SignedBody): Uint8Array {
  return typeof value === 'string' ? encoder.encode(value) : value;
}

const nodeCrypto = (
  globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }
).process?.getBuiltinModule?.('node:crypto') as typeof NodeCrypto | undefined;

/** A secret's two HMAC keys: its UTF-8 bytes (X-Service-Signature), or Standard Webhooks' (`standardWebhooksKey`). */
type KeyKind = 'utf8' | 'standard';

function keyBytes(secret: string, kind: KeyKind): Uint8Array {
  return kind === 'utf8' ? encoder.encode(secret) : standardWebhooksKey(secret);
}

/** At most this many secrets' prepared keys are kept; a full cache is emptied. */
const PREPARED_MAX = 1024;

/** `prepare(secret)` kept for the next delivery of the same secret, bounded. */
function preparedPerSecret<T>(prepare: (secret: string) => T): (secret: string) => T {
  const prepared = new Map<string, T>();
  return (secret) => {
    let value = prepared.get(secret);
    if (value === undefined && !prepared.has(secret)) {
      if (prepared.size >= PREPARED_MAX) prepared.clear();
      value = prepare(secret);
      prepared.set(secret, value);
    }
    return value as T;
  };
}

/**
 * The HMAC keys node:crypto has prepared: given raw key material it prepares a key object for each HMAC, and a
 * delivery signs three ways with two keys, so each secret's keys are prepared once.
 */
const nodeKeys = {
  utf8: preparedPerSecret((secret) => nodeCrypto!.createSecretKey(keyBytes(secret, 'utf8'))),
  standard: preparedPerSecret((secret) => nodeCrypto!.createSecretKey(keyBytes(secret, 'standard'))),
};

/** HMAC-SHA256 of `prefix` and the body under the secret's key of `kind`. */
function digestOf(secret: string, kind: KeyKind, prefix: string, body: SignedBody): Uint8Array {
  if (nodeCrypto) {
    const key = nodeKeys[kind](secret);
    return nodeCrypto.createHmac('sha256', key).update(prefix).update(body).digest();
  }
  return hmac
    .create(sha256, keyBytes(secret, kind))
    .update(encoder.encode(prefix))
    .update(bytes(body))
    .digest();
}

function encode(digest: Uint8Array, encoding: 'hex' | 'base64'): string {
  // node:crypto's digests are Buffers, which encode themselves.
  if (nodeCrypto) return (digest as NodeBuffer).toString(encoding);
  return encoding === 'hex' ? toHex(digest) : toBase64(digest);
}

/** HMAC-SHA256 of `prefix` and the body under the secret's key of `kind`, as hex or base64. */
function mac(
  secret: string,
  kind: KeyKind,
  prefix: string,
  body: SignedBody,
  encoding: 'hex' | 'base64',
): string {
  return encode(digestOf(secret, kind, prefix, body), encoding);
}

function toHex(digest: Uint8Array): string {
  return Array.from(digest, (b) => b.toString(16).padStart(2, '0')).join('');
}

function toBase64(digest: Uint8Array): string {
  return btoa(String.fromCharCode(...digest));
}

/** Strict base64 decoding: null for anything else (a lenient decoder turns `whsec_!!!!` into an empty key). */
function fromBase64(text: string): Uint8Array | null {
  if (!BASE64.test(text) || text.length % 4 === 1) return null;
  try {
    return Uint8Array.from(atob(text), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
}

/** Why a `whsec_` secret cannot be used (not base64, or a key under 24 bytes); null when usable or not `whsec_`. */
export function whsecSecretProblem(secret: string): string | null {
  if (!secret.startsWith(WHSEC_PREFIX)) return null;
  const key = fromBase64(secret.slice(WHSEC_PREFIX.length));
  if (!key) return 'a whsec_ secret must be whsec_ followed by base64';
  if (key.length < WHSEC_MIN_KEY_BYTES)
    return `a whsec_ secret must decode to at least ${WHSEC_MIN_KEY_BYTES} bytes (got ${key.length})`;
  return null;
}

/**
 * The HMAC key of the Standard Webhooks scheme for a secret. A `whsec_` value that is not base64 (refused at create
 * since L6, but possibly stored before) is keyed like a plain secret, never with an empty key.
 */
export function standardWebhooksKey(secret: string): Uint8Array {
  // A copy: the decoded key is kept for the next delivery, and the caller may write to what it is given.
  return whsecKey(secret)?.slice() ?? encoder.encode(secret);
}

/**
 * The key a usable `whsec_` secret decodes to; null for any other secret, which both schemes key by its UTF-8 bytes.
 * Decoded once per secret: every delivery asks.
 */
const whsecKey = preparedPerSecret((secret): Uint8Array | null => {
  const key = secret.startsWith(WHSEC_PREFIX) ? fromBase64(secret.slice(WHSEC_PREFIX.length)) : null;
  return key && key.length > 0 ? key : null;
});

/** Hex HMAC of X-Service-Signature v1: "<t>.<body>" (no id: kept for old verifiers only). */
export function serviceSignature(secret: string, timestamp: number, body: SignedBody): string {
  return mac(secret, 'utf8', `${timestamp}.`, body, 'hex');
}

/** What v2 and Standard Webhooks sign before the body: "<webhook-id>.<t>.". */
function idAndTime(messageId: string, timestamp: number): string {
  return `${messageId}.${timestamp}.`;
}

/** Hex HMAC of X-Service-Signature v2: "<webhook-id>.<t>.<body>". */
export function serviceSignatureV2(
  secret: string,
  messageId: string,
  timestamp: number,
  body: SignedBody,
): string {
  return mac(secret, 'utf8', idAndTime(messageId, timestamp), body, 'hex');
}

/** Base64 HMAC of the Standard Webhooks scheme (without the `v1,` prefix). */
export function standardWebhooksSignature(
  secret: string,
  messageId: string,
  timestamp: number,
  body: SignedBody,
): string {
  return mac(secret, 'standard', idAndTime(messageId, timestamp), body, 'base64');
}

/**
 * The four signature headers for one request. `timestamp` is in unix seconds. With several secrets (a rotation's
 * overlap), each signature header carries one entry per secret, the first secret's first: Standard Webhooks lists
 * space-separated `v1,` entries, X-Service-Signature repeats its `v1=`/`v2=` pairs; a verifier accepts any match.
 */
export function signRequest(args: {
  secret: string | readonly string[];
  messageId: string;
  timestamp: number;
  body: SignedBody;
}): Record<string, string> {
  const { messageId, body } = args;
  const secrets = typeof args.secret === 'string' ? [args.secret] : args.secret;
  if (secrets.length === 0 || secrets.some((secret) => secret.length === 0))
    throw new Error('A webhook secret must not be empty');
  const t = Math.floor(args.timestamp);
  // Encoded once for the three signatures (and each secret's keys prepared once: `digestOf`).
  const raw = bytes(body);
  const signed = idAndTime(messageId, t);
  const service: string[] = [];
  const standard: string[] = [];
  for (const secret of secrets) {
    // v2 and Standard Webhooks sign the same text; unless the secret is a `whsec_` one, with the same key too, so
    // one digest serves both, in hex and in base64.
    const v2 = digestOf(secret, 'utf8', signed, raw);
    const std = whsecKey(secret) === null ? v2 : digestOf(secret, 'standard', signed, raw);
    service.push(`v1=${serviceSignature(secret, t, raw)},v2=${encode(v2, 'hex')}`);
    standard.push(`v1,${encode(std, 'base64')}`);
  }
  return {
    [SERVICE_SIGNATURE_HEADER]: `t=${t},${service.join(',')}`,
    [WEBHOOK_ID_HEADER]: messageId,
    [WEBHOOK_TIMESTAMP_HEADER]: String(t),
    [WEBHOOK_SIGNATURE_HEADER]: standard.join(' '),
  };
}

/** Which signature authenticated a request, strongest first. */
export type SignatureScheme = 'x-service-signature-v2' | 'standard-webhooks' | 'x-service-signature-v1';

export type SignatureVerification =
  | {
      ok: true;
      scheme: SignatureScheme;
      /** The authenticated `webhook-id` to deduplicate by; null for a v1 signature, which does not cover it. */
      id: string | null;
      /** The signed timestamp, unix seconds. */
      timestamp: number;
    }
  | { ok: false; reason: string };

type HeaderBag = Record<string, string | string[] | undefined>;

export interface VerifySignatureInput {
  /** One secret, or several while rotating: a request signed with any of them is accepted. */
  secret: string | readonly string[];
  headers: HeaderBag;
  body: SignedBody;
  toleranceSeconds?: number;
  now?: Date;
  /**
   * Accept a request whose only signature is X-Service-Signature v1 (signed by a server older than v2). Off by
   * default: v1 does not cover webhook-id, so stripping v2 from a captured request would otherwise downgrade it.
   */
  allowV1?: boolean;
}

/**
 * Verifies a signed request, preferring the signatures that cover webhook-id: X-Service-Signature v2 decides when
 * present, then Standard Webhooks, then v1 only with `allowV1`. A failing stronger signature is never rescued by a
 * weaker one. `body` must be the raw body as received.
 */
export function verifySignature(args: VerifySignatureInput): SignatureVerification {
  const secrets = (typeof args.secret === 'string' ? [args.secret] : [...args.secret]).filter(Boolean);
  if (secrets.length === 0) return { ok: false, reason: 'empty secret' };
  const { body } = args;
  const headers = lowerCaseHeaders(args.headers);
  const nowSeconds = Math.floor((args.now ?? new Date()).getTime() / 1000);
  const tolerance = args.toleranceSeconds ?? DEFAULT_SIGNATURE_TOLERANCE_SECONDS;
  const fresh = (t: number) => Math.abs(nowSeconds - t) <= tolerance;
  const id = first(headers[WEBHOOK_ID_HEADER]);

  const serviceValue = first(headers[SERVICE_SIGNATURE_HEADER.toLowerCase()]);
  const service = serviceValue === undefined ? undefined : parseServiceHeader(serviceValue);
  if (service === null) return { ok: false, reason: `malformed ${SERVICE_SIGNATURE_HEADER} header` };

  if (service && service.v2.length > 0) {
    if (!id) return { ok: false, reason: `${SERVICE_SIGNATURE_HEADER} v2 needs the webhook-id header` };
    if (!fresh(service.timestamp)) return { ok: false, reason: 'timestamp outside the tolerance' };
    const match = secrets.some((secret) =>
      anyEqual(service.v2, serviceSignatureV2(secret, id, service.timestamp, body)),
    );
    return match
      ? { ok: true, scheme: 'x-service-signature-v2', id, timestamp: service.timestamp }
      : { ok: false, reason: 'signature mismatch' };
  }

  const timestamp = first(headers[WEBHOOK_TIMESTAMP_HEADER]);
  const signatureValue = headers[WEBHOOK_SIGNATURE_HEADER];
  const signatures = Array.isArray(signatureValue) ? signatureValue.join(' ') : signatureValue;
  if (id !== undefined || timestamp !== undefined || signatures !== undefined) {
    if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) {
      return { ok: false, reason: 'malformed Standard Webhooks headers' };
    }
    const t = Number(timestamp);
    if (!fresh(t)) return { ok: false, reason: 'timestamp outside the tolerance' };
    const candidates = signatures
      .split(' ')
      .filter((entry) => entry.startsWith('v1,'))
      .map((entry) => entry.slice(3));
    const match = secrets.some((secret) =>
      anyEqual(candidates, standardWebhooksSignature(secret, id, t, body)),
    );
    return match
      ? { ok: true, scheme: 'standard-webhooks', id, timestamp: t }
      : { ok: false, reason: 'signature mismatch' };
  }

  if (!service) return { ok: false, reason: 'no signature headers' };
  if (!args.allowV1) {
    return {
      ok: false,
      reason: `${SERVICE_SIGNATURE_HEADER} has only v1, which does not cover webhook-id (allowV1 accepts it)`,
    };
  }
  if (!fresh(service.timestamp)) return { ok: false, reason: 'timestamp outside the tolerance' };
  const match = secrets.some((secret) =>
    anyEqual(service.v1, serviceSignature(secret, service.timestamp, body)),
  );
  return match
    ? { ok: true, scheme: 'x-service-signature-v1', id: null, timestamp: service.timestamp }
    : { ok: false, reason: 'signature mismatch' };
}

function lowerCaseHeaders(headers: HeaderBag): HeaderBag {
  const out: HeaderBag = {};
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value;
  return out;
}

function first(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** `t=<seconds>` and its `v1=`/`v2=` entries; null when malformed (no timestamp or no known entry). */
function parseServiceHeader(value: string): { timestamp: number; v1: string[]; v2: string[] } | null {
  let timestamp: number | null = null;
  const v1: string[] = [];
  const v2: string[] = [];
  for (const part of value.split(',')) {
    const [key, ...rest] = part.trim().split('=');
    const val = rest.join('=').toLowerCase();
    if (key === 't' && /^\d+$/.test(val)) timestamp = Number(val);
    else if (key === 'v1' && val) v1.push(val);
    else if (key === 'v2' && val) v2.push(val);
  }
  return timestamp === null || v1.length + v2.length === 0 ? null : { timestamp, v1, v2 };
}

function anyEqual(candidates: readonly string[], expected: string): boolean {
  // Every candidate is compared in full, so the time does not tell which one matched.
  return candidates.reduce((found, candidate) => safeEqual(candidate, expected) || found, false);
}

/** Constant-time comparison for equal lengths; the length is not secret (digests have a fixed length). */
function safeEqual(candidate: string, expected: string): boolean {
  if (candidate.length !== expected.length) return false;
  let diff = 0;
  for (let i = 0; i < expected.length; i += 1) diff |= candidate.charCodeAt(i) ^ expected.charCodeAt(i);
  return diff === 0;
}
