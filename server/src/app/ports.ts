import type { ActionRow } from '../persistence/action-store.js';
import type { Sql } from '../persistence/db.js';

/**
 * Makes an action's next attempt durable work: a queued job at its due time (and a nudge to workers' timers),
 * written in the caller's transaction so the row and its job commit together; for a time beyond the look-ahead
 * window, the job is written when that time comes near.
 */
export interface ActionScheduler {
  schedule(tx: Sql, actionId: string, dueAt: Date): Promise<void>;
  /** Whether `schedule` writes anything for this due time now (a later one is picked up as it comes near). */
  writesAt(dueAt: Date): boolean;
}

export type CallbackEvent = 'action.executed' | 'action.failed' | 'action.expired' | 'reminder.responded';

/** Records a lifecycle event for the action's callback_url (if any) and queues its delivery, in the caller's transaction. */
export interface CallbackOutbox {
  enqueue(
    tx: Sql,
    action: Pick<ActionRow, 'id' | 'account_id' | 'name' | 'callback_url'>,
    event: CallbackEvent,
    payload: Record<string, unknown>,
  ): Promise<void>;
}

/** The clock is an input, so use cases and tests agree on what "now" is. */
export type Clock = () => Date;
