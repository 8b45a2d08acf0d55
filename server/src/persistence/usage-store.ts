import type { Sql } from './db.js';

export type UsageMetric = 'actions' | 'emails' | 'sms' | 'chat_messages' | 'ai_suggestions';

/** Monthly usage counters, keyed by `YYYY-MM` in UTC. */
export const usageSql = {
  /**
   * Counts one use, refusing past `limit` (null = unlimited). Atomic, so two racing requests cannot both take
   * the last unit. Returns false when the limit is spent.
   */
  async consume(
    tx: Sql,
    accountId: string,
    period: string,
    metric: UsageMetric,
    limit: number | null,
    amount = 1,
  ): Promise<boolean> {
    const rows = await tx.query(
      `insert into usage_counters (account_id, period, metric, used) values ($1, $2, $3, $4)
       on conflict (account_id, period, metric) do update set used = usage_counters.used + $4
         where $5::int is null or usage_counters.used + $4 <= $5::int
       returning used`,
      [accountId, period, metric, amount, limit],
    );
    if (rows.length === 0) return false;
    // A first insert is not checked by the conflict clause.
    return limit === null || (rows[0] as { used: number }).used <= limit;
  },

  async usage(db: Sql, accountId: string, period: string): Promise<Record<string, number>> {
    const rows = await db.query<{ metric: string; used: number }>(
      'select metric, used from usage_counters where account_id = $1 and period = $2',
      [accountId, period],
    );
    return Object.fromEntries(rows.map((r) => [r.metric, r.used]));
  },
};

export function periodKey(d: { year: number; month: number }): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}`;
}
