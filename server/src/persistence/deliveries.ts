import { randomUUID } from 'node:crypto';
import type { ActionState } from '../domain/action/states.js';
import type { HoldReason } from '@sched/contract';
import type { ErrorClass } from '../domain/delivery/error-class.js';
import type { CircuitState } from '../domain/destinations/circuit.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import type { ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';

// Vocabulary inside SQL text is interpolated from typed constants, never spelled out by hand.
const WEBHOOK: ActionRow['mode'] = 'webhook';
const APPROVAL: ActionRow['mode'] = 'approval';
const EXECUTING: ActionState = 'executing';
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
    id: randomUUID(),
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
// texts (see fixedStatement), constants interpolated once. A webhook to a paused destination (issue 24), or to one
// whose circuit is open (before its `next_probe_at`) or disabled, is `held`: absent from the answer, so it stays
// durable and due and spends no attempt; the wake of its destination (app/destinations/breaker.ts) or the overdue
// sweep fires it again. The check is a primary-key probe of `destinations` inside the same statement, so a host
// without a row pays no extra round trip. One to a host with flow control or a circuit due for a probe (`limited`)
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
       join destinations d on d.account_id = a.account_id and d.host = a.destination_host
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
       join destinations d on d.account_id = a.account_id and d.host = a.destination_host
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
     select a.id from actions a join attempt t on t.action_id = a.id
      where a.status = '${EXECUTING}' and a.attempt_count = t.attempt_number
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
