import { REMINDER_EVENT } from '@sched/contract';
import { EVENT_EFFECTS, type EventEffects } from '../../domain/action/effects.js';
import type { SetTransition } from '../../domain/action/set-transition.js';
import {
  type ActionEvent,
  type ActionState,
  assertTransition,
  InvalidTransitionError,
} from '../../domain/action/states.js';
import {
  type ActionChanges,
  type ActionRow,
  findAction,
  updateAction,
  updateActions,
} from '../../persistence/actions.js';
import { type GateActionFields, updateGate } from '../../persistence/approvals/gates.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
import { addToTimeline } from '../../persistence/timeline.js';
import { auditEventOf, recordAuditEvents } from '../audit.js';
import { NotFoundError } from '../errors.js';
import type { ActionScheduler, CallbackQueue, OperatorEvents } from '../ports.js';

/** What the change of one event needs: where its callback, alert and next attempt go. */
export interface TransitionDeps {
  callbacks: CallbackQueue;
  scheduler: ActionScheduler;
  operatorEvents?: OperatorEvents | undefined;
}

export interface ActionEventChange {
  now: Date;
  /** The state the event applies to, when the row read is not it (a claim moved `scheduled` to `resolved`). */
  from?: ActionState;
  /** The reason the table's `error: set` writes, and a failure's callback and alert report. */
  error?: string;
  /** The next attempt's time, for `next: due`. */
  nextAttemptAt?: Date;
  /** Columns of this change beyond the table's (a recurrence's counters, `executed_at`). */
  set?: Omit<ActionChanges, 'status' | 'updated_at' | 'next_attempt_at' | 'lease_until' | 'last_error'>;
  /** Merged into the gate's running state in the same statement (an approval's change). */
  gate?: Partial<StoredGate>;
  /** The HTTP status a failure's callback and alert report. */
  statusCode?: number | null;
  /** Fields of the callback beyond the table's (an executed attempt's timing, a timeout's rule). */
  callback?: Record<string, unknown>;
  /** The notes of the timeline entry the table declares (who asked, until when). */
  timeline?: string;
  /** The details of the audit event the table declares, given the new state; `{ from_status }` when absent. */
  audit?: (to: ActionState) => Record<string, unknown>;
}

/** The account's action, locked for a change in the caller's transaction; 404 when unknown (or another account's). */
export async function lockOwnAction(db: Sql, accountId: string, id: string): Promise<ActionRow> {
  const row = await findAction(db, accountId, id, { forUpdate: true });
  if (!row) throw new NotFoundError('action');
  return row;
}

/**
 * The one way an action changes state: asserts the event against the state table (domain/action/states.ts), writes
 * the new state with the resets the effects table (domain/action/effects.ts) declares, announces the next attempt,
 * and emits what the event implies (callback, alert, timeline entry, audit event), all in the caller's transaction.
 * Answers the row as written.
 */
export async function applyActionEvent(
  db: Sql,
  row: ActionRow,
  event: ActionEvent,
  change: ActionEventChange,
  deps: TransitionDeps,
): Promise<ActionRow> {
  const { to, fields, next } = planActionEvent(row, event, change);
  // A gate's change writes its running state in the same statement (and ends the lease likewise).
  const written = change.gate
    ? await updateGate(db, row.id, change.gate, fields as GateActionFields, change.now)
    : await updateAction(db, row.id, { ...fields, lease_until: null, updated_at: change.now });
  await appliedEventEffects(db, row, event, { ...change, to, next }, deps);
  return written;
}

/** What an event writes on its row, read from the tables: its target state and the columns of its change. */
export interface PlannedEvent {
  to: ActionState;
  /** The row's new columns: the state, the table's resets and the caller's own (the lease and `updated_at` aside). */
  fields: ReturnType<typeof writtenFields>['fields'];
  /** The next attempt's time the event announces (`next: due`), null when it clears it, undefined when it keeps it. */
  next: Date | null | undefined;
}

/**
 * The pure half of `applyActionEvent`: asserts the transition and works out the columns it writes, for a caller that
 * writes them itself in a statement of its own (the record stage's outcomes, several rows at once), and then
 * applies `appliedEventEffects`. The lease ends and `updated_at` is the change's `now`, as in every change but the
 * claim.
 */
export function planActionEvent(
  row: Pick<ActionRow, 'status'>,
  event: ActionEvent,
  change: Pick<ActionEventChange, 'from' | 'set' | 'nextAttemptAt' | 'error'>,
): PlannedEvent {
  const to = assertTransition(change.from ?? row.status, event);
  const { fields, next } = writtenFields(EVENT_EFFECTS[event], event, to, change);
  return { to, fields, next };
}

/**
 * What follows a written change, as the tables declare it: the next attempt announced, the callback, alert and
 * timeline entry (`actionEventEffects`) and the audit event, in the caller's transaction.
 */
export async function appliedEventEffects(
  db: Sql,
  row: ActionRow,
  event: ActionEvent,
  change: ActionEventChange & { to: ActionState; next: Date | null | undefined },
  deps: TransitionDeps,
): Promise<void> {
  if (change.next && change.to !== 'paused') await deps.scheduler.schedule(db, row.id, change.next);
  await actionEventEffects(db, row, event, change, deps);
  await recordAuditEvents(db, auditOf(row, event, change, change.to));
}

/**
 * The columns a set-based change (domain/action/set-transition.ts) writes on one row, for the careful path beside its
 * statement (the claim by id under the row's lock): the same state, resets and lease, from the same tables. Throws
 * when the row is in a state the change does not apply from.
 */
export function setTransitionFields(
  t: SetTransition,
  from: ActionState,
  p: { now: Date; leaseUntil?: Date },
): ActionChanges {
  if (!t.from.includes(from)) throw new InvalidTransitionError(from, t.events[t.events.length - 1]!);
  if (t.lease === 'take' && !p.leaseUntil)
    throw new Error(`${t.events.join(', ')} takes a lease: give its end`);
  return {
    status: t.to,
    ...(t.next === 'none' && { next_attempt_at: null }),
    ...(t.error === 'clear' && { last_error: null }),
    lease_until: t.lease === 'take' ? p.leaseUntil! : null,
    updated_at: p.now,
  };
}

/**
 * `applyActionEvent` for several rows locked by the caller, one event, one statement per target state (a bulk
 * operation's batch): the same assertion, resets and effects, their audit events written together.
 */
export async function applyActionEventToRows(
  db: Sql,
  rows: readonly ActionRow[],
  event: ActionEvent,
  change: Omit<ActionEventChange, 'from' | 'gate' | 'nextAttemptAt'>,
  deps: TransitionDeps,
): Promise<void> {
  const effects = EVENT_EFFECTS[event];
  if (effects.next === 'due') throw new Error(`event ${event} needs a next attempt's time per row`);
  const byTarget = new Map<ActionState, ActionRow[]>();
  for (const row of rows) {
    const to = assertTransition(row.status, event);
    byTarget.set(to, [...(byTarget.get(to) ?? []), row]);
  }
  for (const [to, group] of byTarget) {
    const { fields } = writtenFields(effects, event, to, change);
    await updateActions(
      db,
      group.map((r) => r.id),
      { ...fields, lease_until: null, updated_at: change.now },
    );
    for (const row of group) await actionEventEffects(db, row, event, { ...change, to }, deps);
  }
  await recordAuditEvents(
    db,
    rows.flatMap((row) => auditOf(row, event, change, assertTransition(row.status, event))),
  );
}

/** The columns the event writes: its state, the table's resets, and the caller's own. */
function writtenFields(
  effects: EventEffects,
  event: ActionEvent,
  to: ActionState,
  change: Pick<ActionEventChange, 'set' | 'nextAttemptAt' | 'error'>,
) {
  const next = effects.next === 'none' ? null : effects.next === 'due' ? change.nextAttemptAt : undefined;
  if (effects.next === 'due' && !next) throw new Error(`event ${event} needs the next attempt's time`);
  const fields = {
    ...change.set,
    status: to,
    ...(next !== undefined && { next_attempt_at: next }),
    ...(effects.error === 'clear' && { last_error: null }),
    ...(effects.error === 'set' && { last_error: change.error ?? null }),
  };
  return { fields, next };
}

function auditOf(
  row: ActionRow,
  event: ActionEvent,
  change: Pick<ActionEventChange, 'audit'>,
  to: ActionState,
) {
  const action = EVENT_EFFECTS[event].audit;
  if (!action) return [];
  return [
    auditEventOf(row.account_id, {
      action,
      resource: { type: 'action', id: row.id },
      details: change.audit ? change.audit(to) : { from_status: row.status },
    }),
  ];
}

/**
 * The callback, the alert and the timeline entry an event implies (domain/action/effects.ts), in the caller's
 * transaction; `applyActionEvent` ends with it and writes the audit event. Called alone only where a change is told
 * as another event than the one written (a timeout's grant that moves a series on, app/approvals/outcomes.ts).
 */
export async function actionEventEffects(
  db: Sql,
  row: ActionRow,
  event: ActionEvent,
  change: Pick<ActionEventChange, 'now' | 'error' | 'statusCode' | 'callback' | 'timeline'> & {
    to: ActionState;
  },
  deps: Pick<TransitionDeps, 'callbacks' | 'operatorEvents'>,
): Promise<void> {
  const effects = EVENT_EFFECTS[event];
  const callback = effects.callback?.[row.mode];
  const error = change.error ?? null;
  const statusCode = change.statusCode ?? null;
  if (callback === 'action.failed')
    await deps.callbacks.enqueue(db, row, callback, {
      status: change.to,
      response_code: statusCode,
      total_attempts: row.attempt_count,
      error_message: error,
      ...change.callback,
    });
  else if (callback === 'action.executed')
    await deps.callbacks.enqueue(db, row, callback, { status: 'executed', ...change.callback });
  else if (callback)
    await deps.callbacks.enqueue(db, row, callback, { status: change.to, ...change.callback });
  if (effects.alert === 'action.failed')
    await deps.operatorEvents?.record(db, {
      account_id: row.account_id,
      type: 'action.failed',
      at: change.now,
      destination_host: row.destination_host,
      subject: { type: 'action', id: row.id },
      details: {
        name: row.name,
        mode: row.mode,
        origin: row.destination_origin,
        dedup_keys: row.dedup_keys,
        status_code: statusCode,
        attempts: row.attempt_count,
        error,
      },
    });
  if (effects.timeline)
    await addToTimeline(db, row.id, [
      { type: REMINDER_EVENT[effects.timeline], actor: null, notes: change.timeline ?? null },
    ]);
}
