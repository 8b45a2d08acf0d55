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
  QuietHours,
  Weekday,
  WindowOutsidePolicy,
} from '@sched/contract';
import type { CommentPolicy, ConfirmationMode, GateChannelName, GateField, OnTimeout } from '@sched/contract';
import type { ChannelTarget } from '../../domain/approval/messages.js';

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

/** An escalation contact (or recipient) as resolved when the action was created. */
export interface StoredRecipientTarget {
  reference: string;
  address: string;
  displayName: string;
  targets: ChannelTarget[];
}

/** The gate of an approval action (the `actions.gate` column), with its running state (snoozes, send and expiry times). */
export interface StoredGate {
  message: string;
  /** The channels its recipients are reached on (as written, or what the recipients needed). */
  channels: GateChannelName[];
  /**
   * `gate.channels` as written, null when it was left out (each recipient gets what it needs): a reassigned recipient
   * is resolved under the same rule. Absent on gates stored before reassignment: read as `channels`.
   */
  requested_channels?: GateChannelName[] | null;
  buttons: [string, string];
  confirmation_mode: ConfirmationMode;
  /** Quorum gates: confirmations needed; absent on other modes (and on gates stored before quorum existed). */
  min_approvals?: number | null;
  required_recipients?: string[];
  exclude_requester?: string | null;
  /** Slack member ids who may answer a Slack channel's buttons; absent or empty: anyone in the channel. */
  slack_responders?: string[];
  /** Scheduled reminders to recipients who have not answered; `every_ms` unscaled. */
  reminders?: { every: string; every_ms: number; max: number; channels: GateChannelName[] | null } | null;
  /** Reminders sent in this round (scheduled and `POST /remind`). */
  reminders_sent?: number;
  /** Absent on gates stored before the policy existed: `optional`. */
  comment?: CommentPolicy;
  max_snoozes: number;
  snooze_count: number;
  timeout: string;
  timeout_ms: number;
  on_timeout: OnTimeout;
  escalation: { contacts: string[]; after_hours: number; recipients: StoredRecipientTarget[] } | null;
  /** When the gate's messages are held (its timezone filled in); absent or null: any time. */
  quiet_hours?: QuietHours | null;
  /** When the current round's first request went out (ISO 8601); null until then, and again after a retry. */
  sent_at: string | null;
  expires_at: string | null;
  escalated_at: string | null;
  post_approval_action_id: string | null;
  /** Time spent paused since the round was sent (ms): the escalation clock runs this much later. */
  paused_ms?: number;
  /** Resumes since the round was sent: an escalation timer set before the last resume is stale. */
  resumes?: number;
  /** The typed answer asked for (`gate.fields`); absent on gates stored before it existed. */
  fields?: GateField[];
  /** The standing grant an approver may give (`gate.grant`), `max_ttl_ms` unscaled. */
  grant?: { key: string; max_ttl: string; max_ttl_ms: number } | null;
  /** The standing grant that confirmed this request at once. */
  granted_by?: string | null;
}

export interface StoredRecurrence {
  frequency: number;
  unit: RecurrenceUnit;
  end_type: RecurrenceEndType;
  max_occurrences?: number;
  end_date?: string;
  /** How wall times in DST gaps and folds are read; absent: the default policy (domain/schedule/resolve.ts `readWallTime`). */
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
