import type { HoldReason } from '@sched/contract';
import type { ActionState } from '../domain/action/states.js';
import type { ErrorClass } from '../domain/delivery/error-class.js';
import type { DeliveryOutcome } from '../domain/delivery/outcome.js';
import type { ActionChanges, ActionRow } from './actions.js';
import { fixedStatement, type Sql } from './database.js';
import { timeOrderedId } from './ids.js';

// The record stage's statements: an attempt's row in the log and its outcome on the action. (The claims are in
// delivery-claims.ts, the worker's claim of its due share and the lease sweep in delivery-scan.ts.)

const EXECUTING: ActionState = 'executing';

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
    // Well-formed, as UTF-8 would have made them: a lone surrogate half cannot cross JSON into text.
    error: a.error?.toWellFormed() ?? null,
    response_excerpt: a.excerpt?.toWellFormed() ?? null,
    response_truncated: a.truncated,
  };
}

/**
 * An attempt's row as the record statements read it from their JSON parameter: its instants as ISO text, which
 * JSON.stringify writes several times faster than it converts a Date.
 */
function attemptJsonRow(a: AttemptRecord) {
  const row = attemptRow(a);
  return { ...row, due_at: row.due_at.toISOString(), started_at: row.started_at.toISOString() };
}

/** What an attempt leaves on its action as the latest one (the inbox's `last_attempt`). */
export function latestAttempt(a: AttemptRecord) {
  const row = attemptRow(a);
  return {
    last_attempt_at: row.started_at,
    last_status_code: row.status_code,
    last_error_class: row.error_class,
    last_lateness_ms: row.lateness_ms,
  };
}

/**
 * The actions of attempts about to be recorded, as they stand, without a lock: a row in flight changes only through
 * its lease's holder or the lease sweep, and the outcome's statement writes it only while the lease is the recorder's.
 */
export async function actionsToRecord(db: Sql, ids: readonly string[]): Promise<Map<string, ActionRow>> {
  const rows = await db
    .selectFrom('actions')
    .selectAll()
    .where('id', 'in', [...ids])
    .execute();
  return new Map(rows.map((r) => [r.id, r]));
}

/**
 * Logs an attempt and nothing else: for a caller that changes its action in the same transaction and writes
 * `latestAttempt` with that change, so the row is rewritten once (each rewrite of these indexed columns moves every
 * index entry of the row).
 */
export async function logAttempt(db: Sql, a: AttemptRecord): Promise<void> {
  await db.insertInto('delivery_attempts').values(attemptRow(a)).execute();
}

/** Logs an attempt and copies it onto its action as the latest one, in one statement. */
export async function insertAttempt(db: Sql, a: AttemptRecord): Promise<void> {
  const row = attemptRow(a);
  await db
    .with('logged', (w) => w.insertInto('delivery_attempts').values(row).returning('id'))
    .updateTable('actions')
    .set(latestAttempt(a))
    .where('id', '=', a.actionId)
    .execute();
}

// Both record statements read their attempts as one JSON parameter ($1), a row per attempt with the log's columns
// (and, for an outcome, its change): native JSON.stringify, where fifteen parallel arrays had each of their elements
// escaped by the driver in JavaScript (about 20 µs of a delivery's 410 of server CPU in a profile). $2 repeats the
// actions' ids as an array, which is what lets the planner look the rows up by their key.
const ATTEMPT_COLUMNS = `id uuid, action_id uuid, attempt_number int, due_at timestamptz, started_at timestamptz,
     lateness_ms int, duration_ms int, status_code int, outcome text, error text, response_excerpt text,
     response_truncated boolean, error_class text, held_ms int, held_by text`;

// Both record statements end alike: the attempts of the actions whose update took (`done`) go into the log.
const INSERT_RECORDED_ATTEMPTS = `insert into delivery_attempts (id, action_id, attempt_number, due_at, started_at,
     lateness_ms, duration_ms, status_code, outcome, error, response_excerpt, response_truncated, error_class, held_ms,
     held_by)
   select t.id, t.action_id, t.attempt_number, t.due_at, t.started_at, t.lateness_ms, t.duration_ms, t.status_code,
          t.outcome, t.error, t.response_excerpt, t.response_truncated, t.error_class, t.held_ms, t.held_by
     from attempt t join done d on d.id = t.action_id
   returning action_id`;

// The record of plain successes (one-time, no callback) of a batch: the conditions a record needs of its action
// (executing, the attempt it recorded, nothing more to do) are the UPDATE's own, so READ COMMITTED re-checks them on the
// row as it stands once its lock is taken: a lease lost meanwhile, to the sweep or a cancel, records nothing, and no
// separate `FOR UPDATE` (a lock record in the WAL per row) is needed. The state is compared as an expression no
// partial index can match, so the planner looks these rows up by id.
const completeStatement = fixedStatement<{ action_id: string }>(
  `with attempt as (
     select * from json_to_recordset($1::json) as t(${ATTEMPT_COLUMNS})
   ), done as (
     update actions a set status = $3, next_attempt_at = null, lease_until = null, last_error = null,
       executed_at = $4, updated_at = $4, last_attempt_at = t.started_at, last_status_code = t.status_code,
       last_error_class = t.error_class, last_lateness_ms = t.lateness_ms
       from attempt t
      where a.id = any($2::uuid[]) and t.action_id = a.id and a.status || '' = '${EXECUTING}'
        and a.attempt_count = t.attempt_number and a.recurrence is null and a.callback_url is null
     returning a.id
   )
   ${INSERT_RECORDED_ATTEMPTS}`,
);

// The outcomes that are more than a plain success (a recurring action's next occurrence, a success with a
// callback, a retry, a failure) of one or several attempts: each action's change, worked out from the state table by
// the caller (app/actions/transition.ts `planActionEvent`) and passed as one JSON object per row, is written over the
// row as it stands, in the same statement as its attempt's row, under the same condition as a plain success's (the
// lease still the recorder's). The columns an outcome may write are listed once, below; the rest of the row keeps
// its values.
const OUTCOME_COLUMNS = [
  'status',
  'next_attempt_at',
  'last_error',
  'lease_until',
  'updated_at',
  'last_attempt_at',
  'last_status_code',
  'last_error_class',
  'last_lateness_ms',
  'executed_at',
  'last_executed_at',
  'recurrence_count',
  'recurrence_index',
  'scheduled_for',
  'attempt_count',
  'reschedule_count',
  'window_state',
] as const satisfies readonly (keyof ActionChanges)[];
const outcomeStatement = fixedStatement<{ action_id: string }>(
  `with attempt as (
     select * from json_to_recordset($1::json) as t(${ATTEMPT_COLUMNS}, changes jsonb)
   ), done as (
     update actions a set (${OUTCOME_COLUMNS.join(', ')}) =
       (select ${OUTCOME_COLUMNS.map((c) => `r.${c}`).join(', ')} from jsonb_populate_record(a, t.changes) r)
       from attempt t
      where a.id = any($2::uuid[]) and t.action_id = a.id and a.status || '' = '${EXECUTING}'
        and a.attempt_count = t.attempt_number
     returning a.id
   )
   ${INSERT_RECORDED_ATTEMPTS}`,
);

/**
 * The outcomes of several attempts in one statement (see above): each action takes its change and its attempt is
 * logged, or neither when its lease was lost. Answers the actions written; the caller takes the others through the
 * careful path.
 */
export async function recordOutcomes(
  db: Sql,
  outcomes: readonly { attempt: AttemptRecord; changes: ActionChanges }[],
): Promise<Set<string>> {
  for (const { changes } of outcomes) {
    const unknown = Object.keys(changes).filter((k) => !(OUTCOME_COLUMNS as readonly string[]).includes(k));
    if (unknown.length > 0) throw new Error(`an outcome cannot write ${unknown.join(', ')}`);
  }
  const rows = outcomes.map((o) => ({ ...attemptJsonRow(o.attempt), changes: o.changes }));
  const done = await outcomeStatement(db, [JSON.stringify(rows), rows.map((r) => r.action_id)]);
  return new Set(done.map((r) => r.action_id));
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
  const rows = attempts.map(attemptJsonRow);
  const done = await completeStatement(db, [JSON.stringify(rows), rows.map((r) => r.action_id), c.to, c.now]);
  return new Set(done.map((r) => r.action_id));
}
