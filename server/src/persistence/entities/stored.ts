import type {
  ActionState,
  DstFoldPolicy,
  DstGapPolicy,
  HttpMethod,
  NotMetPolicy,
  OnCreateRule,
  OnExecuteCondition,
  RecurrenceEndType,
  RecurrenceUnit,
  Weekday,
  WindowOutsidePolicy,
} from '@sched/contract';

/** The shapes of the JSON columns of `actions`, as the service writes them. */

export interface StoredRequest {
  url: string;
  method: HttpMethod;
  headers: Record<string, string>;
  body?: unknown;
}

export interface StoredCoordination {
  on_create?: OnCreateRule;
  on_execute?: {
    condition: OnExecuteCondition;
    on_condition_not_met?: NotMetPolicy;
    reschedule_delay: number;
    max_reschedules: number;
  };
}

/** The gate column's shape is declared with the approval side's persistence. */
export type { StoredGate } from '../approvals/gates.js';

export interface StoredRecurrence {
  frequency: number;
  unit: RecurrenceUnit;
  end_type: RecurrenceEndType;
  max_occurrences?: number;
  end_date?: string;
  /** How wall times in DST gaps and folds are read; absent: the default policy (domain/schedule/dst.ts). */
  dst_policy?: { gap: DstGapPolicy; fold: DstFoldPolicy };
  /** The wall time occurrence 0 was asked for (ISO 8601 without offset): steps are taken from it (recurrence.ts). */
  wall_time?: string;
}

/** A running pause (`POST /actions/{id}/pause`). */
export interface StoredPause {
  /** The state the action was paused from: resume goes back to the schedule, or to waiting for answers. */
  from: ActionState;
  paused_at: string;
  /** When it resumes by itself (a durable job), or null for an indefinite pause. */
  until: string | null;
  note: string | null;
}

/** A delivery window as stored (`delivery_window`, its defaults filled in: the timezone is always set). */
export interface StoredWindow {
  timezone: string;
  days?: Weekday[];
  start: string;
  end: string;
  calendar?: string;
  outside: WindowOutsidePolicy;
}

/** What an action's window did: the pending attempt's deferral, and the occurrences skipped (newest 20). */
export interface StoredWindowState {
  deferred: { from: string; to: string } | null;
  skipped: string[];
}
