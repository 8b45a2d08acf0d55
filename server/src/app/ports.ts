import type { ActionRow } from '../persistence/actions.js';
import type { Sql } from '../persistence/database.js';

/**
 * The database as use cases see it: typed SQL (`sql`, on the current transaction) and a transaction helper; the
 * persistence functions take the `db` it hands out. Implemented by persistence/database.ts `Database`.
 */
export interface Store {
  readonly sql: Sql;
  transaction<T>(fn: (db: Sql) => Promise<T>): Promise<T>;
}

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
  /** Queues another delivery attempt of a callback at `at`, in the caller's transaction. */
  redeliver(db: Sql, callbackId: string, at: Date): Promise<void>;
}

/** Sends the messages of an approval gate's round when its action fires (jobs/approval-engine.ts). */
export interface GateRounds {
  sendRound(row: ActionRow): Promise<void>;
}

/** The clock is an input, so use cases and tests agree on what "now" is. */
export type Clock = () => Date;

/** Starts the worker on a bulk operation: a job written in the caller's transaction (jobs/bulk-operations.ts). */
export interface BulkOperationQueue {
  enqueue(tx: Sql, operationId: string): Promise<void>;
}
