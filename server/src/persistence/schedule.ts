import { sql } from 'kysely';
import type { ActionState } from '../domain/action/states.js';
import type { Sql } from './database.js';

const SCHEDULED = sql.lit('scheduled' satisfies ActionState);
const RESOLVED = sql.lit('resolved' satisfies ActionState);

// The `actions` table is the schedule: these statements read and mark it for the triggers of jobs/.
// Their status constants are literals, not parameters: a generic plan of a prepared statement must still be able to
// use the partial index actions_due_index (with a parameter in `status in (...)` it scanned the table: measured
// 900 ms over 1M rows against 0.15 ms).

/** Records that a job was written for `dueAt` and tells listening workers (delivered at commit). */
export async function markJobWritten(
  db: Sql,
  a: { actionId: string; dueAt: Date; channel: string },
): Promise<string | null> {
  // The payload names the account too, so a worker's fair admission needs no read before the attempt fires.
  const { rows } = await sql<{ account_id: string }>`
    with marked as (update actions set job_due_at = ${a.dueAt} where id = ${a.actionId} returning account_id)
    select account_id, pg_notify(${a.channel}, ${`${a.actionId},${a.dueAt.getTime()},`} || account_id) from marked`.execute(
    db,
  );
  return rows[0]?.account_id ?? null;
}

/**
 * Takes up to `limit` attempts due before `until` whose job is not written yet (or `scheduled` ones, which move to
 * `promoteTo`), marks their job as written and answers them. Rows locked by another transaction are skipped: the
 * next scan sees them.
 */
export async function takeEnteringWindow(
  db: Sql,
  w: { until: Date; now: Date; promoteTo: ActionState; limit: number },
): Promise<{ id: string; account_id: string; due: Date; needs_job: boolean }[]> {
  const promoted = sql.lit(w.promoteTo);
  const { rows } = await sql<{ id: string; account_id: string; due: Date; needs_job: boolean }>`
    with entering as (
      select id, next_attempt_at, job_due_at is distinct from next_attempt_at as needs_job
        from actions
       where status in (${SCHEDULED}, ${promoted})
         and next_attempt_at <= ${w.until}
         and (status = ${SCHEDULED} or job_due_at is distinct from next_attempt_at)
       order by next_attempt_at
       limit ${sql.lit(w.limit)}
         for update skip locked
    )
    update actions a set status = ${promoted}, job_due_at = e.next_attempt_at, updated_at = ${w.now}
      from entering e where a.id = e.id
    returning a.id, a.account_id, e.next_attempt_at as due, e.needs_job`.execute(db);
  return rows;
}

/** Resolved attempts due before `until`, soonest first, for in-process timers. */
export async function resolvedDueBefore(
  db: Sql,
  until: Date,
  limit = 10_000,
): Promise<{ id: string; accountId: string; dueMs: number }[]> {
  const { rows } = await sql<{ id: string; account_id: string; due: Date }>`
    select id, account_id, next_attempt_at as due from actions
     where status = ${RESOLVED} and next_attempt_at <= ${until}
     order by next_attempt_at limit ${sql.lit(limit)}`.execute(db);
  return rows.map((r) => ({ id: r.id, accountId: r.account_id, dueMs: r.due.getTime() }));
}

/** How many attempts are due and not yet fired at `now`, and how late the oldest is (seconds). */
export async function dueBacklog(db: Sql, now: Date): Promise<{ depth: number; oldestSeconds: number }> {
  const { rows } = await sql<{ depth: number; oldest: Date | null }>`
    select count(*)::int as depth, min(next_attempt_at) as oldest from actions
     where status in (${SCHEDULED}, ${RESOLVED}) and next_attempt_at <= ${now}`.execute(db);
  const oldest = rows[0]?.oldest;
  return {
    depth: rows[0]?.depth ?? 0,
    oldestSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}

/** The account an action belongs to (null when it is gone): only for a pg-boss job written without it. */
export async function accountOf(db: Sql, actionId: string): Promise<string | null> {
  const row = await db
    .selectFrom('actions')
    .select('account_id')
    .where('id', '=', actionId)
    .executeTakeFirst();
  return row?.account_id ?? null;
}
