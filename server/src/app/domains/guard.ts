import {
  countedNames,
  type DomainLimits,
  type SendSource,
  thresholdMessage,
  usagePeriods,
  withinLimits,
} from '../../domain/domains/rules.js';
import { countHits } from '../../persistence/rate-limit-windows.js';
import { isBlockedAddress } from '../../domain/destinations/policy.js';
import { type Sql, withSavepoint } from '../../persistence/database.js';
import { countDomainUse, domainUse, isVerified } from '../../persistence/domains.js';
import { ValidationError } from '../errors.js';

/**
 * Counts one outgoing send of an account to the hostname of `url` (spec 4.6) and refuses it with a
 * DestinationThresholdError (a 422 on `opts.field`, default `request.url`) when the hostname is unverified and past
 * the day or month threshold. Call it in the transaction that creates the resource (action, chain HTTP step,
 * template trigger) or claims the send (a later occurrence of a series, a manual retry, a callback): a rollback gives
 * the count back. It must run in a transaction. Answers whether the send was counted: false for IP literals of private addresses, unparsable URLs and
 * verified hosts.
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
 * Whether creates to `url` are outside the threshold: an IP literal, or a host the account has verified. A plain read
 * for a caller deciding whether it needs a transaction at all; a verification removed in between lets at most the
 * racing create through uncounted.
 */
export async function isUncountedDestination(db: Sql, accountId: string, url: string): Promise<boolean> {
  const names = countedNames(url, isBlockedAddress);
  return names.length === 0 || (await anyVerified(db, accountId, names));
}

/** A host verified, or its registrable domain verified (which proves control of the whole zone). */
async function anyVerified(db: Sql, accountId: string, names: readonly string[]): Promise<boolean> {
  for (const name of names) if (await isVerified(db, accountId, name)) return true;
  return false;
}

/** The one implementation of the destination threshold, bound to the operator's limits. */
export function destinationGuard(limits: DomainLimits): CountDestination {
  return async (db, accountId, url, now, opts = {}) => {
    // The host, its registrable domain when different, or a public IP literal's address: every way to a host counts.
    const names = countedNames(url, isBlockedAddress);
    if (names.length === 0) return false;
    // A verified host is not limited: it is not counted either, so its busy senders never queue on one row lock.
    if (!opts.unverified && (await anyVerified(db, accountId, names))) return false;
    const countAll = async () => {
      for (const domain of names) await countOne(db, accountId, domain, now, limits, opts);
    };
    // A host and its registrable domain count together or not at all: under a savepoint, a refusal of the second
    // gives back the first, even for a caller that goes on in its transaction (a chain step, a blocked send).
    await (names.length > 1 ? withSavepoint(db, countAll) : countAll());
    return true;
  };
}

/**
 * Why the next send of an account to `url`'s host would be refused by the threshold, or null when it would go (a
 * read: nothing is counted). For what is saved now and sends later (an alert rule's channels): the save is refused
 * while the host is already at its limit; each send is still counted by the CountDestination when it is made.
 */
export type DestinationCheck = (db: Sql, accountId: string, url: string, now: Date) => Promise<string | null>;

/** The read-only check of the same threshold, bound to the operator's limits. */
export function destinationCheck(limits: DomainLimits): DestinationCheck {
  return async (db, accountId, url, now) => {
    const names = countedNames(url, isBlockedAddress);
    if (names.length === 0) return null;
    const rows = await domainUse(db, accountId, names);
    if (rows.some((r) => r.verified)) return null;
    const { day, month } = usagePeriods(now);
    for (const r of rows) {
      const counts = {
        day: (r.day_start.getTime() >= day.getTime() ? r.day_count : 0) + 1,
        month: (r.month_start.getTime() >= month.getTime() ? r.month_count : 0) + 1,
      };
      if (!withinLimits(counts, limits)) return thresholdMessage(r.domain, limits);
    }
    return null;
  };
}

async function countOne(
  db: Sql,
  accountId: string,
  domain: string,
  now: Date,
  limits: DomainLimits,
  opts: { field?: string; source?: SendSource },
): Promise<void> {
  const { day, month } = usagePeriods(now);
  if (opts.source === 'trigger') {
    const nextDay = new Date(day.getTime() + 86_400_000);
    const nextMonth = new Date(Date.UTC(month.getUTCFullYear(), month.getUTCMonth() + 1, 1));
    const bucket = (period: string) => `trigger-domain-${period}:${accountId}:${domain}`;
    const hits = await countHits(db, [
      { bucket: bucket('day'), start: day, end: nextDay },
      { bucket: bucket('month'), start: month, end: nextMonth },
    ]);
    const within = withinLimits(
      { day: hits.get(bucket('day')) ?? 1, month: hits.get(bucket('month')) ?? 1 },
      limits,
    );
    if (!within)
      throw new DestinationThresholdError(opts.field ?? 'request.url', thresholdMessage(domain, limits));
    return;
  }
  if (!(await countDomainUse(db, { accountId, domain, day, month, now, limits }))) {
    throw new DestinationThresholdError(opts.field ?? 'request.url', thresholdMessage(domain, limits));
  }
}
