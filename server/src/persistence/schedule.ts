import { sql } from 'kysely';
import { PROMOTE } from '../domain/action/set-transition.js';
import type { ActionState } from '../domain/action/states.js';
import type { Sql } from './database.js';
import { fromSql, transitionSql } from './delivery-claims.js';
import { dueHorizonSql } from './due-index.js';
import { PENDING_PHASE_SQL } from './entities/action.js';
import { liveMembersSql, ownerKeySql } from './workers.js';

const SCHEDULED = sql.lit('scheduled' satisfies ActionState);
const RESOLVED = sql.lit('resolved' satisfies ActionState);
const PROMOTED_FROM = sql.raw(fromSql(PROMOTE));
// The partial indexes' condition (the due index, actions_held_index), spelled as they are; a read of the due index
// also states the day's horizon (persistence/due-index.ts).
const PENDING = sql.raw(PENDING_PHASE_SQL);

// The `actions` table is the schedule: these statements read and mark it for the triggers of jobs/.
// Their status constants are literals, not parameters: a generic plan of a prepared statement must still be able to
// use the partial due index (with a parameter in `status in (...)` it scanned the table: measured
// 900 ms over 1M rows against 0.15 ms).

/** The channel on which attempts due soon are announced, each as `id,dueMs` (jobs/dispatcher.ts listens). */
export const DUE_CHANNEL = 'sched_action_due';

/** The announcement's payload (`id,dueMs`) of a row, as SQL over its id and due time columns. */
export function duePayloadSql(id: string, dueAt: string): string {
  return `${id}::text || ',' || floor(extract(epoch from ${dueAt}) * 1000)::bigint`;
}

/**
 * Tells listening workers of attempts due soon (`id,dueMs` on DUE_CHANNEL, delivered at the caller's commit), so the
 * owner of each wakes in time: one statement for any number of them.
 */
export async function announceDue(
  db: Sql,
  attempts: readonly { actionId: string; dueAt: Date }[],
): Promise<void> {
  if (attempts.length === 0) return;
  // The payload written by the one SQL expression that also serves the create's statement (persistence/actions.ts).
  await sql`select pg_notify(${DUE_CHANNEL}, ${sql.raw(duePayloadSql('t.id', 't.due'))})
              from unnest(${attempts.map((t) => t.actionId)}::uuid[], ${attempts.map((t) => t.dueAt)}::timestamptz[])
                as t(id, due)`.execute(db);
}

/** The part of the due set a worker looks after: its slot among the live workers, and everyone's overdue attempts. */
export interface DueShare {
  /** Live workers and this one's place among them (persistence/workers.ts `ownerSlot`). */
  slots: number;
  slot: number;
  /** Attempts due before this are anyone's: their owner may have died before the others noticed. */
  overdueBefore: Date;
}

/**
 * A worker's share named by its member number (persistence/workers.ts): its slot among the live workers is read in
 * the statement that uses it, from their member locks.
 */
export interface MemberShare {
  member: number;
  overdueBefore: Date;
}

/**
 * The share's slot and slot count, and the live members when read (`members`, null for a share given as a slot), as
 * a CTE: a member that holds no lock has a null slot and owns nothing.
 */
const shareCte = (share: DueShare | MemberShare) =>
  'member' in share
    ? sql`share as (select cardinality(m.ids) as slots, array_position(m.ids, ${share.member}::int8) - 1 as slot,
                           m.ids as members
                      from (select ${sql.raw(liveMembersSql)} as ids) m)`
    : sql`share as (select ${share.slots}::int as slots, ${share.slot}::int as slot, null::int8[] as members)`;

/**
 * The ownership rule, one predicate over the `share` CTE: a row is the worker's when its owner key falls in the
 * worker's slot, or when it is overdue (anyone's); a member without a slot owns nothing.
 */
const owned = (overdueBefore: Date) =>
  sql`(select slot from share) is not null
      and (${sql.raw(ownerKeySql('id'))} % (select slots from share) = (select slot from share)
           or next_attempt_at < ${overdueBefore})`;

/**
 * Moves up to `limit` of the worker's `scheduled` attempts due before `until` into the window (the state table's
 * promote, `PROMOTE`), and answers how many it moved, the earliest due time of the worker's share that is not held
 * (the worker's safety net for a wake-up it was not told of) and, for a share named by its member, the live members
 * it read. Rows locked by another transaction are skipped: the next scan sees them.
 */
export async function promoteEntering(
  db: Sql,
  w: { until: Date; now: Date; limit: number; share: DueShare | MemberShare },
): Promise<{ promoted: number; nextDue: Date | null; members: number[] | null }> {
  const mine = owned(w.share.overdueBefore);
  // Unheld and held attempts read apart, each through its partial index (actions_due_index, actions_held_index): a
  // claim may hold an attempt before it entered the window, and it enters all the same.
  const { rows } = await sql<{ promoted: number; next_due: Date | null; members: string[] | null }>`
    with ${shareCte(w.share)}, unheld as (
      select id from actions
       where ${PENDING} and status in (${PROMOTED_FROM}) and next_attempt_at <= ${w.until} and held_since is null
         and ${sql.raw(dueHorizonSql(w.now))} and ${mine}
       order by next_attempt_at
       limit ${sql.lit(w.limit)}
         for update skip locked
    ), held as (
      select id from actions
       where ${PENDING} and status in (${PROMOTED_FROM}) and next_attempt_at <= ${w.until} and held_since is not null and ${mine}
       order by next_attempt_at
       limit ${sql.lit(w.limit)}
         for update skip locked
    ), moved as (
      update actions a set ${sql.raw(transitionSql(PROMOTE, { now: 'p.now' }))}
        from (select ${w.now}::timestamptz as now) p
        where a.id in (select id from unheld union all select id from held) returning a.id
    )
    select (select count(*) from moved)::int as promoted,
           (select min(next_attempt_at) from actions
             where ${PENDING} and status in (${SCHEDULED}, ${RESOLVED}) and held_since is null
               and ${sql.raw(dueHorizonSql(w.now))} and ${mine}) as next_due,
           (select members from share) as members`.execute(db);
  const row = rows[0];
  return {
    promoted: row?.promoted ?? 0,
    nextDue: row?.next_due ?? null,
    members: row?.members ? row.members.map(Number) : null,
  };
}

/** The worker's due attempts held by their destination (paused, flow control), to look at again. */
export async function heldDue(
  db: Sql,
  now: Date,
  share: DueShare,
  limit = 1_000,
): Promise<{ id: string; accountId: string }[]> {
  const { rows } = await sql<{ id: string; account_id: string }>`
    with ${shareCte(share)}
    select id, account_id from actions
     where ${PENDING} and status in (${SCHEDULED}, ${RESOLVED}) and next_attempt_at <= ${now} and held_since is not null
       and ${owned(share.overdueBefore)}
     order by next_attempt_at limit ${sql.lit(limit)}`.execute(db);
  return rows.map((r) => ({ id: r.id, accountId: r.account_id }));
}

/** How many attempts are due and not yet fired at `now`, and how late the oldest is (seconds). */
export async function dueBacklog(db: Sql, now: Date): Promise<{ depth: number; oldestSeconds: number }> {
  // Unheld and held rows counted apart: each part has its own partial index (actions_due_index, actions_held_index).
  const { rows } = await sql<{ depth: number; oldest: Date | null }>`
    select sum(n)::int as depth, min(oldest) as oldest from (
      select count(*) as n, min(next_attempt_at) as oldest from actions
       where ${PENDING} and status in (${SCHEDULED}, ${RESOLVED}) and held_since is null and next_attempt_at <= ${now}
         and ${sql.raw(dueHorizonSql(now))}
      union all
      select count(*), min(next_attempt_at) from actions
       where ${PENDING} and status in (${SCHEDULED}, ${RESOLVED}) and held_since is not null and next_attempt_at <= ${now}) parts`.execute(
    db,
  );
  const oldest = rows[0]?.oldest;
  return {
    depth: rows[0]?.depth ?? 0,
    oldestSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
  };
}
