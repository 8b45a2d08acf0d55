import type { HoldReason } from '@sched/contract';
import { CLAIM, type SetTransition } from '../domain/action/set-transition.js';
import type { CircuitState } from '../domain/destinations/circuit.js';
import type { ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';

// Vocabulary inside SQL text is interpolated from typed constants, never spelled out by hand.
export const WEBHOOK: ActionRow['mode'] = 'webhook';
const APPROVAL: ActionRow['mode'] = 'approval';
export const PAUSED: HoldReason = 'paused';
export const CIRCUIT: HoldReason = 'circuit';
export const OPEN: CircuitState = 'open';
export const HALF_OPEN: CircuitState = 'half_open';
export const DISABLED: CircuitState = 'disabled';

/**
 * The assignments of a change written to many rows at once, as the state table declares it (domain/action/
 * set-transition.ts): its state, its resets, the lease it takes or ends, and `updated_at`; `leaseUntil` and `now` are
 * the statement's parameters for them. The statement's own columns (the attempt count, the hold) follow it.
 */
export function transitionSql(t: SetTransition, p: { now: string; leaseUntil?: string }): string {
  if (t.lease === 'take' && !p.leaseUntil)
    throw new Error(`${t.events.join(', ')} takes a lease: give its end`);
  return [
    `status = '${t.to}'`,
    ...(t.next === 'none' ? ['next_attempt_at = null'] : []),
    ...(t.error === 'clear' ? ['last_error = null'] : []),
    `lease_until = ${t.lease === 'take' ? p.leaseUntil : 'null'}`,
    `updated_at = ${p.now}`,
  ].join(', ');
}

/** The states a set-based change applies from, as the list of an SQL `in`. */
export function fromSql(t: SetTransition): string {
  return t.from.map((s) => `'${s}'`).join(', ');
}
const CLAIM_FROM = fromSql(CLAIM);

// Every attempt fired by id runs this claim, for every attempt of a turn of the event loop at once (app/tick-batch.ts): fixed
// texts (see fixedStatement), constants interpolated once. A webhook to a paused destination, or to one
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
     select a.id, case when d.paused_at is not null and (d.paused_until is null or d.paused_until > $4)
                       then '${PAUSED}' else '${CIRCUIT}' end as reason
       from actions a
       join destinations d on d.account_id = a.account_id and d.origin = a.destination_origin
      where a.id = any($1::uuid[]) and a.mode = '${WEBHOOK}'
        and ((d.paused_at is not null and (d.paused_until is null or d.paused_until > $4))
             or d.circuit_state = '${DISABLED}'
             or (d.circuit_state = '${OPEN}' and d.circuit_next_probe_at > $4))
   ), marked as (
     update actions set held_since = coalesce(held_since, $4),
       held_by = coalesce(held_by, (select reason from held where held.id = actions.id))
      where id in (select id from actions
                    where id in (select id from held) and held_since is null
                      and status in (${CLAIM_FROM}) and next_attempt_at <= $3
                    order by id
                      for update skip locked)
   ), limited as (
     select a.id from actions a
       join destinations d on d.account_id = a.account_id and d.origin = a.destination_origin
      where a.id = any($1::uuid[]) and a.mode = '${WEBHOOK}'
        and (d.flow is not null or d.circuit_state in ('${OPEN}', '${HALF_OPEN}'))
   ), candidate as (
     select id, held_since, held_by from actions
      where id = any($1::uuid[]) and status in (${CLAIM_FROM}) and next_attempt_at <= $3
        and id not in (select id from held) and id not in (select id from limited)
        and (mode <> '${WEBHOOK}' or attempt_count < max_attempts)
        and (coordination -> 'on_execute' is null
             or (mode = '${WEBHOOK}' and attempt_count > 0)
             or (mode = '${APPROVAL}' and gate ->> 'sent_at' is not null))
        and (mode <> '${WEBHOOK}' or counted_occurrence is null or counted_occurrence = recurrence_index)
      order by id
        for update
   ), claimed as (
     update actions a set ${transitionSql(CLAIM, { leaseUntil: '$2', now: '$4' })}, held_since = null, held_by = null,
       attempt_count = a.attempt_count + case when a.mode = '${WEBHOOK}' then 1 else 0 end
       from candidate c where a.id = c.id
     returning a.*, c.held_since as was_held_since, c.held_by as was_held_by
   )
   select claimed.*, true as claimed from claimed
   union all
   select actions.*, held_since, held_by, false from actions
    where id = any($1::uuid[]) and status in (${CLAIM_FROM}) and next_attempt_at <= $3
      and id not in (select id from claimed) and id not in (select id from held)`,
);

/**
 * What an attempt needs of its action: to send it, and to record a plain outcome (anything else reads the row again in
 * its own transaction). A worker's claim answers only these: every column costs PostgreSQL its output and the worker
 * its parsing (a quarter of the claim's cost when it answered the whole row, measured).
 */
export const ATTEMPT_COLUMNS = [
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
export const nulls = (columns: readonly string[]) =>
  columns.map((c) => (UUID_COLUMNS.includes(c) ? 'null::uuid' : 'null')).join(', ');

/** What a claim found for one action: claimed now, or the row as it stands when it may need the careful path. */
export interface ClaimFound {
  row: ActionRow;
  claimed: boolean;
  /** Since when and by what the claimed attempt had been held (the claim clears it on the row). */
  held: { since: Date; by: HoldReason } | null;
}

/**
 * Claims the due attempts of several actions in one statement, each that needs nothing else (no coordination rule
 * to check first, attempts left): those rows take the state table's claim (`CLAIM`) under a lease (`claimed: true`). An action that is
 * claimable and due but needs more comes back as it stands (`claimed: false`) for the careful path; one that is not
 * due, or already taken (a duplicate trigger), is absent from the answer.
 */
export async function claimDue(
  db: Sql,
  c: {
    actionIds: readonly string[];
    leaseUntil: Date;
    dueBy: Date;
    now: Date;
  },
): Promise<Map<string, ClaimFound>> {
  const rows = await claimStatement(db, [c.actionIds, c.leaseUntil, c.dueBy, c.now]);
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
