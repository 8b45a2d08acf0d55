import { sql } from 'kysely';
import type { ActionState } from '@sched/contract';
import type { Sql } from './database.js';

/**
 * How many of an account's actions are in each state (states without actions are absent): `listed` as
 * `GET /v1/actions` lists them (a chain's step actions are read through their chain), `all` with the steps.
 */
export async function countActionsByStatus(
  db: Sql,
  accountId: string,
): Promise<Map<ActionState, { listed: number; all: number }>> {
  const { rows } = await sql<{ status: ActionState; listed: number; all: number }>`
    select status, (count(*) filter (where chain_id is null))::int as listed, count(*)::int as all
      from actions where account_id = ${accountId} group by status`.execute(db);
  return new Map(rows.map((r) => [r.status, { listed: r.listed, all: r.all }]));
}

/** Delivery figures of one hour (`hour` set) or of the whole span (`hour` null). */
export interface DeliveryFigures {
  hour: Date | null;
  attempts: number;
  succeeded: number;
  p50: number | null;
  p99: number | null;
}

/**
 * The account's delivery attempts started in [since, until): per hour and in all (a rollup row whose `hour` is
 * null), with lateness percentiles. Uses delivery_attempts' started_at index, then each attempt's action.
 */
export async function deliveryFigures(
  db: Sql,
  accountId: string,
  since: Date,
  until: Date,
): Promise<DeliveryFigures[]> {
  const { rows } = await sql<{
    hour: Date | null;
    attempts: number;
    succeeded: number;
    p50: number | null;
    p99: number | null;
  }>`
    select date_trunc('hour', d.started_at) as hour, count(*)::int as attempts,
           (count(*) filter (where d.outcome = 'success'))::int as succeeded,
           percentile_disc(0.5) within group (order by d.lateness_ms) as p50,
           percentile_disc(0.99) within group (order by d.lateness_ms) as p99
      from delivery_attempts d join actions a on a.id = d.action_id
     where d.started_at >= ${since} and d.started_at < ${until} and a.account_id = ${accountId}
     group by rollup (date_trunc('hour', d.started_at))`.execute(db);
  return rows;
}

/** Attempts per destination URL in [since, until), the most failed first (`limit` URLs). */
export interface FailingUrl {
  url: string;
  attempts: number;
  failed: number;
  last_failed_at: Date | null;
}

export async function failingUrls(
  db: Sql,
  accountId: string,
  since: Date,
  until: Date,
  limit: number,
): Promise<FailingUrl[]> {
  const { rows } = await sql<FailingUrl>`
    select a.request->>'url' as url, count(*)::int as attempts,
           (count(*) filter (where d.outcome <> 'success'))::int as failed,
           max(d.started_at) filter (where d.outcome <> 'success') as last_failed_at
      from delivery_attempts d join actions a on a.id = d.action_id
     where d.started_at >= ${since} and d.started_at < ${until} and a.account_id = ${accountId}
       and a.request is not null
     group by 1
     order by 3 desc, 2 desc
     limit ${limit}`.execute(db);
  return rows;
}
