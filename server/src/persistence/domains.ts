import type { Selectable } from 'kysely';
import { sql } from 'kysely';
import {
  type DomainLimits,
  type StoredUse,
  type VerificationMethod,
  withinLimits,
} from '../domain/domains/rules.js';
import type { Sql, Tables } from './database.js';

/** A `domains` row (persistence/entities/domain.ts). */
export type DomainRow = Selectable<Tables['domains']>;

/**
 * Counts one new action to `domain` in its UTC day and month and tells whether it may go: a verified domain always
 * may; an unverified one while both counts stay within the limits. One upsert, so the row lock orders racing
 * creates of every API process, and a refused create counts nothing. Runs in the create's transaction: a create
 * rolled back later gives its count back.
 */
export async function countDomainUse(
  db: Sql,
  u: {
    accountId: string;
    domain: string;
    day: Date;
    month: Date;
    now: Date;
    limits: DomainLimits;
    /** Counted whatever the counts: a send whose action was accepted (a callback) is never refused. */
    always?: boolean;
  },
): Promise<boolean> {
  // A period older than the stored one (a process whose clock lags) counts in the stored one.
  const dayCount = sql<number>`case when excluded.day_start <= domains.day_start then domains.day_count + 1 else 1 end`;
  const monthCount = sql<number>`case when excluded.month_start <= domains.month_start then domains.month_count + 1 else 1 end`;
  const row = await db
    .insertInto('domains')
    .values({
      account_id: u.accountId,
      domain: u.domain,
      day_start: u.day,
      day_count: 1,
      month_start: u.month,
      month_count: 1,
      created_at: u.now,
    })
    .onConflict((oc) =>
      oc
        .columns(['account_id', 'domain'])
        .doUpdateSet({
          day_count: dayCount,
          day_start: sql`greatest(domains.day_start, excluded.day_start)`,
          month_count: monthCount,
          month_start: sql`greatest(domains.month_start, excluded.month_start)`,
          // A removed domain is listed again once the account sends to it again.
          removed_at: null,
        })
        .where(
          u.always
            ? sql<boolean>`true`
            : sql<boolean>`domains.verified or (${dayCount} <= ${u.limits.perDay} and ${monthCount} <= ${u.limits.perMonth})`,
        ),
    )
    .returning(['verified', 'day_count', 'month_count'])
    .executeTakeFirst();
  // A first insert is not checked by the conflict clause.
  return (
    row !== undefined &&
    (u.always || row.verified || withinLimits({ day: row.day_count, month: row.month_count }, u.limits))
  );
}

/**
 * The stored counts of `domain` for the account, removed or not (removing a domain keeps its counts), and whether it
 * is verified; null when the account never sent to it. A plain read: a check before a create, no lock.
 */
export async function domainUse(
  db: Sql,
  accountId: string,
  domain: string,
): Promise<{ verified: boolean; use: StoredUse } | null> {
  const row = await db
    .selectFrom('domains')
    .select(['verified', 'day_start', 'day_count', 'month_start', 'month_count'])
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  if (!row) return null;
  return {
    verified: row.verified,
    use: {
      dayStart: row.day_start,
      dayCount: row.day_count,
      monthStart: row.month_start,
      monthCount: row.month_count,
    },
  };
}

/** Whether the account has verified `domain` (a plain read: no lock, so verified hosts never queue on the row). */
export async function isVerified(db: Sql, accountId: string, domain: string): Promise<boolean> {
  const row = await db
    .selectFrom('domains')
    .select('verified')
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .executeTakeFirst();
  return row?.verified === true;
}

export async function listDomains(db: Sql, accountId: string): Promise<DomainRow[]> {
  return db
    .selectFrom('domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('removed_at', 'is', null)
    .orderBy('domain')
    .execute();
}

export async function findDomain(db: Sql, accountId: string, domain: string): Promise<DomainRow | null> {
  const row = await db
    .selectFrom('domains')
    .selectAll()
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Starts (or restarts) verification: keeps the token a pending or verified domain already has, else stores
 * `token`; a pending domain's background checks start over from `now`.
 */
export async function startVerification(
  db: Sql,
  v: {
    accountId: string;
    domain: string;
    token: string;
    now: Date;
    day: Date;
    month: Date;
    firstCheckAt: Date;
  },
): Promise<DomainRow> {
  return db
    .insertInto('domains')
    .values({
      account_id: v.accountId,
      domain: v.domain,
      verification_token: v.token,
      verification_started_at: v.now,
      next_check_at: v.firstCheckAt,
      day_start: v.day,
      month_start: v.month,
      created_at: v.now,
    })
    .onConflict((oc) =>
      oc.columns(['account_id', 'domain']).doUpdateSet({
        verification_token: sql`coalesce(domains.verification_token, excluded.verification_token)`,
        verification_started_at: sql`case when domains.verified then domains.verification_started_at else excluded.verification_started_at end`,
        next_check_at: sql`case when domains.verified then null else excluded.next_check_at end`,
        check_attempts: sql`case when domains.verified then domains.check_attempts else 0 end`,
        removed_at: null,
      }),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
}

/** Records a check: verified by `method`, or still pending with each method's reason and the next check (if any). */
export async function recordCheck(
  db: Sql,
  c: {
    accountId: string;
    domain: string;
    now: Date;
    method: VerificationMethod | null;
    errors: Partial<Record<VerificationMethod, string>>;
    nextCheckAt: Date | null;
  },
): Promise<DomainRow | null> {
  const row = await db
    .updateTable('domains')
    .set((eb) => ({
      last_check_at: c.now,
      check_attempts: eb('check_attempts', '+', 1),
      last_errors: c.method ? null : c.errors,
      ...(c.method
        ? { verified: true, verified_at: c.now, method: c.method, next_check_at: null }
        : { next_check_at: c.nextCheckAt }),
    }))
    .where('account_id', '=', c.accountId)
    .where('domain', '=', c.domain)
    // A domain removed or verified meanwhile keeps what it has.
    .where('verification_token', 'is not', null)
    .where('verified', '=', false)
    .returningAll()
    .executeTakeFirst();
  return row ?? null;
}

/**
 * Removes a domain: its verification (token, method, pending checks) goes and it leaves the list. Its
 * counts of the current day and month stay, so removing a domain cannot reset its thresholds. False when the
 * account has no such domain listed (a second DELETE is a 404).
 */
export async function clearVerification(
  db: Sql,
  accountId: string,
  domain: string,
  now: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('domains')
    .set({
      verification_token: null,
      verified: false,
      verified_at: null,
      method: null,
      verification_started_at: null,
      last_check_at: null,
      next_check_at: null,
      check_attempts: 0,
      last_errors: null,
      removed_at: now,
    })
    .where('account_id', '=', accountId)
    .where('domain', '=', domain)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Domains of the account waiting for verification (a token, not verified, listed), `domain` itself aside. */
export async function countPendingDomains(db: Sql, accountId: string, domain: string): Promise<number> {
  const row = await db
    .selectFrom('domains')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account_id', '=', accountId)
    .where('domain', '!=', domain)
    .where('verification_token', 'is not', null)
    .where('verified', '=', false)
    .where('removed_at', 'is', null)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}
