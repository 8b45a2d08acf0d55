import type { CommentPolicy, ConfirmationMode, GateChannelName, GateField, OnTimeout } from '@sched/contract';
import { sql } from 'kysely';
import type { ActionState } from '../../domain/action/states.js';
import type { ActionRow } from '../actions.js';
import type { Sql } from '../database.js';
import type { NewRecipient } from './recipients.js';

/** An escalation contact (or recipient) as resolved when the action was created. */
type StoredRecipientTarget = NewRecipient;

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

/**
 * An approval action's row by id alone (a gate timer or a response link knows no account), locked until the
 * transaction ends when `forUpdate`.
 */
export async function findGateAction(
  db: Sql,
  actionId: string,
  opts: { forUpdate?: boolean } = {},
): Promise<ActionRow | undefined> {
  const q = db.selectFrom('actions').selectAll().where('id', '=', actionId);
  return (opts.forUpdate ? q.forUpdate() : q).executeTakeFirst();
}

/** What moves with a gate's running state: the action's status and the times and error that go with it. */
export interface GateActionFields {
  status?: ActionState;
  executed_at?: Date;
  next_attempt_at?: Date | null;
  last_error?: string | null;
  /** A recurring approval's last occurrence, granted: counted as a completed execution. */
  recurrence_count?: number;
  last_executed_at?: Date;
}

/**
 * Merges `patch` into the gate's running state and sets the given fields, in one statement. A new status ends any
 * lease (the round that held it is over).
 */
export async function updateGate(
  db: Sql,
  actionId: string,
  patch: Partial<StoredGate>,
  fields: GateActionFields,
  now: Date,
): Promise<void> {
  await db
    .updateTable('actions')
    .set({
      gate: sql`gate || ${JSON.stringify(patch)}::jsonb`,
      ...fields,
      ...(fields.status !== undefined ? { lease_until: null } : {}),
      updated_at: now,
    })
    .where('id', '=', actionId)
    .execute();
}
