import { CLAIM } from '../domain/action/set-transition.js';
import type { ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';
import {
  ATTEMPT_COLUMNS,
  fromSql,
  transitionSql,
  type AttemptRow,
  CIRCUIT,
  DISABLED,
  HALF_OPEN,
  nulls,
  OPEN,
  PAUSED,
  WEBHOOK,
} from './delivery-claims.js';
import { perDueHorizon } from './due-index.js';
import { PENDING_PHASE_SQL } from './entities/action.js';
import { ownerKeySql } from './workers.js';

// In flight under a lease: where the claim leads.
const EXECUTING = CLAIM.to;

// A worker's claim of what is due (jobs/dispatcher.ts runs it whenever something of its share falls due and it has
// room): the actions table's partial due index read in due order, the worker's share only (its slot among the live
// workers, and anyone's attempt overdue past the grace), every account given at most its room (round-robin, so one
// account's flood cannot take a worker's every slot; an account with no room is not read at all), and the rows
// locked with SKIP LOCKED, so two workers never claim one attempt and never wait for each other. What needs more than
// this statement comes back unclaimed, as it does from the claim by id (delivery-claims.ts): an attempt to a paused host, or to one
// whose circuit is open or disabled, is marked held here; one to a host with flow control or a circuit due for a
// probe, a coordination rule, used-up attempts, a send to count or an approval's round go to the careful path. Held
// attempts are not read: they have triggers of their own (the destination's wake, the worker's held sweep).
// The rows chosen are looked up by id: their state is compared as an expression the partial due index cannot match,
// or the planner may read the whole due backlog through it. Every answer carries the earliest due time of the share
// after this claim and how many due rows it left, and a claim of nothing answers one row saying so, so
// pg_stat_statements' rows of this statement count claims, empty ones too.
// Each read of the due index states the day's horizon (persistence/due-index.ts), so the text changes once a day.
const DUE = fromSql(CLAIM);
const PENDING = PENDING_PHASE_SQL;
export const claimBatchStatement = perDueHorizon((horizon) =>
  fixedStatement<
    AttemptRow & {
      kind: 'claimed' | 'careful' | 'none';
      next_due: Date | null;
      left_due: number;
      scanned: number;
    }
  >(
    `with candidate as (
     select id, account_id, next_attempt_at from actions
      where ${PENDING} and status in (${DUE}) and next_attempt_at <= $1 and held_since is null and ${horizon}
        and (${ownerKeySql('id')} % $4 = $5 or next_attempt_at < $6)
        and account_id <> all($7::uuid[])
      order by next_attempt_at
      limit $8
   ), ranked as (
     select c.id, c.next_attempt_at, coalesce(r.room, $9) as room,
            row_number() over (partition by c.account_id order by c.next_attempt_at, c.id) as turn
       from candidate c left join unnest($10::uuid[], $11::int[]) as r(account_id, room) on r.account_id = c.account_id
   ), chosen as (
     select id from ranked where turn <= room order by turn, next_attempt_at limit $3
   ), locked as (
     select a.id, a.account_id, a.destination_origin, a.mode, a.attempt_count, a.max_attempts, a.coordination,
            a.counted_occurrence, a.recurrence_index
       from actions a
      where a.id = any(array(select id from chosen)) and a.status || '' in (${DUE}) and a.next_attempt_at <= $1
        and a.held_since is null
      order by a.id
        for update skip locked
   ), host as (
     select l.id,
            case when d.paused_at is not null and (d.paused_until is null or d.paused_until > $2) then '${PAUSED}'
                 when d.circuit_state = '${DISABLED}' or (d.circuit_state = '${OPEN}' and d.circuit_next_probe_at > $2)
                 then '${CIRCUIT}' end as held,
            d.flow is not null or d.circuit_state in ('${OPEN}', '${HALF_OPEN}') as limited
       from locked l join destinations d on d.account_id = l.account_id and d.origin = l.destination_origin
      where l.mode = '${WEBHOOK}'
   ), marked as (
     update actions a set held_since = $2, held_by = h.held from host h where a.id = h.id and h.held is not null
     returning a.id
   ), careful as (
     select l.id, l.account_id from locked l
      where l.id not in (select id from host where held is not null)
        and (l.id in (select id from host where limited) or l.mode <> '${WEBHOOK}'
             or l.attempt_count >= l.max_attempts
             or (l.coordination -> 'on_execute' is not null and l.attempt_count = 0)
             or (l.counted_occurrence is not null and l.counted_occurrence <> l.recurrence_index))
   ), claimed as (
     update actions a set ${transitionSql(CLAIM, { leaseUntil: '$12', now: '$2' })}, attempt_count = a.attempt_count + 1
       from locked l
      where a.id = l.id and l.id not in (select id from host where held is not null)
        and l.id not in (select id from careful)
     returning ${ATTEMPT_COLUMNS.map((c) => `a.${c}`).join(', ')}
   ), summary as (
     select (select min(next_attempt_at) from actions
              where ${PENDING} and status in (${DUE}) and held_since is null and next_attempt_at > $1
                and ${horizon} and (${ownerKeySql('id')} % $4 = $5 or next_attempt_at < $6)) as next_due,
            (select count(*) from candidate)::int as scanned,
            ((select count(*) from candidate) - (select count(*) from locked)
             + (select count(*) from (select 1 from actions
                                       where cardinality($7::uuid[]) > 0 and account_id = any($7::uuid[])
                                         and ${PENDING} and status in (${DUE}) and next_attempt_at <= $1
                                         and held_since is null and ${horizon}
                                       limit $8) waiting))::int as left_due
   )
   select claimed.*, 'claimed' as kind, summary.* from claimed, summary
   union all
   select careful.id, careful.account_id, ${nulls(ATTEMPT_COLUMNS.slice(2))}, 'careful', summary.* from careful, summary
   union all
   select ${nulls(ATTEMPT_COLUMNS)}, 'none', summary.* from summary
    where not exists (select 1 from claimed) and not exists (select 1 from careful)`,
  ),
);

/** What a worker's claim took: the attempts now its own, the ids needing the careful path, and what is left. */
export interface DueClaim {
  claimed: AttemptRow[];
  careful: { id: string; accountId: string }[];
  /** The earliest due time of the share beyond the claim's horizon (null: nothing due in it). */
  nextDue: Date | null;
  /** Due rows left untaken: no room for them (counted up to `scan` for a full account), or locked by another claim. */
  leftDue: number;
  /** Due rows read (at most `scan`): as many means more may be due. */
  scanned: number;
}

/** Claims the due attempts of a worker's share (the statement above); see `DueClaim`. */
export async function claimDueShare(
  db: Sql,
  c: {
    until: Date;
    now: Date;
    leaseUntil: Date;
    limit: number;
    scan: number;
    share: { slots: number; slot: number; overdueBefore: Date };
    /** Accounts with attempts in flight here and the room each has left; `full` ones have none. */
    rooms: ReadonlyMap<string, number>;
    perAccount: number;
  },
): Promise<DueClaim> {
  const full = [...c.rooms].filter(([, room]) => room <= 0).map(([account]) => account);
  const open = [...c.rooms].filter(([, room]) => room > 0);
  const rows = await claimBatchStatement(c.now)(db, [
    c.until,
    c.now,
    c.limit,
    c.share.slots,
    c.share.slot,
    c.share.overdueBefore,
    full,
    c.scan,
    c.perAccount,
    open.map(([account]) => account),
    open.map(([, room]) => room),
    c.leaseUntil,
  ]);
  const first = rows[0];
  return {
    claimed: rows
      .filter((r) => r.kind === 'claimed')
      .map(({ kind: _k, next_due: _n, left_due: _l, scanned: _s, ...row }) => row),
    careful: rows.filter((r) => r.kind === 'careful').map((r) => ({ id: r.id, accountId: r.account_id })),
    nextDue: first?.next_due ?? null,
    leftDue: first?.left_due ?? 0,
    scanned: first?.scanned ?? 0,
  };
}

// The lease sweep. Attempts in flight keep their place in the due index (their claim wrote no index entry, to stay a
// HOT update), so the sweep reads that index up to now and keeps the executing rows whose lease ran out: at most the
// due backlog and the attempts in flight, never the history. A lease outlives its attempt's due time, so every
// expired one is due before `now`.
const expiredStatement = perDueHorizon((horizon) =>
  fixedStatement<{ id: string }>(
    `select id from actions
      where ${PENDING} and held_since is null and next_attempt_at <= $1 and ${horizon}
        and status || '' = '${EXECUTING}' and lease_until < $1
      order by next_attempt_at limit $2`,
  ),
);
const lockExpiredStatement = fixedStatement<ActionRow>(
  `select * from actions where id = $2 and status = '${EXECUTING}' and lease_until < $1 for update skip locked`,
);

/** Executing actions whose lease ran out before `now`, the earliest due first. */
export async function expiredLeases(db: Sql, now: Date, limit = 100): Promise<string[]> {
  return (await expiredStatement(now)(db, [now, limit])).map((r) => r.id);
}

/** Locks an action whose lease is still expired at `now`; null when another worker has it or it moved on. */
export async function lockExpiredLease(db: Sql, id: string, now: Date): Promise<ActionRow | null> {
  return (await lockExpiredStatement(db, [now, id]))[0] ?? null;
}
