import type { ActionState } from '../domain/action/states.js';
import type { HoldReason } from '@sched/contract';
import type { ErrorClass } from '../domain/delivery/error-class.js';
import type { CircuitState } from '../domain/destinations/circuit.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import type { ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';
import { timeOrderedId } from './ids.js';
import { ownerKeySql } from './workers.js';

// Vocabulary inside SQL text is interpolated from typed constants, never spelled out by hand.
const WEBHOOK: ActionRow['mode'] = 'webhook';
const APPROVAL: ActionRow['mode'] = 'approval';
const EXECUTING: ActionState = 'executing';
const SCHEDULED: ActionState = 'scheduled';
const RESOLVED: ActionState = 'resolved';
const PAUSED: HoldReason = 'paused';
const CIRCUIT: HoldReason = 'circuit';
const OPEN: CircuitState = 'open';
const HALF_OPEN: CircuitState = 'half_open';
const DISABLED: CircuitState = 'disabled';

/** One attempt as the attempt log records it. */
export interface AttemptRecord {
  actionId: string;
  attemptNumber: number;
  dueAt: Date;
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  outcome: DeliveryOutcome;
  /** Null for a success (domain/delivery/error-class.ts). */
  errorClass: ErrorClass | null;
  /** How long, and by what, the due attempt was held by its destination before it started; null when it was not. */
  held?: { ms: number; by: HoldReason } | null;
  error: string | null;
  excerpt: string | null;
  truncated: boolean;
}

/** The `delivery_attempts` row of an attempt: the one place that builds it (record, fast path and lease sweep). */
function attemptRow(a: AttemptRecord) {
  return {
    id: timeOrderedId(),
    action_id: a.actionId,
    attempt_number: a.attemptNumber,
    due_at: a.dueAt,
    started_at: a.startedAt,
    lateness_ms: Math.max(0, a.startedAt.getTime() - a.dueAt.getTime()),
    duration_ms: Math.max(0, Math.round(a.durationMs)),
    status_code: a.statusCode,
    outcome: a.outcome,
    error_class: a.errorClass,
    held_ms: a.held ? Math.max(0, Math.round(a.held.ms)) : null,
    held_by: a.held?.by ?? null,
    error: a.error,
    response_excerpt: a.excerpt,
    response_truncated: a.truncated,
  };
}

/** Logs an attempt and copies it onto its action as the latest one (the inbox's `last_attempt`), in one statement. */
export async function insertAttempt(db: Sql, a: AttemptRecord): Promise<void> {
  const row = attemptRow(a);
  await db
    .with('logged', (w) => w.insertInto('delivery_attempts').values(row).returning('id'))
    .updateTable('actions')
    .set({
      last_attempt_at: row.started_at,
      last_status_code: row.status_code,
      last_error_class: row.error_class,
      last_lateness_ms: row.lateness_ms,
    })
    .where('id', '=', a.actionId)
    .execute();
}

// Every attempt runs these two, for every attempt of a turn of the event loop at once (app/tick-batch.ts): fixed
// texts (see fixedStatement), constants interpolated once. A webhook to a paused destination, or to one
// whose circuit is open (before its `next_probe_at`) or disabled, is `held`: absent from the answer, so it stays
// durable and due and spends no attempt; the wake of its destination (app/destinations/breaker.ts) or the overdue
// sweep fires it again. The check is a primary-key probe of `destinations` inside the same statement, so a host
// without a row pays no extra round trip. One to an origin with flow control or a circuit due for a probe (`limited`)
// comes back unclaimed, for the careful path, which decides under the host's row lock (CircuitBreaker.admit). Rows
// are locked in id order, so two workers claiming overlapping batches wait for each other instead of deadlocking.
// A send whose destination threshold counts it when it is made (`counted_occurrence` behind `recurrence_index`: a
// series' later occurrence to an unverified host) also takes the careful path; a verified destination's is null, so
// its sends pay nothing for the threshold.
const claimStatement = fixedStatement<
  ActionRow & { claimed: boolean; was_held_since: Date | null; was_held_by: HoldReason | null }
>(
  `with held as (
     select a.id, case when d.paused_at is not null and (d.paused_until is null or d.paused_until > $6)
                       then '${PAUSED}' else '${CIRCUIT}' end as reason
       from actions a
       join destinations d on d.account_id = a.account_id and d.origin = a.destination_origin
      where a.id = any($1::uuid[]) and a.mode = '${WEBHOOK}'
        and ((d.paused_at is not null and (d.paused_until is null or d.paused_until > $6))
             or d.circuit_state = '${DISABLED}'
             or (d.circuit_state = '${OPEN}' and d.circuit_next_probe_at > $6))
   ), marked as (
     update actions set held_since = coalesce(held_since, $6),
       held_by = coalesce(held_by, (select reason from held where held.id = actions.id))
      where id in (select id from actions
                    where id in (select id from held) and held_since is null
                      and status = any($4::text[]) and next_attempt_at <= $5
                    order by id
                      for update skip locked)
   ), limited as (
     select a.id from actions a
       join destinations d on d.account_id = a.account_id and d.origin = a.destination_origin
      where a.id = any($1::uuid[]) and a.mode = '${WEBHOOK}'
        and (d.flow is not null or d.circuit_state in ('${OPEN}', '${HALF_OPEN}'))
   ), candidate as (
     select id, held_since, held_by from actions
      where id = any($1::uuid[]) and status = any($4::text[]) and next_attempt_at <= $5
        and id not in (select id from held) and id not in (select id from limited)
        and (mode <> '${WEBHOOK}' or attempt_count < max_attempts)
        and (coordination -> 'on_execute' is null
             or (mode = '${WEBHOOK}' and attempt_count > 0)
             or (mode = '${APPROVAL}' and gate ->> 'sent_at' is not null))
        and (mode <> '${WEBHOOK}' or counted_occurrence is null or counted_occurrence = recurrence_index)
      order by id
        for update
   ), claimed as (
     update actions a set status = $2, lease_until = $3, updated_at = $6, held_since = null, held_by = null,
       attempt_count = a.attempt_count + case when a.mode = '${WEBHOOK}' then 1 else 0 end
       from candidate c where a.id = c.id
     returning a.*, c.held_since as was_held_since, c.held_by as was_held_by
   )
   select claimed.*, true as claimed from claimed
   union all
   select actions.*, held_since, held_by, false from actions
    where id = any($1::uuid[]) and status = any($4::text[]) and next_attempt_at <= $5
      and id not in (select id from claimed) and id not in (select id from held)`,
);

const completeStatement = fixedStatement<{ action_id: string }>(
  `with attempt as (
     select * from unnest($1::uuid[], $2::uuid[], $3::int[], $4::timestamptz[], $5::timestamptz[], $6::int[],
                          $7::int[], $8::int[], $9::text[], $10::text[], $11::text[], $12::boolean[], $15::text[],
                          $16::int[], $17::text[])
       as t(id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms, status_code, outcome,
            error, response_excerpt, response_truncated, error_class, held_ms, held_by)
   ), finishing as (
     -- The state is compared as an expression the partial lease index cannot match: else the planner may read every
     -- executing row through that index (all the attempts in flight) instead of looking these up by id.
     select a.id from actions a join attempt t on t.action_id = a.id
      where a.id = any($2::uuid[]) and a.status || '' = '${EXECUTING}' and a.attempt_count = t.attempt_number
        and a.recurrence is null and a.callback_url is null
      order by a.id
        for update of a
   ), done as (
     update actions a set status = $13, next_attempt_at = null, lease_until = null, last_error = null,
       executed_at = $14, updated_at = $14, last_attempt_at = t.started_at, last_status_code = t.status_code,
       last_error_class = t.error_class, last_lateness_ms = t.lateness_ms
       from attempt t
      where a.id in (select id from finishing) and t.action_id = a.id
     returning a.id
   )
   insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at, lateness_ms, duration_ms,
     status_code, outcome, error, response_excerpt, response_truncated, error_class, held_ms, held_by)
   select t.id, t.action_id, t.attempt_number, t.due_at, t.started_at, t.lateness_ms, t.duration_ms, t.status_code,
          t.outcome, t.error, t.response_excerpt, t.response_truncated, t.error_class, t.held_ms, t.held_by
     from attempt t join done d on d.id = t.action_id
   returning action_id`,
);

/**
 * What an attempt needs of its action: to send it, and to record a plain outcome (anything else reads the row again in
 * its own transaction). A worker's claim answers only these: every column costs PostgreSQL its output and the worker
 * its parsing (a quarter of the claim's cost when it answered the whole row, measured).
 */
const ATTEMPT_COLUMNS = [
  'id',
  'account_id',
  'name',
  'mode',
  'destination_origin',
  'dedup_keys',
  'request',
  'webhook_secret',
  'callback_url',
  'recurrence',
  'recurrence_count',
  'chain_id',
  'attempt_count',
  'next_attempt_at',
  'traceparent',
] as const satisfies readonly (keyof ActionRow)[];
export type AttemptRow = Pick<ActionRow, (typeof ATTEMPT_COLUMNS)[number]>;
/** Typed nulls for the columns of a row that is not an attempt (the careful and empty answers). */
const UUID_COLUMNS: readonly string[] = ['id', 'account_id', 'chain_id'];
const nulls = (columns: readonly string[]) =>
  columns.map((c) => (UUID_COLUMNS.includes(c) ? 'null::uuid' : 'null')).join(', ');

// A worker's claim of what is due (jobs/dispatcher.ts runs it whenever something of its share falls due and it has
// room): the actions table's partial due index read in due order, the worker's share only (its slot among the live
// workers, and anyone's attempt overdue past the grace), every account given at most its room (round-robin, so one
// account's flood cannot take a worker's every slot; an account with no room is not read at all), and the rows
// locked with SKIP LOCKED, so two workers never claim one attempt and never wait for each other. What needs more than
// this statement comes back unclaimed, as it does from the claim by id above: an attempt to a paused host, or to one
// whose circuit is open or disabled, is marked held here; one to a host with flow control or a circuit due for a
// probe, a coordination rule, used-up attempts, a send to count or an approval's round go to the careful path. Held
// attempts are not read: they have triggers of their own (the destination's wake, the worker's held sweep).
// The rows chosen are looked up by id: their state is compared as an expression the partial due index cannot match,
// or the planner may read the whole due backlog through it. Every answer carries the earliest due time of the share
// after this claim and how many due rows it left, and a claim of nothing answers one row saying so, so
// pg_stat_statements' rows of this statement count claims, empty ones too.
const DUE = `'${SCHEDULED}', '${RESOLVED}'`;
export const claimBatchStatement = fixedStatement<
  AttemptRow & {
    kind: 'claimed' | 'careful' | 'none';
    next_due: Date | null;
    left_due: number;
    scanned: number;
  }
>(
  `with candidate as (
     select id, account_id, next_attempt_at from actions
      where status in (${DUE}) and next_attempt_at <= $1 and held_since is null
        and (${ownerKeySql('id')} % $5 = $6 or next_attempt_at < $7)
        and account_id <> all($8::uuid[])
      order by next_attempt_at
      limit $9
   ), ranked as (
     select c.id, c.next_attempt_at, coalesce(r.room, $10) as room,
            row_number() over (partition by c.account_id order by c.next_attempt_at, c.id) as turn
       from candidate c left join unnest($11::uuid[], $12::int[]) as r(account_id, room) on r.account_id = c.account_id
   ), chosen as (
     select id from ranked where turn <= room order by turn, next_attempt_at limit $4
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
            case when d.paused_at is not null and (d.paused_until is null or d.paused_until > $3) then '${PAUSED}'
                 when d.circuit_state = '${DISABLED}' or (d.circuit_state = '${OPEN}' and d.circuit_next_probe_at > $3)
                 then '${CIRCUIT}' end as held,
            d.flow is not null or d.circuit_state in ('${OPEN}', '${HALF_OPEN}') as limited
       from locked l join destinations d on d.account_id = l.account_id and d.origin = l.destination_origin
      where l.mode = '${WEBHOOK}'
   ), marked as (
     update actions a set held_since = $3, held_by = h.held from host h where a.id = h.id and h.held is not null
     returning a.id
   ), careful as (
     select l.id, l.account_id from locked l
      where l.id not in (select id from host where held is not null)
        and (l.id in (select id from host where limited) or l.mode <> '${WEBHOOK}'
             or l.attempt_count >= l.max_attempts
             or (l.coordination -> 'on_execute' is not null and l.attempt_count = 0)
             or (l.counted_occurrence is not null and l.counted_occurrence <> l.recurrence_index))
   ), claimed as (
     update actions a set status = $2, lease_until = $13, updated_at = $3, attempt_count = a.attempt_count + 1
       from locked l
      where a.id = l.id and l.id not in (select id from host where held is not null)
        and l.id not in (select id from careful)
     returning ${ATTEMPT_COLUMNS.map((c) => `a.${c}`).join(', ')}
   ), summary as (
     select (select min(next_attempt_at) from actions
              where status in (${DUE}) and held_since is null and next_attempt_at > $1
                and (${ownerKeySql('id')} % $5 = $6 or next_attempt_at < $7)) as next_due,
            (select count(*) from candidate)::int as scanned,
            ((select count(*) from candidate) - (select count(*) from locked)
             + (select count(*) from (select 1 from actions
                                       where cardinality($8::uuid[]) > 0 and account_id = any($8::uuid[])
                                         and status in (${DUE}) and next_attempt_at <= $1 and held_since is null
                                       limit $9) waiting))::int as left_due
   )
   select claimed.*, 'claimed' as kind, summary.* from claimed, summary
   union all
   select careful.id, careful.account_id, ${nulls(ATTEMPT_COLUMNS.slice(2))}, 'careful', summary.* from careful, summary
   union all
   select ${nulls(ATTEMPT_COLUMNS)}, 'none', summary.* from summary
    where not exists (select 1 from claimed) and not exists (select 1 from careful)`,
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
    to: ActionState;
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
  const rows = await claimBatchStatement(db, [
    c.until,
    c.to,
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

/** What a claim found for one action: claimed now, or the row as it stands when it may need the careful path. */
export interface ClaimFound {
  row: ActionRow;
  claimed: boolean;
  /** Since when and by what the claimed attempt had been held (the claim clears it on the row). */
  held: { since: Date; by: HoldReason } | null;
}

/**
 * Claims the due attempts of several actions in one statement, each that needs nothing else (no coordination rule
 * to check first, attempts left): those rows move to `to` under a lease (`claimed: true`). An action that is
 * claimable and due but needs more comes back as it stands (`claimed: false`) for the careful path; one that is not
 * due, or already taken (a duplicate trigger), is absent from the answer.
 */
export async function claimDue(
  db: Sql,
  c: {
    actionIds: readonly string[];
    from: readonly ActionState[];
    to: ActionState;
    leaseUntil: Date;
    dueBy: Date;
    now: Date;
  },
): Promise<Map<string, ClaimFound>> {
  const rows = await claimStatement(db, [c.actionIds, c.to, c.leaseUntil, c.from, c.dueBy, c.now]);
  return new Map(
    rows.map(({ claimed, was_held_since, was_held_by, ...row }) => [
      row.id,
      {
        row,
        claimed,
        held: was_held_since && was_held_by ? { since: was_held_since, by: was_held_by } : null,
      },
    ]),
  );
}

/**
 * The common success (one-time, no callback) of several attempts in one statement: each action moves to `to` and
 * its attempt is logged together, or neither when its lease was lost. Answers the actions completed; the caller
 * takes the others through the careful path.
 */
export async function completeOneShots(
  db: Sql,
  attempts: readonly AttemptRecord[],
  c: { to: ActionState; now: Date },
): Promise<Set<string>> {
  const rows = attempts.map(attemptRow);
  const column = <K extends keyof ReturnType<typeof attemptRow>>(k: K) => rows.map((r) => r[k]);
  const done = await completeStatement(db, [
    column('id'),
    column('action_id'),
    column('attempt_number'),
    column('due_at'),
    column('started_at'),
    column('lateness_ms'),
    column('duration_ms'),
    column('status_code'),
    column('outcome'),
    column('error'),
    column('response_excerpt'),
    column('response_truncated'),
    c.to,
    c.now,
    column('error_class'),
    column('held_ms'),
    column('held_by'),
  ]);
  return new Set(done.map((r) => r.action_id));
}

/** Executing actions whose lease ran out before `now`, oldest first. */
export async function expiredLeases(db: Sql, now: Date, limit = 100): Promise<string[]> {
  const rows = await db
    .selectFrom('actions')
    .select('id')
    .where('status', '=', 'executing')
    .where('lease_until', '<', now)
    .orderBy('lease_until')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}

/** Locks an action whose lease is still expired at `now`; null when another worker has it or it moved on. */
export async function lockExpiredLease(db: Sql, id: string, now: Date): Promise<ActionRow | null> {
  const row = await db
    .selectFrom('actions')
    .selectAll()
    .where('id', '=', id)
    .where('status', '=', 'executing')
    .where('lease_until', '<', now)
    .forUpdate()
    .skipLocked()
    .executeTakeFirst();
  return row ?? null;
}
