import type { PrivateAccess } from '../../domain/destinations/policy.js';
import type { RescheduleBody, RunNowBody } from '@sched/contract';
import { RESCHEDULABLE_STATES, RUNNABLE_STATES } from '../../domain/action/states.js';
import type { Plan } from '../../domain/quota/plans.js';
import type { ActionRow } from '../../persistence/actions.js';
import { recipientsOf } from '../../persistence/approvals/recipients.js';
import type { Sql } from '../../persistence/database.js';
import { calendarsNamedBy } from '../calendars/book.js';
import { ConflictError, ValidationError } from '../errors.js';
import type { ActionScheduler, CallbackQueue, Clock, Store } from '../ports.js';
import { prepareAction } from './prepare.js';
import { replayDefinition } from './replay.js';
import { scheduleColumns } from './create.js';
import { applyActionEvent, lockOwnAction } from './transition.js';
import { placeRowAttempt } from './window.js';

/**
 * Reschedule and run now (docs/windows.md): a pending action gets a new due time, or is due at once. Both work
 * inside the caller's transaction (the API's, or one batch of a bulk operation), audited with the change.
 */
export interface MoveDeps {
  scheduler: ActionScheduler;
  /** What a state change implies (app/actions/transition.ts); neither move has a callback today. */
  callbacks: CallbackQueue;
  clock: Clock;
  allowPrivateDestinations: PrivateAccess;
}

/** Who asked, for the audit event (a bulk operation names itself). */
export interface MoveSource {
  via?: string | undefined;
}

/** Why an action cannot be rescheduled (a 409's message), or null when it can. */
export function rescheduleRefusal(row: Pick<ActionRow, 'id' | 'status' | 'chain_id'>): string | null {
  if (row.chain_id) return `action ${row.id} is a step of chain ${row.chain_id}; it moves with its chain`;
  if (!RESCHEDULABLE_STATES.includes(row.status))
    return `action ${row.id} is ${row.status}; only a pending action (${RESCHEDULABLE_STATES.join(', ')}) can be rescheduled`;
  return null;
}

/** Why an action cannot run now (a 409's message), or null when it can. */
export function runRefusal(row: Pick<ActionRow, 'id' | 'status' | 'chain_id' | 'mode'>): string | null {
  if (row.chain_id) return `action ${row.id} is a step of chain ${row.chain_id}; it runs with its chain`;
  if (row.mode !== 'webhook') return `action ${row.id} is an approval; only a webhook action can run now`;
  if (!RUNNABLE_STATES.includes(row.status))
    return `action ${row.id} is ${row.status}; only a pending webhook action (${RUNNABLE_STATES.join(', ')}) can run now`;
  return null;
}

/**
 * Gives one pending action of the account a new time by the create's own rules (prepareAction: the schedule, the
 * plan's horizon, the delivery window; a series is anchored on the new time). 404 unknown, 422 bad time, 409 not
 * pending.
 */
export async function rescheduleAction(
  deps: MoveDeps,
  tx: Sql,
  owner: { accountId: string; plan: Plan },
  id: string,
  body: RescheduleBody,
  source: MoveSource = {},
): Promise<ActionRow> {
  const row = await lockOwnAction(tx, owner.accountId, id);
  const given = [body.schedule, body.scheduled_for].filter((x) => x !== undefined).length;
  if (given !== 1) throw ValidationError.field('schedule', 'Give exactly one of schedule and scheduled_for');
  const refusal = rescheduleRefusal(row);
  if (refusal) throw new ConflictError(refusal);
  const now = deps.clock();
  const recipients = row.mode === 'approval' ? await recipientsOf(tx, row.id) : [];
  const definition = replayDefinition(row, recipients, body, now);
  const prepared = prepareAction(definition, {
    plan: owner.plan,
    now,
    allowPrivateDestinations: deps.allowPrivateDestinations,
    calendars: await calendarsNamedBy(tx, owner.accountId, [definition]),
  });
  if (!prepared.ok) throw new ValidationError(prepared.errors);
  const p = prepared.action;
  const due = p.dueAt ?? p.at;
  return applyActionEvent(
    tx,
    row,
    'reschedule',
    {
      now,
      nextAttemptAt: due,
      set: { ...scheduleColumns(p), held_since: null, held_by: null },
      audit: () => ({
        from: row.next_attempt_at?.toISOString() ?? row.scheduled_for.toISOString(),
        to: due.toISOString(),
        ...(source.via ? { via: source.via } : {}),
      }),
    },
    deps,
  );
}

/**
 * Makes one pending webhook action of the account due now, or at its window's next opening unless `ignore_window`.
 * A paused one leaves its pause; a series runs its current occurrence and carries on. 404 unknown, 409 otherwise.
 */
export async function runActionNow(
  deps: MoveDeps,
  tx: Sql,
  accountId: string,
  id: string,
  body: RunNowBody,
  source: MoveSource = {},
): Promise<ActionRow> {
  const row = await lockOwnAction(tx, accountId, id);
  const refusal = runRefusal(row);
  if (refusal) throw new ConflictError(refusal);
  const now = deps.clock();
  const placed = body.ignore_window
    ? {
        at: now,
        changes: row.delivery_window
          ? { window_state: { deferred: null, skipped: row.window_state?.skipped ?? [] } }
          : {},
      }
    : await placeRowAttempt(tx, row, now);
  return applyActionEvent(
    tx,
    row,
    'run_now',
    {
      now,
      nextAttemptAt: placed.at,
      set: { ...placed.changes, pause: null, held_since: null, held_by: null },
      audit: () => ({
        from_status: row.status,
        due_at: placed.at.toISOString(),
        ignore_window: body.ignore_window === true,
        ...(source.via ? { via: source.via } : {}),
      }),
    },
    deps,
  );
}

/** `POST /actions/{id}/reschedule` and `/run`, each in its own transaction. */
export class ActionMoves {
  constructor(private readonly deps: MoveDeps & { store: Store }) {}

  reschedule(owner: { accountId: string; plan: Plan }, id: string, body: RescheduleBody): Promise<ActionRow> {
    return this.deps.store.transaction((tx) => rescheduleAction(this.deps, tx, owner, id, body));
  }

  run(accountId: string, id: string, body: RunNowBody): Promise<ActionRow> {
    return this.deps.store.transaction((tx) => runActionNow(this.deps, tx, accountId, id, body));
  }
}
