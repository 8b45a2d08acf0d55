import {
  countedNames,
  type DomainLimits,
  hasRoomForOneMore,
  type SendSource,
  thresholdMessage,
  usagePeriods,
  withinLimits,
} from '../../domain/domains/rules.js';
import { countHits, windowHits } from '../../persistence/rate-limit-windows.js';
import { isBlockedAddress } from '../../domain/destinations/policy.js';
import { type Sql, withSavepoint } from '../../persistence/database.js';
import { countDomainUse, domainUse, isVerified } from '../../persistence/domains.js';
import { ValidationError } from '../errors.js';

/**
 * Counts one outgoing send of an account to the hostname of `url` and refuses it with a DestinationThresholdError
 * (a 422 on `opts.field`, default `request.url`) when the hostname is unverified and past the day or month
 * threshold. Call it in the transaction that creates the resource (action, chain HTTP step, template trigger) or
 * claims the send (a later occurrence of a series, a manual retry, a callback): a rollback gives the count back. It
 * must run in a transaction. Answers whether the send was counted: false for IP literals of private addresses,
 * unparsable URLs and verified hosts. With `peek`, it counts nothing and only refuses when one more send would not
 * fit (how a create checks its `callback_url`); with `always`, it counts and never refuses (the callbacks of an
 * accepted action).
 */
export type CountDestination = (
  db: Sql,
  accountId: string,
  url: string,
  now: Date,
  /** `unverified`: the caller has just read that the host is not verified (isUncountedDestination), so the guard
   *  need not read it again. */
  opts?: {
    field?: string;
    unverified?: boolean;
    /**
     * `trigger`: the send comes from a public trigger URL. It counts against the same limits but in its own
     * counters, so anonymous triggers never spend the owner's own threshold for the day.
     */
    source?: SendSource;
    /** Check only: refuse when one more send would be past the threshold, count nothing. Needs no transaction. */
    peek?: boolean;
    /** Count, never refuse: a callback of an action or chain that was accepted is always sent. */
    always?: boolean;
  },
) => Promise<boolean>;

/** A send refused by the destination threshold: a 422 to an API caller, a `blocked` attempt at send time. */
export class DestinationThresholdError extends ValidationError {
  constructor(
    field: string,
    /** The message alone, without the field: what a blocked attempt records. */
    readonly reason: string,
  ) {
    super({ [field]: [reason] });
  }
}

/**
 * A create's check of its `callback_url` (an action's or a chain's): a 422 on `field` when the host is unverified and
 * has no room for one more send. Nothing is counted here: each callback counts when it is sent, and is never refused
 * then, so an accepted action's callbacks all arrive.
 */
export async function checkCallbackHost(
  count: CountDestination | undefined,
  db: Sql,
  accountId: string,
  url: string | null | undefined,
  now: Date,
  opts: { field: string; source?: SendSource },
): Promise<void> {
  if (count && url) await count(db, accountId, url, now, { ...opts, peek: true });
}

/**
 * Whether creates to `url` are outside the threshold: an IP literal, or a host the account has verified. A plain read
 * for a caller deciding whether it needs a transaction at all; a verification removed in between lets at most the
 * racing create through uncounted.
 */
export async function isUncountedDestination(db: Sql, accountId: string, url: string): Promise<boolean> {
  const names = countedNames(url, isBlockedAddress);
  return names.length === 0 || (await isVerified(db, accountId, names[0]!));
}

/**
 * The names a send to an unverified host counts against: the host, and its registrable domain unless the account
 * verified that one. Verifying a host covers that host only (subdomains verify on their own, as the interface says);
 * the registrable domain's count is an abuse guard against a flood spread over subdomains (docs/domains.md).
 */
async function unverifiedNames(db: Sql, accountId: string, names: readonly string[]): Promise<string[]> {
  const out = [names[0]!];
  for (const name of names.slice(1)) if (!(await isVerified(db, accountId, name))) out.push(name);
  return out;
}

/** The one implementation of the destination threshold, bound to the operator's limits. */
export function destinationGuard(limits: DomainLimits): CountDestination {
  return async (db, accountId, url, now, opts = {}) => {
    // The host, its registrable domain when different, or a public IP literal's address: every way to a host counts.
    const all = countedNames(url, isBlockedAddress);
    if (all.length === 0) return false;
    // A verified host is not limited: it is not counted either, so its busy senders never queue on one row lock.
    if (!opts.unverified && (await isVerified(db, accountId, all[0]!))) return false;
    const names = await unverifiedNames(db, accountId, all);
    if (opts.peek) {
      for (const domain of names) await checkRoom(db, accountId, domain, now, limits, opts);
      return false;
    }
    const countAll = async () => {
      for (const domain of names) await countOne(db, accountId, domain, now, limits, opts);
    };
    // A host and its registrable domain count together or not at all: under a savepoint, a refusal of the second
    // gives back the first, even for a caller that goes on in its transaction (a chain step, a blocked send).
    await (names.length > 1 ? withSavepoint(db, countAll) : countAll());
    return true;
  };
}

/** The rate-limit buckets that count a domain's trigger sends, for the day and the month of `now`. */
function triggerWindows(accountId: string, domain: string, now: Date) {
  const { day, month } = usagePeriods(now);
  const nextDay = new Date(day.getTime() + 86_400_000);
  const nextMonth = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
  const bucket = (period: string) => `trigger-domain-${period}:${accountId}:${domain}`;
  return {
    day: { bucket: bucket('day'), start: day, end: nextDay },
    month: { bucket: bucket('month'), start: month, end: nextMonth },
  };
}

type GuardOptions = { field?: string; source?: SendSource; always?: boolean };

const refusal = (domain: string, limits: DomainLimits, opts: GuardOptions) =>
  new DestinationThresholdError(opts.field ?? 'request.url', thresholdMessage(domain, limits));

async function checkRoom(
  db: Sql,
  accountId: string,
  domain: string,
  now: Date,
  limits: DomainLimits,
  opts: GuardOptions,
): Promise<void> {
  if (opts.source === 'trigger') {
    const w = triggerWindows(accountId, domain, now);
    const hits = await windowHits(db, [w.day, w.month]);
    const used = { dayStart: w.day.start, monthStart: w.month.start };
    const stored = {
      ...used,
      dayCount: hits.get(w.day.bucket) ?? 0,
      monthCount: hits.get(w.month.bucket) ?? 0,
    };
    if (!hasRoomForOneMore(stored, now, limits)) throw refusal(domain, limits, opts);
    return;
  }
  const row = await domainUse(db, accountId, domain);
  if (row?.verified) return;
  if (!hasRoomForOneMore(row?.use ?? null, now, limits)) throw refusal(domain, limits, opts);
}

async function countOne(
  db: Sql,
  accountId: string,
  domain: string,
  now: Date,
  limits: DomainLimits,
  opts: GuardOptions,
): Promise<void> {
  const { day, month } = usagePeriods(now);
  if (opts.source === 'trigger') {
    const w = triggerWindows(accountId, domain, now);
    const hits = await countHits(db, [w.day, w.month]);
    const within = withinLimits(
      { day: hits.get(w.day.bucket) ?? 1, month: hits.get(w.month.bucket) ?? 1 },
      limits,
    );
    if (!within && !opts.always) throw refusal(domain, limits, opts);
    return;
  }
  const always = opts.always === true;
  if (!(await countDomainUse(db, { accountId, domain, day, month, now, limits, always }))) {
    throw refusal(domain, limits, opts);
  }
}
