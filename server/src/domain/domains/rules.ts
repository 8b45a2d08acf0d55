import { parse as parseHost } from 'tldts';
/**
 * Destination domains: which hostname an action's URL counts against, when an unverified hostname is
 * refused, what the owner publishes to verify it, and when a pending verification is checked again. Pure: time is
 * a parameter. Glossary:
 * - destination domain: the exact hostname of a request URL, lower-cased, without a trailing dot (subdomains are
 *   separate domains; no wildcards). IP literals are outside domain rules.
 * - verification token: a random string per (account, domain); the TXT record and the file both carry
 *   `sched-verification=<token>`.
 */

import type { DOMAIN_VERIFICATION_METHODS } from '@sched/contract';

const SERVICE_NAME = 'sched';

export type VerificationMethod = (typeof DOMAIN_VERIFICATION_METHODS)[number];

export interface DomainLimits {
  /** Actions a UTC day to one unverified hostname (SCHED_DOMAIN_DAY_LIMIT). */
  perDay: number;
  /** Actions a UTC month to one unverified hostname (SCHED_DOMAIN_MONTH_LIMIT). */
  perMonth: number;
}

export const DEFAULT_DOMAIN_LIMITS: Readonly<DomainLimits> = Object.freeze({ perDay: 10, perMonth: 100 });

/**
 * Whose act a send is: the account's own (`api`: a key, and what its actions, chains and series send), or a
 * public trigger of one of its templates (`trigger`: the action or chain it made, and their callbacks). They count
 * against the same limits in separate counters, so anonymous triggers never spend the owner's own threshold.
 */
export const SEND_SOURCES = Object.freeze(['api', 'trigger'] as const);
export type SendSource = (typeof SEND_SOURCES)[number];

const DOTTED_QUAD = /^\d{1,3}(\.\d{1,3}){3}$/;

/** The destination domain of a URL, or null when the URL is not counted (an IP literal, or not a URL). */
export function destinationDomain(url: string): string | null {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return null;
  }
  if (host === '' || host.startsWith('[')) return null;
  const name = host.replace(/\.+$/, '').toLowerCase();
  // The URL parser has turned every numeric IPv4 form (decimal, octal, hex, short) into a dotted quad.
  if (DOTTED_QUAD.test(name)) return null;
  return name === '' ? null : name;
}

/**
 * The names a send to `url` counts against (every way to a host counts): its host name, and also its registrable domain (eTLD+1
 * from the public-suffix list, private suffixes such as github.io kept apart) when that differs, so a flood spread
 * over subdomains meets the same threshold; a public IP literal by its address. Names under a suffix the list does
 * not know (.example, .internal, .test) count alone, and private or loopback literals (allowed only in
 * development) not at all. `isPrivateAddress` is the SSRF guard's classification.
 */
export function countedNames(url: string, isPrivateAddress: (ip: string) => boolean): string[] {
  let host: string;
  try {
    host = new URL(url).hostname;
  } catch {
    return [];
  }
  if (host.startsWith('[')) {
    const ip = host.slice(1, -1).toLowerCase();
    return isPrivateAddress(ip) ? [] : [ip];
  }
  const name = host.replace(/\.+$/, '').toLowerCase();
  if (name === '') return [];
  if (DOTTED_QUAD.test(name)) return isPrivateAddress(name) ? [] : [name];
  const parsed = parseHost(name, { allowPrivateDomains: true });
  const registrable = parsed.isIcann || parsed.isPrivate ? parsed.domain : null;
  return registrable && registrable !== name ? [name, registrable] : [name];
}

/**
 * The host an action's request goes to, as the failed-delivery inbox filters it: the URL's hostname lower-cased,
 * without a trailing dot, IP literals included (an IPv6 literal keeps its brackets); null when the URL does not parse.
 */
export function destinationHost(url: string): string | null {
  try {
    const host = new URL(url).hostname.replace(/\.+$/, '').toLowerCase();
    return host === '' ? null : host;
  } catch {
    return null;
  }
}

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * A domain as given in a path (`/domains/{domain}`): normalised like a URL's hostname, or null when it is not a
 * DNS name (IP literals included: they are outside domain rules).
 */
export function parseDomain(input: string): string | null {
  const raw = input.trim();
  if (raw === '' || raw.length > 253 || /[/:@?#\s[\]]/.test(raw)) return null;
  const name = destinationDomain(`https://${raw}/`);
  if (name === null || name.length > 253) return null;
  return name.split('.').every((label) => LABEL.test(label)) ? name : null;
}

/** The UTC day and month a use at `now` counts in, as the first instant of each. */
export function usagePeriods(now: Date): { day: Date; month: Date } {
  const y = now.getUTCFullYear();
  const m = now.getUTCMonth();
  return { day: new Date(Date.UTC(y, m, now.getUTCDate())), month: new Date(Date.UTC(y, m, 1)) };
}

/**
 * The threshold: whether a create that brings an unverified hostname's counts to `day` and `month` may
 * go. persistence/domains.ts applies the same comparison inside its upsert, where racing creates are ordered.
 */
export function withinLimits(counts: { day: number; month: number }, limits: DomainLimits): boolean {
  return counts.day <= limits.perDay && counts.month <= limits.perMonth;
}

/** The counts a domain's stored row holds for its last day and month (absent: never sent to). */
export interface StoredUse {
  dayStart: Date;
  dayCount: number;
  monthStart: Date;
  monthCount: number;
}

/**
 * Whether one more send at `now` stays within the threshold, by the stored counts of the day and month (a count of
 * an earlier period is spent). How a create checks a `callback_url`'s host: the callbacks themselves are counted
 * when they are sent, and never refused, since their action was accepted.
 */
export function hasRoomForOneMore(stored: StoredUse | null, now: Date, limits: DomainLimits): boolean {
  const { day, month } = usagePeriods(now);
  const today = stored && stored.dayStart.getTime() >= day.getTime() ? stored.dayCount : 0;
  const thisMonth = stored && stored.monthStart.getTime() >= month.getTime() ? stored.monthCount : 0;
  return withinLimits({ day: today + 1, month: thisMonth + 1 }, limits);
}

/**
 * When a send refused by the threshold may be tried again: the next UTC day. A month spent is found again
 * then, which costs one refused try a day at most.
 */
export function thresholdReopensAt(now: Date): Date {
  return new Date(usagePeriods(now).day.getTime() + 86_400_000);
}

/** The message of the 422 on `request.url` for a hostname past a threshold. */
export function thresholdMessage(domain: string, limits: DomainLimits): string {
  return (
    `${domain} is not verified and this account has reached its limit of ${limits.perDay} actions a day or ` +
    `${limits.perMonth} a month to it; verify the domain to send more: POST /v1/domains/${domain}/verify, ` +
    `publish the TXT record or the file it returns, then POST /v1/domains/${domain}/check (see docs/domains.md)`
  );
}

/** The string both methods must show. */
export function verificationRecord(token: string): string {
  return `${SERVICE_NAME}-verification=${token}`;
}

export function verificationFileUrl(domain: string): string {
  return `https://${domain}/.well-known/${SERVICE_NAME}-verify.txt`;
}

/** Whether the body of the verification file proves the token: the record alone, surrounding whitespace allowed. */
export function fileProves(body: string, token: string): boolean {
  return body.trim() === verificationRecord(token);
}

/** Whether one TXT record (its chunks joined, as DNS splits long strings) proves the token. */
export function txtProves(chunks: readonly string[], token: string): boolean {
  return chunks.join('').trim() === verificationRecord(token);
}

/** Background checks of a pending domain stop this long after verification started (DNS propagation). */
export const CHECK_WINDOW_MS = 24 * 3600 * 1000;

/** Waits before background check n (1-based); the last one repeats. */
const CHECK_DELAYS_MS = Object.freeze([
  60_000,
  5 * 60_000,
  15 * 60_000,
  30 * 60_000,
  3600_000,
  2 * 3600_000,
  4 * 3600_000,
]);

/**
 * When the next background check of a pending domain runs, given how many have run since verification started
 * at `startedAt`; null when the 24-hour window is over.
 */
export function nextCheckAt(startedAt: Date, attemptsSoFar: number, now: Date): Date | null {
  const delay = CHECK_DELAYS_MS[Math.min(attemptsSoFar, CHECK_DELAYS_MS.length - 1)]!;
  const at = new Date(now.getTime() + delay);
  const end = startedAt.getTime() + CHECK_WINDOW_MS;
  if (now.getTime() >= end) return null;
  return at.getTime() > end ? new Date(end) : at;
}
