import { EVENT_EFFECTS } from '../../domain/action/effects.js';
import { type ActionEvent, type ActionState, assertTransition } from '../../domain/action/states.js';
import { type ActionChanges, type ActionRow, updateAction } from '../../persistence/actions.js';
import { type GateActionFields, updateGate } from '../../persistence/approvals/gates.js';
import type { Sql } from '../../persistence/database.js';
import type { StoredGate } from '../../persistence/entities/stored.js';
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
}

/**
 * The one way an action changes state: asserts the event against the state table (domain/action/states.ts), writes
 * the new state with the resets the effects table (domain/action/effects.ts) declares, announces the next attempt,
 * and emits what the event implies (`actionEventEffects`), all in the caller's transaction. Answers the new state.
 */
export async function applyActionEvent(
  db: Sql,
  row: ActionRow,
  event: ActionEvent,
  change: ActionEventChange,
  deps: TransitionDeps,
): Promise<ActionState> {
  const to = assertTransition(change.from ?? row.status, event);
  const effects = EVENT_EFFECTS[event];
  const next = effects.next === 'none' ? null : effects.next === 'due' ? change.nextAttemptAt : undefined;
  if (effects.next === 'due' && !next) throw new Error(`event ${event} needs the next attempt's time`);
  const fields = {
    ...change.set,
    status: to,
    ...(next !== undefined && { next_attempt_at: next }),
    ...(effects.error === 'clear' && { last_error: null }),
    ...(effects.error === 'set' && { last_error: change.error ?? null }),
  };
  // A gate's change writes its running state in the same statement (and ends the lease likewise).
  if (change.gate) await updateGate(db, row.id, change.gate, fields as GateActionFields, change.now);
  else await updateAction(db, row.id, { ...fields, lease_until: null, updated_at: change.now });
  if (next) await deps.scheduler.schedule(db, row.id, next);
  await actionEventEffects(db, row, event, { ...change, to }, deps);
  return to;
}

/**
 * The callback and the alert an event implies (domain/action/effects.ts), for a change its caller wrote itself (an
 * approval's grant, whose writes are its own): `applyActionEvent` ends with it.
 */
export async function actionEventEffects(
  db: Sql,
  row: ActionRow,
  event: ActionEvent,
  change: Pick<ActionEventChange, 'now' | 'error' | 'statusCode' | 'callback'> & { to: ActionState },
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
}
