import type { ErrorClass } from '@sched/contract';

export type { ErrorClass };

/** What the outbound client reports of one attempt, as far as the error class needs it. */
export type OutboundFailure =
  | { kind: 'response'; status: number }
  | { kind: 'timeout' }
  | { kind: 'connection'; message: string; code?: string | undefined }
  | { kind: 'blocked' };

/** Resolver failures (getaddrinfo and c-ares codes). */
const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NONAME',
  'EAI_NODATA',
  'ENODATA',
  'ESERVFAIL',
  'ENOTIMP',
  'EREFUSED',
  'EBADNAME',
  'EBADRESP',
  'ECONNREFUSED_DNS',
]);
/** OpenSSL's certificate verdicts, as Node names them (`err.code`). */
const TLS_CODES = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'HOSTNAME_MISMATCH',
]);

/**
 * The error class of one attempt, or null for a success (2xx). Pure: it reads only what the outbound
 * client reported. A connection failure is told apart by its code: a resolver code is `dns`, a TLS or certificate
 * code is `tls`, anything else (refused, reset, unreachable, closed early) is `connect`.
 *
 * | Result                                  | Class   |
 * |-----------------------------------------|---------|
 * | 2xx                                     | null    |
 * | any other status                        | http    |
 * | no answer within the timeout            | timeout |
 * | refused by the destination policy       | blocked |
 * | ENOTFOUND, EAI_AGAIN, ...               | dns     |
 * | ERR_TLS_*, ERR_SSL_*, CERT_*, ...       | tls     |
 * | any other connection error              | connect |
 */
export function classifyError(result: OutboundFailure): ErrorClass | null {
  switch (result.kind) {
    case 'response':
      return result.status >= 200 && result.status <= 299 ? null : 'http';
    case 'timeout':
      return 'timeout';
    case 'blocked':
      return 'blocked';
    case 'connection':
      return connectionClass(result.code, result.message);
  }
}

function connectionClass(code: string | undefined, message: string): ErrorClass {
  if (code !== undefined) {
    if (DNS_CODES.has(code)) return 'dns';
    if (TLS_CODES.has(code) || /^ERR_(TLS|SSL)_/.test(code) || code.startsWith('CERT_')) return 'tls';
    return 'connect';
  }
  // Without a code, the message is all there is (getaddrinfo names itself; OpenSSL errors mention SSL or TLS).
  if (/\bgetaddrinfo\b|\bENOTFOUND\b|\bEAI_AGAIN\b/.test(message)) return 'dns';
  if (/\b(SSL|TLS)\b|certificate/i.test(message)) return 'tls';
  return 'connect';
}

/** A `last_status_code` filter: an exact code, or a class written `4xx` / `5xx` (any `Nxx` from 1 to 5). */
export type StatusCodeFilter = { exact: number } | { from: number; to: number };

/** Reads a `last_status_code` filter; null when it is neither a code (100-599) nor `1xx`..`5xx`. */
export function parseStatusCodeFilter(value: string): StatusCodeFilter | null {
  const trimmed = value.trim().toLowerCase();
  const range = /^([1-5])xx$/.exec(trimmed);
  if (range) {
    const hundred = Number(range[1]) * 100;
    return { from: hundred, to: hundred + 99 };
  }
  if (!/^\d{3}$/.test(trimmed)) return null;
  const exact = Number(trimmed);
  return exact >= 100 && exact <= 599 ? { exact } : null;
}

/**
 * The error class every attempt matching a status-code filter has, when the filter says it: an answer outside 2xx
 * is always `http` (classifyError), so `last_status_code=5xx` is also `last_error_class=http` and the inbox can use
 * the index over failing attempts. Null when the filter takes in a 2xx (a success has no class).
 */
export function impliedErrorClass(filter: StatusCodeFilter): ErrorClass | null {
  const [from, to] = 'exact' in filter ? [filter.exact, filter.exact] : [filter.from, filter.to];
  return to < 200 || from > 299 ? 'http' : null;
}
