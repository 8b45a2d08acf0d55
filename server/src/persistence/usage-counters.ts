import type { UsageMetric } from '../domain/quota/plans.js';
import { fixedStatement, type Sql } from './database.js';

/** Monthly usage counters, keyed by `YYYY-MM` in UTC. */
export function periodKey(d: { year: number; month: number }): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}`;
}

/**
 * Counts `amount` uses, refusing past `limit` (null = unlimited). Atomic, so two racing requests cannot both take
 * the last unit. Returns false when the limit is spent.
 */
// Every create counts one: a fixed text (see fixedStatement).
const consumeStatement = fixedStatement<{ used: number }>(
  `insert into usage_counters (account_id, period, metric, used) values ($1, $2, $3, $4)
   on conflict (account_id, period, metric) do update set used = usage_counters.used + $4
     where $5::int is null or usage_counters.used + $4 <= $5::int
   returning used`,
);

export async function consumeUsage(
  db: Sql,
  u: { accountId: string; period: string; metric: UsageMetric; limit: number | null; amount?: number },
): Promise<boolean> {
  const [row] = await consumeStatement(db, [u.accountId, u.period, u.metric, u.amount ?? 1, u.limit]);
  // A first insert is not checked by the conflict clause.
  return row !== undefined && (u.limit === null || row.used <= u.limit);
}

/** Each metric's count in one period; a metric never used is absent. */
export async function usageOf(
  db: Sql,
  accountId: string,
  period: string,
): Promise<Partial<Record<UsageMetric, number>>> {
  const rows = await db
    .selectFrom('usage_counters')
    .select(['metric', 'used'])
    .where('account_id', '=', accountId)
    .where('period', '=', period)
    .execute();
  return Object.fromEntries(rows.map((r) => [r.metric, r.used]));
}

/** The account's team members, counted against the plan. */
export async function countTeamMembers(db: Sql, accountId: string): Promise<number> {
  const row = await db
    .selectFrom('team_members')
    .select((eb) => eb.fn.countAll<string>().as('n'))
    .where('account_id', '=', accountId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
