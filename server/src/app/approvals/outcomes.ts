import type { FieldValue } from '@sched/contract';
import { fillValues } from '../../domain/approval/fields.js';
import { recordStepResponse } from '../../persistence/chains.js';
import type { ActionEvent, ActionState } from '../../domain/action/states.js';
import type { ActionRow } from '../../persistence/actions.js';
import { updateGate } from '../../persistence/approvals/gates.js';
import { resetRecipients } from '../../persistence/approvals/recipients.js';
import { revokeResponseTokens } from '../../persistence/approvals/response-tokens.js';
import type { Sql } from '../../persistence/database.js';
import { writeNewAction } from '../actions/create.js';
import type { PreparedAction } from '../actions/prepare.js';
import { seriesOf } from '../actions/series.js';
import { placeRowRun } from '../actions/window.js';
import { actionEventEffects, applyActionEvent, type TransitionDeps } from '../actions/transition.js';
import type { Clock } from '../ports.js';
import type { Waits } from '../waits.js';

/**
 * Approval granted (by answers or by `on_timeout: approve`): the action is executed and, when it carries a
 * `request`, that request becomes a webhook action due now, so it gets the delivery engine's retries, signatures,
 * SSRF guard and callbacks. Its id is kept in `gate.post_approval_action_id`.
 *
 * A recurring approval (recurring actions re-schedule themselves after each successful execution, S19)
 * is instead re-armed for its next occurrence: its links die, its recipients are pending again, and at that time a
 * new round asks them afresh with new links and a fresh timeout. The request of a later round counts against its
 * destination's threshold when it is sent (the approval's create counted the first).
 */
export async function grantGate(
  tx: Sql,
  row: ActionRow,
  event: Extract<ActionEvent, 'confirm' | 'timeout_approve'>,
  deps: TransitionDeps & { clock: Clock; waits: Waits },
  answer: { values?: Record<string, FieldValue> | null; callback?: Record<string, unknown> } = {},
): Promise<{ status: ActionState; postApprovalActionId: string | null }> {
  const now = deps.clock();
  const values = answer.values ?? {};
  // A gated chain step's typed answer is its response: `{{steps.N.response.values.<name>}}`. A gate that asks
  // for no values keeps the response it always had (none).
  if (row.chain_id && row.gate?.fields?.length)
    await recordStepResponse(tx, row.id, JSON.stringify({ values }));
  let childId: string | null = null;
  if (row.request) {
    const child = await writeNewAction(
      tx,
      {
        owner: { accountId: row.account_id },
        action: postApprovalRequest(row, now, values),
        gate: null,
        origin: { kind: 'post_approval', approvalId: row.id },
        now,
        source: row.created_via,
        countAtSend: row.recurrence_count > 0,
      },
      { scheduler: deps.scheduler },
    );
    childId = child.id;
  }
  const completed = row.recurrence_count + 1;
  // The next round of a recurring approval is placed in its delivery window, as a webhook's next occurrence is.
  const series = row.recurrence ? seriesOf(row, deps.waits) : null;
  const placed = series
    ? await placeRowRun(tx, row, series.nextAfterCurrent(completed, now), (run) =>
        series.runAfter(run.at, completed),
      )
    : null;
  const next = placed?.run ?? null;
  if (!next) {
    const { status } = await applyActionEvent(
      tx,
      row,
      event,
      {
        now,
        gate: { post_approval_action_id: childId },
        set: {
          executed_at: now,
          ...(row.recurrence ? { recurrence_count: completed, last_executed_at: now } : {}),
        },
        ...(answer.callback && { callback: answer.callback }),
      },
      deps,
    );
    return { status, postApprovalActionId: childId };
  }
  await reopenGate(tx, row, now, childId);
  const { status } = await applyActionEvent(
    tx,
    row,
    'recur',
    {
      now,
      nextAttemptAt: new Date(Math.max(placed!.at.getTime(), now.getTime())),
      set: {
        ...placed!.changes,
        scheduled_for: next.at,
        recurrence_count: completed,
        recurrence_index: next.index,
        last_executed_at: now,
        executed_at: now,
        attempt_count: 0,
        reschedule_count: 0,
      },
    },
    deps,
  );
  // The series moves on, but the grant is still told as what it was (a timeout's approval: `action.expired`).
  await actionEventEffects(
    tx,
    row,
    event,
    { now, to: status, ...(answer.callback && { callback: answer.callback }) },
    deps,
  );
  return { status, postApprovalActionId: childId };
}

/** The request of an approval, as the webhook action that runs it after the approval, due now. */
function postApprovalRequest(row: ActionRow, now: Date, values: Record<string, FieldValue>): PreparedAction {
  return {
    mode: 'webhook',
    name: `${row.name} (after approval)`.slice(0, 255),
    description: null,
    timezone: row.timezone,
    at: now,
    idempotencyKey: null,
    callbackUrl: row.callback_url,
    request:
      row.request && row.request.body !== undefined && (row.gate?.fields ?? []).length > 0
        ? { ...row.request, body: fillValues(row.request.body, values) }
        : row.request,
    maxAttempts: row.max_attempts,
    retryStrategy: row.retry_strategy,
    webhookSecret: row.webhook_secret,
    dedupKeys: [],
    coordination: null,
    recurrence: null,
    gate: null,
  };
}

/**
 * A gate asks again from the start: the old links die, every recipient is pending again, escalation contacts added
 * last time go, and the gate forgets its round, so the next send is a first request with a fresh `gate.timeout`
 * counted from it (and a fresh escalation timer). Used when a failed (declined) approval is retried with
 * `POST /actions/{id}/retry` (the caller has moved it to `resolved`, due now; the post-approval request still waits
 * for a confirm) and when a recurring approval moves on to its next occurrence (keeping the request the granted
 * round ran).
 */
export async function reopenGate(
  db: Sql,
  row: ActionRow,
  now: Date,
  postApprovalActionId: string | null = null,
): Promise<void> {
  await revokeResponseTokens(db, row.id);
  await resetRecipients(db, row.id);
  await updateGate(
    db,
    row.id,
    {
      snooze_count: 0,
      sent_at: null,
      expires_at: null,
      escalated_at: null,
      post_approval_action_id: postApprovalActionId,
    },
    {},
    now,
  );
}
