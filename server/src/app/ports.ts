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
 * window (domain/schedule/window.ts), the job is written when that time comes near.
 */
export interface ActionScheduler {
  schedule(tx: Sql, actionId: string, dueAt: Date): Promise<void>;
}

export type CallbackEvent =
  | 'action.executed'
  | 'action.failed'
  | 'action.expired'
  | 'action.paused'
  | 'action.resumed'
  | 'reminder.responded';

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

/** A gate timer as the approval engine reads it (its pg-boss job's data). */
export interface GateTimerJob {
  actionId: string;
  kind: 'timeout' | 'escalation';
  /** The `gate.sent_at` of the round that set it. */
  round?: string;
  /** The gate's `resumes` when it was set: an escalation timer from before a resume is stale. */
  resumes?: number;
}

/** Durable timers of pause and resume: pg-boss jobs written in the caller's transaction. */
export interface PauseTimers {
  /** Resumes the action at `at`, unless the pause that set it (`pausedAt`) is over by then. */
  resumeAt(tx: Sql, actionId: string, at: Date, pausedAt: string): Promise<void>;
  /** Re-arms an approval gate's timer once its clock runs again. */
  gateTimer(tx: Sql, timer: GateTimerJob, at: Date): Promise<void>;
}

/** Sends the messages of an approval gate's round when its action fires (jobs/approval-engine.ts). */
export interface GateRounds {
  sendRound(row: ActionRow): Promise<void>;
}

/** The clock is an input, so use cases and tests agree on what "now" is. */
export type Clock = () => Date;
